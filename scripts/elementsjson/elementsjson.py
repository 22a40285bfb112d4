#!/usr/bin/python3
"""The elements' faces, checked in: docs/elements.json, and "contracts only grow".

What an application relies on is each element's face: its properties (type,
default, range or enum/flags values, flags), its pad templates (caps), its
signals (return and argument types, action or not) and the fields of its
`stats` structure. Like gst-plugins-rs's gst_plugins_cache.json, this tool
writes them, for every element of the plugin it finds through
GST_PLUGIN_PATH, as one JSON file, and checks a build against that file:

    GST_PLUGIN_PATH=build elementsjson.py -o docs/elements.json   (make elements-json)
    GST_PLUGIN_PATH=build elementsjson.py --check docs/elements.json   (make test)
    elementsjson.py --check OLD.json --against NEW.json   (two files, no plugin)

--check fails (exit 1), naming each thing REMOVED or CHANGED: an element, a
property, a pad template, a signal, an interface or a stats field gone; a
property's type, default, flags, range (narrowed) or enum/flags values
changed; a pad template's direction or presence changed, or its caps no
longer taking all they took; a signal's return or argument types or its
action-ness changed; a stats field's type changed. Additions (and a range or
caps widened, a flag readable/writable/controllable gained) pass, with a
note that docs/elements.json should be regenerated to include them. Blurbs,
element metadata, rank and deprecation are notes only.

Determinism: keys sorted, two-space indentation, no addresses, no file
names, no plugin version. A property's default is its value on a fresh
element (what gst-inspect-1.0 shows), except:
  * a property flagged GST_PARAM_DOC_SHOW_DEFAULT (GstObject's "name",
    whose value is the instance's unique name, "tensorsrc0") has its
    GParamSpec's default, as GStreamer's own documentation does;
  * "stats" (a GstStructure of counters) has null: its fields are listed
    under the element's "stats" instead, with their types (its values are
    run-time figures);
  * a default listed in NORMALISED (a value that depends on the machine,
    such as a CPU count) is replaced by the text given there (none today).
Generation fails if a property's value differs between two fresh elements
and is not normalised, so an instance- or run-dependent default cannot slip
in. The stats fields are the union of a fresh element's (in NULL) and of the
same element's after a short pipeline reached EOS (STATS_PIPELINES), so a
field that appears only once running is listed too.

Properties inherited from GStreamer's base classes (GstBaseSrc's
"blocksize", ...) are listed with their owner: they are part of what an
application sees. The file records the GStreamer minor version it was
generated with ("gstreamer"); checked under another one, a change to an
inherited property is a note, not a failure (it is GStreamer's).
"""
import argparse
import ctypes
import json
import sys
from fractions import Fraction

# (element, property) -> (normalised default, why). A default that depends
# on the machine (CPU count, a path, the environment) is written as the
# normalised text so the file stays the same everywhere.
NORMALISED = {}

# Short pipelines whose elements' stats are read at EOS, their fields joined
# to a fresh element's. Each runs in well under a second.
STATS_PIPELINES = [
    "tensorsrc num-buffers=3 ! tensorpinsink",
    "videotestsrc num-buffers=3 ! video/x-raw,format=RGBx,width=64,height=48 "
    "! tensordecode ! tensoroverlay ! fakesink",
]

PLUGIN = "tensorpin"

# GParamFlags and GStreamer's GstParamFlags that belong to the contract, by
# bit. STATIC_*, EXPLICIT_NOTIFY, LAX_VALIDATION are implementation details;
# DOC_SHOW_DEFAULT only steers the default written (above).
PARAM_FLAGS = [
    (1 << 0, "readable"),
    (1 << 1, "writable"),
    (1 << 2, "construct"),
    (1 << 3, "construct-only"),
    (1 << 9, "controllable"),
    (1 << 10, "mutable-ready"),
    (1 << 11, "mutable-paused"),
    (1 << 12, "mutable-playing"),
    (1 << 14, "conditionally-available"),
    (1 << 31, "deprecated"),
]
DOC_SHOW_DEFAULT = 1 << 13
# Flags whose gain is growth (a new capability) and whose loss is a failure.
GROWTH_FLAGS = {"readable", "writable", "controllable"}
# Flags whose change either way is only a note.
NOTE_FLAGS = {"deprecated"}


