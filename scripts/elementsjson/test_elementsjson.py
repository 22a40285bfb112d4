"""Tests of elementsjson's "contracts only grow" check (make elements-check).

    /usr/bin/python3 -m unittest discover -s scripts/elementsjson -p 'test_*.py'

The comparison tests need no plugin (the caps tests need Gst's caps only);
TestGenerated reads the plugin found through GST_PLUGIN_PATH and is skipped
without it.
"""
import copy
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stdout

import elementsjson as ej

BASE = {
    "gstreamer": "1.22",
    "plugin": {"name": "tensorpin"},
    "elements": {
        "tensorsrc": {
            "author": "a", "description": "d", "klass": "Source/Video", "long-name": "l", "rank": 0,
            "hierarchy": ["tensorsrc", "GstPushSrc", "GstBaseSrc", "GstElement", "GstObject",
                          "GInitiallyUnowned", "GObject"],
            "interfaces": [],
            "pad-templates": {
                "src": {"direction": "src", "presence": "always",
                        "caps": "video/x-raw, format=(string){ RGB, BGR }, width=(int)[ 1, 16384 ]"},
            },
            "properties": {
                "pool-size": {"type": "guint", "owner": "tensorsrc", "default": 4, "min": 1, "max": 64,
                              "flags": ["readable", "writable", "mutable-ready"], "blurb": "Slots"},
                "framerate": {"type": "GstFraction", "owner": "tensorsrc", "default": "30/1",
                              "min": "0/1", "max": "2147483647/1",
                              "flags": ["readable", "writable", "mutable-ready"], "blurb": "Rate"},
                "layout": {"type": "TensorLayout", "owner": "tensorsrc", "default": "planar",
                           "values": [{"value": 0, "nick": "packed", "name": "LAYOUT_PACKED"},
                                      {"value": 1, "nick": "planar", "name": "LAYOUT_PLANAR"}],
                           "flags": ["readable", "writable"], "blurb": "Layout"},
                "blocksize": {"type": "guint", "owner": "GstBaseSrc", "default": 4096, "min": 0,
                              "max": 4294967295, "flags": ["readable", "writable"], "blurb": "Size"},
            },
            "signals": {
                "seek": {"owner": "tensorsrc", "return": "void", "args": ["guint64", "gdouble"],
                         "action": False},
            },
            "stats": {"structure": "tensorsrc-stats", "fields": {"frames": "guint64", "backend": "gchararray"}},
        },
    },
}


def changed(edit):
    doc = copy.deepcopy(BASE)
    edit(doc["elements"]["tensorsrc"])
    return doc


def prop(e, name):
    return e["properties"][name]


