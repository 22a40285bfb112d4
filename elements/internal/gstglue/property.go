package gstglue

// property.go: what go-glib lacks for element properties — a GstStructure
// property read and written without leaking or dangling, and GstFraction
// param specs and values.

/*
#include "property.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// TakeStructureValue wraps st in a GValue of type GstStructure for a
// GetProperty implementation of a boxed GstStructure property
// (glib.NewBoxedParam(name, nick, blurb, gst.TypeStructure,
// glib.ParameterReadable)). It consumes st: the value owns it and frees
// it when go-glib unsets the value (after copying it into the caller's
// GValue). Building the value with Structure.ToGValue instead copies st
// and leaves the original to leak, since go-gst Structures have no
// finalizer.
func TakeStructureValue(st *gst.Structure) (*glib.Value, error) {
	v, err := glib.ValueInit(gst.TypeStructure)
	if err != nil {
		return nil, err
	}
	C.g_value_take_boxed((*C.GValue)(unsafe.Pointer(v.GValue)), C.gconstpointer(unsafe.Pointer(structC(st))))
	return v, nil
}

// GObject is anything go-gst or go-glib can give the GObject pointer of
// (*gst.Element, *gst.Object, *glib.Object...).
type GObject interface{ Unsafe() unsafe.Pointer }

// GetStructureProperty reads a GstStructure-typed property and returns a
// copy the caller owns: call Free on it. go-gst's GetProperty returns a
// Structure pointing into a temporary GValue that its finalizer frees, so
// the result can be freed under the caller at any garbage collection.
// obj is borrowed. The elements only write such properties (their stats);
// the tests of the element and integration packages read them with this,
// hence the export.
func GetStructureProperty(obj GObject, name string) (*gst.Structure, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var ok C.gboolean
	st := C.gstc_get_structure_property(C.gpointer(obj.Unsafe()), cname, &ok)
	if !gobool(ok) {
		return nil, fmt.Errorf("gstc: no GstStructure property %q", name)
	}
	if st == nil {
		return nil, errors.New("gstc: property " + name + " is NULL")
	}
	return gst.FromGstStructureUnsafe(unsafe.Pointer(st)), nil
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