# ---- Generation ---------------------------------------------------------------

def _gi():
    import gi

    gi.require_version("Gst", "1.0")
    from gi.repository import GObject, Gst

    Gst.init(None)
    return Gst, GObject


class _GParamSpec(ctypes.Structure):
    _fields_ = [("g_type_instance", ctypes.c_void_p), ("name", ctypes.c_char_p),
                ("flags", ctypes.c_uint), ("value_type", ctypes.c_size_t),
                ("owner_type", ctypes.c_size_t), ("nick", ctypes.c_char_p),
                ("blurb", ctypes.c_char_p), ("qdata", ctypes.c_void_p),
                ("ref_count", ctypes.c_uint), ("param_id", ctypes.c_uint)]


class _GstParamSpecFraction(ctypes.Structure):
    _fields_ = [("parent", _GParamSpec)] + [
        (n, ctypes.c_int) for n in ("min_num", "min_den", "max_num", "max_den", "def_num", "def_den")]


def _fraction_range(element, name):
    """GstParamSpecFraction's bounds, which PyGObject does not expose: the
    GParamSpec found through the element's class, read as the C struct."""
    gobject = ctypes.CDLL("libgobject-2.0.so.0")
    gobject.g_object_class_find_property.restype = ctypes.c_void_p
    gobject.g_object_class_find_property.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    getptr = ctypes.pythonapi.PyCapsule_GetPointer
    getptr.restype = ctypes.c_void_p
    getptr.argtypes = [ctypes.py_object, ctypes.c_char_p]
    getname = ctypes.pythonapi.PyCapsule_GetName
    getname.restype = ctypes.c_char_p
    getname.argtypes = [ctypes.py_object]
    capsule = element.__gpointer__
    instance = getptr(capsule, getname(capsule))
    klass = ctypes.c_void_p.from_address(instance).value
    spec = gobject.g_object_class_find_property(klass, name.encode())
    f = _GstParamSpecFraction.from_address(spec)
    return f"{f.min_num}/{f.min_den}", f"{f.max_num}/{f.max_den}", f"{f.def_num}/{f.def_den}"


def _enum_values(pytype, flags):
    # PyGObject's enum and flags classes list their values by number.
    values = getattr(pytype, "__flags_values__" if flags else "__enum_values__")
    return [{"value": int(v), "nick": e.value_nick, "name": e.value_name}
            for v, e in sorted(values.items())]


def _json_value(Gst, GObject, value, vtype):
    """A property value as JSON: numbers and strings as themselves, an enum
    as its nick, flags as their nicks, a fraction as "n/d", caps and
    structures as their strings, anything else (objects, samples) null."""
    if value is None:
        return None
    name = vtype.name
    if vtype.is_a(GObject.TYPE_ENUM):
        return value.value_nick
    if vtype.is_a(GObject.TYPE_FLAGS):
        return [e["nick"] for e in _enum_values(vtype.pytype, True) if e["value"] and int(value) & e["value"] == e["value"]]
    if isinstance(value, (bool, int, float, str)):
        return value
    if name == "GstFraction":
        return f"{int(value.num)}/{int(value.denom)}"
    if name in ("GstCaps", "GstStructure"):
        return value.to_string()
    return None