class TestCompare(unittest.TestCase):
    def fails(self, new, *want):
        problems, _ = ej.compare(BASE, new)
        self.assertTrue(problems, "the check passed; want a failure naming " + repr(want))
        text = "\n".join(problems)
        for w in want:
            self.assertIn(w, text)
        return problems

    def passes(self, new, *want_notes):
        problems, notes = ej.compare(BASE, new)
        self.assertEqual(problems, [], "the check failed")
        text = "\n".join(notes)
        for w in want_notes:
            self.assertIn(w, text)
        return notes

    def test_identical_passes_without_notes(self):
        self.assertEqual(ej.compare(BASE, copy.deepcopy(BASE)), ([], []))

    def test_removed_property_fails(self):
        self.fails(changed(lambda e: e["properties"].pop("pool-size")), "REMOVED tensorsrc property pool-size")

    def test_changed_default_fails(self):
        self.fails(changed(lambda e: prop(e, "pool-size").update(default=8)),
                   "CHANGED tensorsrc property pool-size default: 4 -> 8")

    def test_changed_fraction_default_fails(self):
        self.fails(changed(lambda e: prop(e, "framerate").update(default="25/1")),
                   "CHANGED tensorsrc property framerate default")

    def test_changed_enum_value_fails(self):
        def edit(e):
            prop(e, "layout")["values"][1]["value"] = 2
        self.fails(changed(edit), "CHANGED tensorsrc property layout value planar: 1 -> 2")

    def test_removed_enum_value_fails(self):
        def edit(e):
            del prop(e, "layout")["values"][0]
        self.fails(changed(edit), "REMOVED tensorsrc property layout value packed (0)")

    def test_added_enum_value_passes(self):
        def edit(e):
            prop(e, "layout")["values"].append({"value": 2, "nick": "tiled", "name": "LAYOUT_TILED"})
        self.passes(changed(edit), "added tensorsrc property layout value tiled")

    def test_changed_type_fails(self):
        self.fails(changed(lambda e: prop(e, "pool-size").update(type="gint")),
                   "CHANGED tensorsrc property pool-size type: guint -> gint")

    def test_added_property_passes(self):
        def edit(e):
            e["properties"]["ring-depth"] = {"type": "guint", "owner": "tensorsrc", "default": 1, "min": 1,
                                             "max": 8, "flags": ["readable"], "blurb": "new"}
        self.passes(changed(edit), "added tensorsrc property ring-depth")

    def test_narrowed_range_fails_widened_passes(self):
        self.fails(changed(lambda e: prop(e, "pool-size").update(max=32)),
                   "CHANGED tensorsrc property pool-size range narrowed or moved: [1, 64] -> [1, 32]")
        self.fails(changed(lambda e: prop(e, "framerate").update(max="60/1")),
                   "tensorsrc property framerate range narrowed")
        self.passes(changed(lambda e: prop(e, "pool-size").update(min=0, max=128)),
                    "tensorsrc property pool-size range widened")

    def test_flags(self):
        self.fails(changed(lambda e: prop(e, "pool-size")["flags"].remove("writable")),
                   "CHANGED tensorsrc property pool-size flags: no longer writable")
        self.fails(changed(lambda e: prop(e, "pool-size").update(flags=["readable", "writable", "mutable-playing"])),
                   "no longer mutable-ready", "now mutable-playing")
        self.passes(changed(lambda e: prop(e, "pool-size")["flags"].append("controllable")),
                    "tensorsrc property pool-size now controllable")
        self.passes(changed(lambda e: prop(e, "pool-size")["flags"].append("deprecated")),
                    "now deprecated")

    def test_blurb_is_a_note(self):
        self.passes(changed(lambda e: prop(e, "pool-size").update(blurb="Ring slots")), "blurb changed")

    def test_caps_narrowed_fails_widened_passes(self):
        tmpl = lambda e: e["pad-templates"]["src"]  # noqa: E731
        self.fails(changed(lambda e: tmpl(e).update(caps="video/x-raw, format=(string)RGB, width=(int)[ 1, 16384 ]")),
                   "CHANGED tensorsrc pad template src caps: narrowed or changed",
                   "no longer taken: video/x-raw, format=(string)BGR")
        self.fails(changed(lambda e: tmpl(e).update(caps="other/tensors")), "pad template src caps")
        self.passes(changed(lambda e: tmpl(e).update(
            caps="video/x-raw, format=(string){ RGB, BGR, GRAY8 }, width=(int)[ 1, 16384 ]; other/tensors")),
            "tensorsrc pad template src caps widened")
        self.fails(changed(lambda e: tmpl(e).update(presence="sometimes")),
                   "CHANGED tensorsrc pad template src presence: always -> sometimes")
        self.fails(changed(lambda e: e["pad-templates"].pop("src")), "REMOVED tensorsrc pad template src")

    def test_signals(self):
        self.fails(changed(lambda e: e["signals"]["seek"].update(args=["guint64", "gdouble", "gboolean"])),
                   "CHANGED tensorsrc signal seek args")
        self.fails(changed(lambda e: e["signals"]["seek"].update(action=True)),
                   "CHANGED tensorsrc signal seek action: false -> true")
        self.fails(changed(lambda e: e["signals"].pop("seek")), "REMOVED tensorsrc signal seek")
        self.passes(changed(lambda e: e["signals"].update(flush={"owner": "tensorsrc", "return": "void",
                                                                 "args": [], "action": True})),
                    "added tensorsrc signal flush")

    def test_stats(self):
        self.fails(changed(lambda e: e["stats"]["fields"].pop("frames")), "REMOVED tensorsrc stats field frames")
        self.fails(changed(lambda e: e["stats"]["fields"].update(frames="guint")),
                   "CHANGED tensorsrc stats field frames type: guint64 -> guint")
        self.passes(changed(lambda e: e["stats"]["fields"].update(seeks="guint64")), "added tensorsrc stats field seeks")
        self.fails(changed(lambda e: e.pop("stats")), "REMOVED tensorsrc stats structure")

    def test_removed_element_fails(self):
        doc = copy.deepcopy(BASE)
        doc["elements"].pop("tensorsrc")
        self.fails(doc, "REMOVED element tensorsrc")

    def test_inherited_property_under_other_gstreamer_is_a_note(self):
        def edit(e):
            prop(e, "blocksize")["default"] = 8192
        doc = changed(edit)
        self.fails(doc, "CHANGED tensorsrc property blocksize default: 4096 -> 8192 (declared by GstBaseSrc")
        doc["gstreamer"] = "1.24"
        self.passes(doc, "blocksize default")
        # The plugin's own properties still fail under another GStreamer.
        doc["elements"]["tensorsrc"]["properties"].pop("pool-size")
        self.fails(doc, "REMOVED tensorsrc property pool-size")


