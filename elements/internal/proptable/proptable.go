// Package proptable declares an element's GObject properties as one table,
// and its signals, each once and typed (signals.go), beside it:
// per property its name, nick, blurb, type, range, default, flags, getter
// and setter, in one entry. The table makes the param specs to install and
// dispatches SetProperty and GetProperty by the entry's position — the id
// GLib passes back is the install index — so no separate list of property
// numbers exists to drift out of order. Adding a property is adding an
// entry.
//
// Values live in the element (E), in a settings struct behind its own
// mutex — a Guarded[settings] field, which is the lock New takes and
// whose Read copies the values at a state change: the table takes that
// lock around every getter and setter of a settings entry. Read-only
// entries (Live) compute their value without it, from state with locks
// of its own. Setters never post
// errors on the bus (a property set has no streaming context); a value the
// param spec let through but the element rejects is returned as an error
// for the element to log, and checked again where it is used (at start).
//
// The rest of an element's skeleton is here too (element.go): Instance is
// an element's GoObjectSubclass.New (defaults set, the embedded Props
// bound), and Table.InitClass its ClassInit's common part (metadata, the
// always pads, the properties), so that an element's own code is its
// behaviour and its table.
//
// ParseNumbers (numbers.go) reads a string property that holds numbers
// the ways gst-launch users write them — one, a comma-separated list, or
// GStreamer's array syntax <a, b, c> — with errors in words.
package proptable