def _property(Gst, GObject, element, twin, spec, factory):
    name = spec.name
    flags = int(spec.flags)
    entry = {
        "type": spec.value_type.name,
        "owner": spec.owner_type.name,
        "flags": [n for bit, n in PARAM_FLAGS if flags & bit],
        "blurb": spec.blurb,
    }
    vtype = spec.value_type
    if hasattr(spec, "minimum"):
        entry["min"], entry["max"] = spec.minimum, spec.maximum
    if vtype.is_a(GObject.TYPE_ENUM):
        entry["values"] = _enum_values(vtype.pytype, False)
    elif vtype.is_a(GObject.TYPE_FLAGS):
        entry["values"] = _enum_values(vtype.pytype, True)
    spec_default = None
    if vtype.name == "GstFraction" and spec.__gtype__.name == "GstParamFraction":
        entry["min"], entry["max"], spec_default = _fraction_range(element, name)
    elif hasattr(spec, "default_value"):
        spec_default = _json_value(Gst, GObject, spec.default_value, vtype)
    readable = bool(flags & 1)
    if (factory, name) in NORMALISED:
        default = NORMALISED[(factory, name)][0]
    elif name == "stats" and vtype.name == "GstStructure":
        default = None
    elif flags & DOC_SHOW_DEFAULT or not readable:
        default = spec_default
    else:
        default = _json_value(Gst, GObject, element.get_property(name), vtype)
        other = _json_value(Gst, GObject, twin.get_property(name), vtype)
        if default != other:
            raise SystemExit(
                f"elementsjson: {factory}'s {name} is {default!r} on one fresh element and {other!r} "
                "on another: a default that depends on the instance or the machine; add it to NORMALISED "
                "(scripts/elementsjson/elementsjson.py) with the text to write and why")
    entry["default"] = default
    return entry


def _stats_fields(structure):
    if structure is None:
        return {}
    return {structure.nth_field_name(i): structure.get_field_type(structure.nth_field_name(i)).name
            for i in range(structure.n_fields())}


def _run_stats(Gst, desc):
    """Stats fields by factory of the elements of one short pipeline, read at EOS."""
    pipeline = Gst.parse_launch(desc)
    out = {}
    try:
        if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            raise SystemExit(f"elementsjson: {desc}: cannot go to PLAYING")
        msg = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None or msg.type != Gst.MessageType.EOS:
            detail = msg.parse_error()[0].message if msg else "no EOS in 30 s"
            raise SystemExit(f"elementsjson: {desc}: {detail}")
        it = pipeline.iterate_elements()
        while True:
            ok, el = it.next()
            if ok != Gst.IteratorResult.OK:
                break
            factory = el.get_factory()
            if factory is None or factory.get_plugin_name() != PLUGIN:
                continue
            if el.find_property("stats") is not None:
                st = el.get_property("stats")
                out[factory.get_name()] = (_stats_fields(st), st.get_name() if st else None)
    finally:
        pipeline.set_state(Gst.State.NULL)
    return out


