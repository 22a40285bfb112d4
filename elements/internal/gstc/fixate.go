package gstc

/*
#include "srcext.h"
*/
import "C"

import (
	"errors"
	"maps"
	"runtime"
	"slices"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"
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
	c := (*C.GstCaps)(caps.Unsafe())
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
	if !gobool(C.gstc_caps_get_fraction((*C.GstCaps)(caps.Unsafe()), C.guint(idx), cf, &n, &d)) {
		return 0, 0, false
	}
	return int(n), int(d), true
}

// NewFractionParam returns a GstParamSpecFraction (gst_param_spec_fraction)
// for InstallProperties: go-glib has no fraction parameter. Read the value
// in SetProperty with ValueFraction and build it for GetProperty with
// NewFractionValue.
func NewFractionParam(name, nick, blurb string, min, max, def [2]int, flags glib.ParameterFlags) *glib.ParamSpec {
	cn, ck, cb := C.CString(name), C.CString(nick), C.CString(blurb)
	defer func() {
		for _, p := range []*C.char{cn, ck, cb} {
			C.free(unsafe.Pointer(p))
		}
	}()
	ps := C.gstc_param_spec_fraction(cn, ck, cb, C.int(min[0]), C.int(min[1]), C.int(max[0]), C.int(max[1]),
		C.int(def[0]), C.int(def[1]), C.int(flags))
	return glib.ToParamSpec(unsafe.Pointer(ps))
}

// ValueFraction reads a GST_TYPE_FRACTION GValue (borrowed); ok is false
// for any other type.
func ValueFraction(v *glib.Value) (num, den int, ok bool) {
	if v == nil {
		return 0, 0, false
	}
	var n, d C.int
	if !gobool(C.gstc_value_get_fraction((*C.GValue)(v.Unsafe()), &n, &d)) {
		return 0, 0, false
	}
	return int(n), int(d), true
}

// NewFractionValue returns a GST_TYPE_FRACTION GValue holding num/den
// (den must not be 0), e.g. for a GetProperty implementation.
func NewFractionValue(num, den int) (*glib.Value, error) {
	if den == 0 {
		return nil, errors.New("gstc: NewFractionValue: zero denominator")
	}
	v, err := glib.ValueInit(gst.TypeFraction)
	if err != nil {
		return nil, err
	}
	C.gstc_value_set_fraction((*C.GValue)(v.Unsafe()), C.int(num), C.int(den))
	return v, nil
}

// BaseSrcParentNegotiate chains up to the parent GstBaseSrcClass.negotiate
// (the default: query and intersect caps, fixate, set them), for a
// Negotiate override that checks something first. go-gst v1.4.0 has no
// base-src chain-ups.
func BaseSrcParentNegotiate(src *base.GstBaseSrc) bool {
	return gobool(C.gstc_base_src_parent_negotiate((*C.GstBaseSrc)(src.Unsafe())))
}

// InstallLiveGetTimes sets GstBaseSrcClass.get_times (call it from
// ClassInit) to the pseudo-live rule of videotestsrc: when the source is
// live, basesrc waits on the clock until each buffer's PTS (and reports
// PTS+duration as its end); otherwise it does not sync. It is plain C,
// so it costs no Go call per frame, unlike a go-gst GetTimes override.
func InstallLiveGetTimes(klass *glib.ObjectClass) {
	C.gstc_install_live_get_times(C.gpointer(klass.Unsafe()))
}
