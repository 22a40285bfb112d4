package gstc

/*
#include "gstc.h"
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
// obj is borrowed.
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