def generate():
    Gst, GObject = _gi()
    plugin = Gst.Registry.get().find_plugin(PLUGIN)
    if plugin is None:
        raise SystemExit(f"elementsjson: plugin {PLUGIN} not found (GST_PLUGIN_PATH={__import__('os').environ.get('GST_PLUGIN_PATH', '')})")
    doc = {
        "gstreamer": "%d.%d" % Gst.version()[:2],
        "plugin": {
            "name": plugin.get_name(),
            "description": plugin.get_description(),
            "license": plugin.get_license(),
            "source": plugin.get_source(),
            "package": plugin.get_package(),
            "origin": plugin.get_origin(),
        },
        "elements": {},
    }
    features = Gst.Registry.get().get_feature_list_by_plugin(PLUGIN)
    factories = sorted((f for f in features if isinstance(f, Gst.ElementFactory)), key=lambda f: f.get_name())
    run_stats = {}
    for desc in STATS_PIPELINES:
        for name, (fields, sname) in _run_stats(Gst, desc).items():
            prev = run_stats.setdefault(name, ({}, sname))
            prev[0].update(fields)
    for factory in factories:
        fname = factory.get_name()
        element, twin = factory.create(None), factory.create(None)
        gtype = element.__gtype__
        hierarchy, interfaces, t = [], set(), gtype
        while t.name not in ("GObject", "invalid"):
            hierarchy.append(t.name)
            interfaces.update(i.name for i in t.interfaces)
            t = t.parent
        hierarchy.append("GObject")
        e = {
            "long-name": factory.get_metadata("long-name"),
            "klass": factory.get_metadata("klass"),
            "description": factory.get_metadata("description"),
            "author": factory.get_metadata("author"),
            "rank": factory.get_rank(),
            "hierarchy": hierarchy,
            "interfaces": sorted(interfaces),
            "pad-templates": {},
            "properties": {},
            "signals": {},
        }
        for tmpl in factory.get_static_pad_templates():
            e["pad-templates"][tmpl.name_template] = {
                "direction": tmpl.direction.value_nick,
                "presence": tmpl.presence.value_nick,
                "caps": tmpl.get_caps().to_string(),
            }
        for spec in element.list_properties():
            e["properties"][spec.name] = _property(Gst, GObject, element, twin, spec, fname)
        # Signals of the element's type and its base classes up to GstElement
        # (GstElement's and GstObject's are GStreamer's), as gst-inspect-1.0.
        t = gtype
        while t.name != "GstElement":
            for sid in GObject.signal_list_ids(t):
                q = GObject.signal_query(sid)
                e["signals"][q.signal_name] = {
                    "owner": t.name,
                    "return": q.return_type.name,
                    "args": [p.name for p in q.param_types],
                    "action": bool(int(q.signal_flags) & int(GObject.SignalFlags.ACTION)),
                }
            t = t.parent
        if "stats" in e["properties"]:
            st = element.get_property("stats")
            fields = _stats_fields(st)
            sname = st.get_name() if st is not None else None
            extra, ename = run_stats.get(fname, ({}, None))
            for k, v in extra.items():
                if fields.setdefault(k, v) != v:
                    raise SystemExit(f"elementsjson: {fname} stats field {k} is {fields[k]} fresh and {v} after a run")
            if not fields:
                raise SystemExit(f"elementsjson: {fname}'s stats structure is empty on a fresh element and no "
                                 "STATS_PIPELINES entry runs it; add one")
            e["stats"] = {"structure": sname or ename, "fields": fields}
        doc["elements"][fname] = e
        element.run_dispose()
        twin.run_dispose()
    return doc


def dumps(doc):
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# ---- Comparison ---------------------------------------------------------------

def _frac(v):
    return Fraction(v) if isinstance(v, str) else v


def _caps_take_all(old, new):
    """Whether caps `new` take everything `old` took (equal or wider)."""
    if old == new:
        return True
    Gst, _ = _gi()
    return Gst.Caps.from_string(old).is_subset(Gst.Caps.from_string(new))


def _show(v):
    return json.dumps(v, ensure_ascii=False)