class TestCommandLine(unittest.TestCase):
    def run_check(self, new):
        with tempfile.TemporaryDirectory() as d:
            old_path, new_path = os.path.join(d, "old.json"), os.path.join(d, "new.json")
            for path, doc in ((old_path, BASE), (new_path, new)):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(ej.dumps(doc))
            out = io.StringIO()
            with redirect_stdout(out):
                rc = ej.main(["--check", old_path, "--against", new_path])
            return rc, out.getvalue()

    def test_removal_exits_1_naming_it(self):
        rc, out = self.run_check(changed(lambda e: e["properties"].pop("pool-size")))
        self.assertEqual(rc, 1, out)
        self.assertIn("contracts only grow", out)
        self.assertIn("REMOVED tensorsrc property pool-size", out)

    def test_addition_exits_0_asking_to_regenerate(self):
        rc, out = self.run_check(changed(lambda e: e["stats"]["fields"].update(seeks="guint64")))
        self.assertEqual(rc, 0, out)
        self.assertIn("regenerate it with `make elements-json`", out)
        self.assertIn("added tensorsrc stats field seeks", out)

    def test_dumps_is_stable(self):
        shuffled = json.loads(json.dumps(BASE))
        shuffled["elements"]["tensorsrc"] = dict(reversed(list(shuffled["elements"]["tensorsrc"].items())))
        self.assertEqual(ej.dumps(BASE), ej.dumps(shuffled))


@unittest.skipUnless(os.environ.get("GST_PLUGIN_PATH"), "GST_PLUGIN_PATH unset: no plugin to read")
class TestGenerated(unittest.TestCase):
    """The generator on the built plugin: stable, complete, and the check
    catches a field of the real stats removed."""

    @classmethod
    def setUpClass(cls):
        cls.doc = ej.generate()

    def test_deterministic(self):
        self.assertEqual(ej.dumps(self.doc), ej.dumps(ej.generate()))

    def test_every_element_with_stats_lists_fields(self):
        self.assertTrue(self.doc["elements"])
        for name, e in self.doc["elements"].items():
            self.assertIn("stats", e["properties"], name)
            self.assertTrue(e["stats"]["fields"], name)
            self.assertIsNone(e["properties"]["name"]["default"], "name's default is the instance's")
            self.assertTrue(e["pad-templates"], name)

    def test_real_stats_field_removed_fails(self):
        new = copy.deepcopy(self.doc)
        name = sorted(new["elements"])[0]
        field = sorted(new["elements"][name]["stats"]["fields"])[0]
        del new["elements"][name]["stats"]["fields"][field]
        problems, _ = ej.compare(self.doc, new)
        self.assertEqual(problems, [f"REMOVED {name} stats field {field}"])


if __name__ == "__main__":
    unittest.main()
