package gstglue

// caps.go: caps fixation toward per-field targets (what a source's fixate
// vfunc does) and fraction fields of caps.

/*
#include "caps.h"
*/
import "C"

import (
	"maps"
	"runtime"
	"slices"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// FixateTarget is the value each field of a caps structure is fixated
// toward: the nearest integer (gst_structure_fixate_field_nearest_int),
// the nearest fraction (..._nearest_fraction), or the string if the field
// allows it (..._field_string). A field the structure lacks is set to the
// target.
type FixateTarget struct {
	Ints      map[string]int
	Fractions map[string][2]int // {numerator, denominator}
	Strings   map[string]string
}

// FixateCaps fixates caps the way a GstBaseSrcClass.fixate does: it keeps
// the first structure (and its features), fixates the fields of
// targets[structure name] toward their targets, and the remaining fields
// with gst_caps_fixate.
//
// It consumes the caller's reference to caps (transfer full, as the
// fixate vfunc receives it; a finalizer on the wrapper is disarmed) and
// returns fixed caps in a wrapper that owns one reference and has no
// finalizer: return it from a go-gst Fixate override, which hands
// Instance() to C and so transfers that reference, or keep it with
// gst.FromGstCapsUnsafeFull(c.Unsafe()). Empty or ANY caps are returned
// unchanged.
func FixateCaps(caps *gst.Caps, targets map[string]FixateTarget) *gst.Caps {
	runtime.SetFinalizer(caps, nil)
	c := capsC(caps)
	if gobool(C.gst_caps_is_empty(c)) || gobool(C.gst_caps_is_any(c)) {
		return gst.ToGstCaps(unsafe.Pointer(c))
	}
	c = C.gstc_caps_prepare_fixate(c)
	s := C.gst_caps_get_structure(c, 0)
	t := targets[C.GoString(C.gst_structure_get_name(s))]
	// Sorted, so fields a structure lacks are appended in a stable order.
	for _, field := range slices.Sorted(maps.Keys(t.Ints)) {
		v := t.Ints[field]
		cf := C.CString(field)
		C.gstc_structure_fixate_int(s, cf, C.int(v))
		C.free(unsafe.Pointer(cf))
	}
	for _, field := range slices.Sorted(maps.Keys(t.Fractions)) {
		v := t.Fractions[field]
		if v[1] == 0 {
			continue
		}
		cf := C.CString(field)
		C.gstc_structure_fixate_fraction(s, cf, C.int(v[0]), C.int(v[1]))
		C.free(unsafe.Pointer(cf))
	}
	for _, field := range slices.Sorted(maps.Keys(t.Strings)) {
		v := t.Strings[field]
		cf, cv := C.CString(field), C.CString(v)
		C.gstc_structure_fixate_string(s, cf, cv)
		C.free(unsafe.Pointer(cf))
		C.free(unsafe.Pointer(cv))
	}
	c = C.gst_caps_fixate(c)
	return gst.ToGstCaps(unsafe.Pointer(c))
}

// CapsFraction reads fraction field of structure idx of caps (borrowed),
// e.g. "framerate". ok is false if there is no such structure or field,
// or it is not a fixed fraction.
func CapsFraction(caps *gst.Caps, idx int, field string) (num, den int, ok bool) {
	if idx < 0 {
		return 0, 0, false
	}
	cf := C.CString(field)
	defer C.free(unsafe.Pointer(cf))
	var n, d C.int
	if !gobool(C.gstc_caps_get_fraction(capsC(caps), C.guint(idx), cf, &n, &d)) {
		return 0, 0, false
	}
	return int(n), int(d), true
}