import (
	"errors"
	"fmt"
	"sync"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// ErrUnknown: a property id that is not in the table.
var ErrUnknown = errors.New("proptable: no such property")

// WritableInReady are the flags of a setting the element reads at start:
// readable, and writable in NULL and READY (glib.ParameterReadWrite |
// gst.ParameterMutableReady: gst-inspect shows "changeable only in NULL or
// READY state"). A property writable in every state passes
// glib.ParameterReadWrite itself.
const WritableInReady = glib.ParameterReadWrite | gst.ParameterMutableReady

// Entry is one property of elements of type E.
type Entry[E any] struct {
	name  string
	spec  func() *glib.ParamSpec
	get   func(e *E) (*glib.Value, error)
	set   func(e *E, v *glib.Value) error // nil: read-only
	def   func(e *E)                      // writes the default (nil: none)
	live  bool                            // get runs without the settings lock
	onSet func(obj *glib.Object, e *E)    // after a successful set, unlocked
}

// Then returns the entry with f run after each successful set, outside the
// settings lock (for effects on the GObject, e.g. GstBaseSrc's is-live).
func (en Entry[E]) Then(f func(obj *glib.Object, e *E)) Entry[E] {
	en.onSet = f
	return en
}

// Table is the property table of elements of type E.
type Table[E any] struct {
	entries []Entry[E]
	lock    func(e *E) sync.Locker
}

// New returns the table of entries, in install order; lock returns the
// mutex guarding e's settings.
func New[E any](lock func(e *E) sync.Locker, entries ...Entry[E]) *Table[E] {
	seen := map[string]bool{}
	for _, en := range entries {
		if seen[en.name] {
			panic("proptable: property " + en.name + " declared twice")
		}
		seen[en.name] = true
	}
	return &Table[E]{entries: entries, lock: lock}
}

// ParamSpecs returns the param specs to install (ObjectClass.InstallProperties).
func (t *Table[E]) ParamSpecs() []*glib.ParamSpec {
	specs := make([]*glib.ParamSpec, len(t.entries))
	for i, en := range t.entries {
		specs[i] = en.spec()
	}
	return specs
}

// SetDefaults writes every entry's default into e (from New(), before e is
// shared).
func (t *Table[E]) SetDefaults(e *E) {
	for _, en := range t.entries {
		if en.def != nil {
			en.def(e)
		}
	}
}

// Name returns the name of property id ("" if unknown).
func (t *Table[E]) Name(id uint) string {
	if int(id) >= len(t.entries) {
		return ""
	}
	return t.entries[id].name
}

// Set is GObject's SetProperty for e: the entry at id converts and stores
// v under e's settings lock.
func (t *Table[E]) Set(obj *glib.Object, e *E, id uint, v *glib.Value) error {
	if int(id) >= len(t.entries) {
		return fmt.Errorf("set property %d: %w", id, ErrUnknown)
	}
	en := t.entries[id]
	if en.set == nil {
		return fmt.Errorf("set property %s: read-only: %w", en.name, ErrUnknown)
	}
	l := t.lock(e)
	l.Lock()
	err := en.set(e, v)
	l.Unlock()
	if err != nil {
		return fmt.Errorf("property %s: %w", en.name, err)
	}
	if en.onSet != nil {
		en.onSet(obj, e)
	}
	return nil
}

// Get is GObject's GetProperty for e (nil for an unknown id or a value
// that cannot be converted).
func (t *Table[E]) Get(e *E, id uint) *glib.Value {
	if int(id) >= len(t.entries) {
		return nil
	}
	en := t.entries[id]
	if !en.live {
		l := t.lock(e)
		l.Lock()
		defer l.Unlock()
	}
	v, err := en.get(e)
	if err != nil {
		return nil
	}
	return v
}

// Uint declares a guint property in [min, max] stored at field(e).
func Uint[E any](name, nick, blurb string, min, max, def uint, flags glib.ParameterFlags, field func(e *E) *uint) Entry[E] {
	return Entry[E]{
		name: name,
		spec: func() *glib.ParamSpec { return glib.NewUintParam(name, nick, blurb, min, max, def, flags) },
		get:  func(e *E) (*glib.Value, error) { return glib.GValue(*field(e)) },
		set: func(e *E, v *glib.Value) error {
			return store(v, field(e))
		},
		def: func(e *E) { *field(e) = def },
	}
}

// Int declares a gint property in [min, max] stored at field(e).
func Int[E any](name, nick, blurb string, min, max, def int, flags glib.ParameterFlags, field func(e *E) *int) Entry[E] {
	return Entry[E]{
		name: name,
		spec: func() *glib.ParamSpec { return glib.NewIntParam(name, nick, blurb, min, max, def, flags) },
		get:  func(e *E) (*glib.Value, error) { return glib.GValue(*field(e)) },
		set:  func(e *E, v *glib.Value) error { return store(v, field(e)) },
		def:  func(e *E) { *field(e) = def },
	}
}

// Bool declares a gboolean property stored at field(e).
func Bool[E any](name, nick, blurb string, def bool, flags glib.ParameterFlags, field func(e *E) *bool) Entry[E] {
	return Entry[E]{
		name: name,
		spec: func() *glib.ParamSpec { return glib.NewBoolParam(name, nick, blurb, def, flags) },
		get:  func(e *E) (*glib.Value, error) { return glib.GValue(*field(e)) },
		set:  func(e *E, v *glib.Value) error { return store(v, field(e)) },
		def:  func(e *E) { *field(e) = def },
	}
}

// String declares a string property stored at field(e). When choices are
// given, other values are refused (the setter's error; the element logs
// it and keeps the previous value).
func String[E any](name, nick, blurb, def string, flags glib.ParameterFlags, field func(e *E) *string, choices ...string) Entry[E] {
	return Entry[E]{
		name: name,
		spec: func() *glib.ParamSpec { d := def; return glib.NewStringParam(name, nick, blurb, &d, flags) },
		get:  func(e *E) (*glib.Value, error) { return glib.GValue(*field(e)) },
		set: func(e *E, v *glib.Value) error {
			var s string
			if err := store(v, &s); err != nil {
				return err
			}
			if len(choices) > 0 && !contains(choices, s) {
				return fmt.Errorf("%q is not one of %v", s, choices)
			}
			*field(e) = s
			return nil
		},
		def: func(e *E) { *field(e) = def },
	}
}

// Fraction declares a GstFraction property (numerator, denominator) in
// [min, max] stored at field(e).
func Fraction[E any](name, nick, blurb string, min, max, def [2]int, flags glib.ParameterFlags, field func(e *E) *[2]int) Entry[E] {
	return Entry[E]{
		name: name,
		spec: func() *glib.ParamSpec { return gstglue.NewFractionParam(name, nick, blurb, min, max, def, flags) },
		get: func(e *E) (*glib.Value, error) {
			f := *field(e)
			return gstglue.NewFractionValue(f[0], f[1])
		},
		set: func(e *E, v *glib.Value) error {
			n, d, ok := gstglue.ValueFraction(v)
			if !ok || d <= 0 {
				return errors.New("not a fraction with a positive denominator")
			}
			*field(e) = [2]int{n, d}
			return nil
		},
		def: func(e *E) { *field(e) = def },
	}
}

// Live declares a read-only property computed by get without the settings
// lock (counters with their own synchronisation). spec makes its param
// spec (flags should be glib.ParameterReadable).
func Live[E any](name string, spec func() *glib.ParamSpec, get func(e *E) (*glib.Value, error)) Entry[E] {
	return Entry[E]{name: name, spec: spec, get: get, live: true}
}

// Stats declares the read-only "stats" property every element has: a
// GstStructure of its counters, made by structure (a new one, the
// caller's) without the settings lock; blurb lists its fields.
func Stats[E any](blurb string, structure func(e *E) *gst.Structure) Entry[E] {
	return Live("stats", func() *glib.ParamSpec {
		return glib.NewBoxedParam("stats", "Statistics", blurb, gst.TypeStructure, glib.ParameterReadable)
	}, func(e *E) (*glib.Value, error) {
		return gstglue.TakeStructureValue(structure(e))
	})
}

// Guarded is an element's property values behind their own lock, apart
// from its streaming state (gst-plugins-rs' Mutex<Settings>): a *Guarded
// is the Locker New takes, so the table's field accessors (which reach
// into Values) run under it; Read copies the values for a state change.
type Guarded[S any] struct {
	sync.Mutex
	Values S
}

// Read returns a copy of the values, taken under the lock.
func (g *Guarded[S]) Read() S {
	g.Lock()
	defer g.Unlock()
	return g.Values
}

// Props gives an element the GObject property vfuncs through its table:
// the element embeds it, made in New by Bind, and its SetProperty and
// GetProperty are the table's on that element.
type Props[E any] struct {
	table *Table[E]
	owner *E
	cat   *gst.DebugCategory
}

// Bind sets e's properties to their defaults and returns the Props that
// set and get them on e, logging rejected values on cat.
func (t *Table[E]) Bind(e *E, cat *gst.DebugCategory) Props[E] {
	t.SetDefaults(e)
	return Props[E]{table: t, owner: e, cat: cat}
}

// SetProperty is GObject's set_property of the element (see
// Table.SetProperty).
func (p Props[E]) SetProperty(obj *glib.Object, id uint, value *glib.Value) {
	p.table.SetProperty(obj, p.owner, id, value, p.cat)
}

// GetProperty is GObject's get_property of the element (see
// Table.GetProperty).
func (p Props[E]) GetProperty(obj *glib.Object, id uint) *glib.Value {
	return p.table.GetProperty(obj, p.owner, id)
}

// store converts v into *dst, refusing a value of another Go type (the
// param spec fixes the type, but a mismatch must not panic on a GStreamer
// thread).
func store[T any](v *glib.Value, dst *T) error {
	gv, err := v.GoValue()
	if err != nil {
		return err
	}
	x, ok := gv.(T)
	if !ok {
		return fmt.Errorf("value of type %T, want %T", gv, *dst)
	}
	*dst = x
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// SetProperty is an element's GObject SetProperty: Set, with a panic
// stopped before it unwinds into C (gstglue.Guard) and a value the
// element rejects logged on cat (a setter posts nothing on the bus). It
// reports whether the value was stored.
func (t *Table[E]) SetProperty(obj *glib.Object, e *E, id uint, v *glib.Value, cat *gst.DebugCategory) (ok bool) {
	defer gstglue.Guard(gst.ToElement(obj), "set-property", &ok, false)
	if err := t.Set(obj, e, id, v); err != nil {
		cat.LogWarning(err.Error())
		return false
	}
	return true
}

// GetProperty is an element's GObject GetProperty: Get, with a panic
// stopped before it unwinds into C (then nil).
func (t *Table[E]) GetProperty(obj *glib.Object, e *E, id uint) (ret *glib.Value) {
	defer gstglue.Guard(gst.ToElement(obj), "get-property", &ret, nil)
	return t.Get(e, id)
}