def compare(old, new):
    """Problems (removed or changed: the check fails) and notes (additions and
    harmless changes) going from the recorded `old` to the current `new`."""
    problems, notes = [], []
    same_gst = old.get("gstreamer") == new.get("gstreamer")
    ours = set()
    for e in list(old.get("elements", {}).values()) + list(new.get("elements", {}).values()):
        # The plugin's own types: those above GstElement's base classes in
        # each element's hierarchy, up to the first GStreamer type (Gst...).
        for t in e.get("hierarchy", []):
            if t.startswith("Gst"):
                break
            ours.add(t)

    for ename in sorted(set(old["elements"]) | set(new["elements"])):
        if ename not in new["elements"]:
            problems.append(f"REMOVED element {ename}")
            continue
        if ename not in old["elements"]:
            notes.append(f"added element {ename}")
            continue
        o, n = old["elements"][ename], new["elements"][ename]
        where = ename

        for key in ("long-name", "klass", "description", "author", "rank"):
            if o.get(key) != n.get(key):
                notes.append(f"{where} {key} changed: {_show(o.get(key))} -> {_show(n.get(key))}")
        for t in o.get("hierarchy", []):
            if t not in n.get("hierarchy", []):
                problems.append(f"CHANGED {where}: no longer a {t} (hierarchy {' > '.join(n.get('hierarchy', []))})")
        for t in n.get("hierarchy", []):
            if t not in o.get("hierarchy", []):
                notes.append(f"{where} is now also a {t}")
        for i in sorted(set(o.get("interfaces", [])) - set(n.get("interfaces", []))):
            problems.append(f"REMOVED {where} interface {i}")
        for i in sorted(set(n.get("interfaces", [])) - set(o.get("interfaces", []))):
            notes.append(f"added {where} interface {i}")

        _compare_named(problems, notes, where, "pad template", o.get("pad-templates", {}), n.get("pad-templates", {}),
                       _compare_template)
        po, pn = o.get("properties", {}), n.get("properties", {})
        for pname in sorted(set(po) | set(pn)):
            owner = (po.get(pname) or pn.get(pname)).get("owner", "")
            inherited = owner not in ours and owner != ename
            sink = problems if same_gst or not inherited else notes
            suffix = "" if not inherited else f" (declared by {owner}: GStreamer's)"
            if pname not in pn:
                sink.append(f"REMOVED {where} property {pname}{suffix}")
            elif pname not in po:
                notes.append(f"added {where} property {pname}")
            else:
                before = len(sink)
                _compare_property(sink, notes, f"{where} property {pname}", po[pname], pn[pname])
                for i in range(before, len(sink)):
                    sink[i] += suffix
        _compare_named(problems, notes, where, "signal", o.get("signals", {}), n.get("signals", {}), _compare_signal)

        so, sn = o.get("stats"), n.get("stats")
        if so and not sn:
            problems.append(f"REMOVED {where} stats structure")
        elif sn and not so:
            notes.append(f"added {where} stats structure")
        elif so and sn:
            if so.get("structure") != sn.get("structure"):
                problems.append(f"CHANGED {where} stats structure name: {_show(so.get('structure'))} -> "
                                f"{_show(sn.get('structure'))}")
            fo, fn = so.get("fields", {}), sn.get("fields", {})
            for f in sorted(set(fo) | set(fn)):
                if f not in fn:
                    problems.append(f"REMOVED {where} stats field {f}")
                elif f not in fo:
                    notes.append(f"added {where} stats field {f}")
                elif fo[f] != fn[f]:
                    problems.append(f"CHANGED {where} stats field {f} type: {fo[f]} -> {fn[f]}")
    return problems, notes


def _compare_named(problems, notes, where, kind, old, new, each):
    for name in sorted(set(old) | set(new)):
        if name not in new:
            problems.append(f"REMOVED {where} {kind} {name}")
        elif name not in old:
            notes.append(f"added {where} {kind} {name}")
        else:
            each(problems, notes, f"{where} {kind} {name}", old[name], new[name])


def _compare_template(problems, notes, what, o, n):
    for key in ("direction", "presence"):
        if o.get(key) != n.get(key):
            problems.append(f"CHANGED {what} {key}: {o.get(key)} -> {n.get(key)}")
    if o.get("caps") != n.get("caps"):
        if _caps_take_all(o["caps"], n["caps"]):
            notes.append(f"{what} caps widened")
        else:
            Gst, _ = _gi()
            lost = Gst.Caps.from_string(o["caps"]).subtract(Gst.Caps.from_string(n["caps"])).to_string()
            problems.append(f"CHANGED {what} caps: narrowed or changed (no longer take all of the recorded caps)\n"
                            f"      no longer taken: {lost}\n"
                            f"      recorded: {o['caps']}\n      now:      {n['caps']}")


def _compare_signal(problems, notes, what, o, n):
    for key in ("return", "args", "action"):
        if o.get(key) != n.get(key):
            problems.append(f"CHANGED {what} {key}: {_show(o.get(key))} -> {_show(n.get(key))}")
    if o.get("owner") != n.get("owner"):
        notes.append(f"{what} now declared by {n.get('owner')} (was {o.get('owner')})")


def _compare_property(problems, notes, what, o, n):
    if o.get("type") != n.get("type"):
        problems.append(f"CHANGED {what} type: {o.get('type')} -> {n.get('type')}")
        return
    if o.get("default") != n.get("default"):
        problems.append(f"CHANGED {what} default: {_show(o.get('default'))} -> {_show(n.get('default'))}")
    if "min" in o or "min" in n:
        if "min" not in n or "max" not in n or "min" not in o:
            problems.append(f"CHANGED {what} range: {_show([o.get('min'), o.get('max')])} -> "
                            f"{_show([n.get('min'), n.get('max')])}")
        elif (o["min"], o["max"]) != (n["min"], n["max"]):
            rng = f"[{o['min']}, {o['max']}] -> [{n['min']}, {n['max']}]"
            if _frac(n["min"]) <= _frac(o["min"]) and _frac(n["max"]) >= _frac(o["max"]):
                notes.append(f"{what} range widened: {rng}")
            else:
                problems.append(f"CHANGED {what} range narrowed or moved: {rng}")
    vo = {v["nick"]: v for v in o.get("values", [])}
    vn = {v["nick"]: v for v in n.get("values", [])}
    for nick in sorted(set(vo) | set(vn), key=lambda k: (vo.get(k) or vn.get(k))["value"]):
        if nick not in vn:
            problems.append(f"REMOVED {what} value {nick} ({vo[nick]['value']})")
        elif nick not in vo:
            notes.append(f"added {what} value {nick}")
        elif vo[nick]["value"] != vn[nick]["value"]:
            problems.append(f"CHANGED {what} value {nick}: {vo[nick]['value']} -> {vn[nick]['value']}")
        elif vo[nick].get("name") != vn[nick].get("name"):
            notes.append(f"{what} value {nick} renamed: {vo[nick].get('name')} -> {vn[nick].get('name')}")
    fo, fn = set(o.get("flags", [])), set(n.get("flags", []))
    for f in sorted(fo - fn):
        if f in NOTE_FLAGS:
            notes.append(f"{what} no longer {f}")
        else:
            problems.append(f"CHANGED {what} flags: no longer {f} (flags {', '.join(sorted(fn)) or 'none'})")
    for f in sorted(fn - fo):
        if f in GROWTH_FLAGS or f in NOTE_FLAGS:
            notes.append(f"{what} now {f}")
        else:
            problems.append(f"CHANGED {what} flags: now {f} (flags {', '.join(sorted(fn))})")
    if o.get("owner") != n.get("owner"):
        notes.append(f"{what} now declared by {n.get('owner')} (was {o.get('owner')})")
    if o.get("blurb") != n.get("blurb"):
        notes.append(f"{what} blurb changed")


def check(recorded_path, new, out=None):
    """Prints the comparison; returns the exit status (1: removed or changed)."""
    out = out or sys.stdout
    with open(recorded_path, encoding="utf-8") as f:
        old = json.load(f)
    problems, notes = compare(old, new)
    if problems:
        print(f"{recorded_path}: the elements' contract shrank or changed; contracts only grow "
              f"({len(problems)} problem(s)):", file=out)
        for p in problems:
            print(f"  {p}", file=out)
        print("  A removed or changed property, pad template, signal or stats field breaks applications and "
              "launch lines written against it. Keep it (deprecate it instead), or, if the break is intended, "
              f"regenerate {recorded_path} with `make elements-json` and say so in CHANGELOG.md.", file=out)
    if notes:
        print(f"note: {recorded_path} lacks {len(notes)} addition(s) or harmless change(s); regenerate it with "
              "`make elements-json` to include them:", file=out)
        for n in notes:
            print(f"  {n}", file=out)
    if not problems and not notes and dumps(old) != dumps(new):
        print(f"note: {recorded_path} differs from the current elements in layout only; regenerate it with "
              "`make elements-json`", file=out)
    if not problems:
        print(f"ok   {recorded_path}: no element, property, pad template, signal or stats field removed or changed",
              file=out)
    return 1 if problems else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", help="write the JSON here (default: stdout)")
    ap.add_argument("--check", metavar="RECORDED", help="compare the current elements with this file")
    ap.add_argument("--against", metavar="CURRENT",
                    help="with --check: compare with this file instead of the plugin found through GST_PLUGIN_PATH")
    args = ap.parse_args(argv)
    if args.against and not args.check:
        ap.error("--against needs --check")
    if args.check:
        if args.against:
            with open(args.against, encoding="utf-8") as f:
                new = json.load(f)
        else:
            new = generate()
        return check(args.check, new)
    text = dumps(generate())
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
