package gstglue

// instance.go: an element's Go side found by its own C trampolines
// through a handle the instance carries (GObject qdata, element.h's
// gstc_instance_handle), instead of go-glib's glib.FromObjectUnsafePrivate
// (two cgo calls and a map lookup under a lock per callback: about 5 % of
// tensorinfer's own cost a frame in its profile).

/*
#include "element.h"
#include "qdata.h"

// gstc_instance_set_handle stores h on obj (a GObject) under
// gstc_instance_quark; the handle is destroyed (gstc_handle_destroy) when
// obj is finalized, or when a later call replaces it.
static inline void
gstc_instance_set_handle (gpointer obj, uintptr_t h)
{
  g_object_set_qdata_full ((GObject *) obj, gstc_instance_quark (),
      (gpointer) h, gstc_handle_destroy);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// BindInstance makes v the Go side of obj (a GObject: the element whose
// InstanceInit is running, v its Go subclass value) for the element's
// own C trampolines, which hand Go the handle they read from obj
// (gstc_instance_handle: one qdata read) and find v with InstanceOf (one
// lock-free table read). The handle lives as long as obj: GObject drops
// it when obj is finalized, after which no vfunc of obj runs. Allocates
// once.
func BindInstance(obj unsafe.Pointer, v any) {
	C.gstc_instance_set_handle(C.gpointer(obj), C.uintptr_t(NewHandle(v)))
}

// InstanceOf returns the Go side of the element at obj as a T: the value
// bound to h (the handle its trampoline read from obj), else go-glib's
// (an element that was never bound); ok is false when it is not a T. No
// lock, no allocation for a concrete T.
func InstanceOf[T any](obj unsafe.Pointer, h uintptr) (v T, ok bool) {
	if h != 0 {
		if r, found := LookupHandle(h); found {
			v, ok = r.(T)
			return v, ok
		}
	}
	v, ok = glib.FromObjectUnsafePrivate(obj).(T)
	return v, ok
}

// ElementOf returns the Go side of the element e as a T, for a package's
// Go API (ReadStats, FromElement): an error wrapping notKind, naming e,
// when e is nil or another kind of element. e is borrowed.
func ElementOf[T any](e *gst.Element, notKind error) (T, error) {
	var zero T
	if e == nil {
		return zero, fmt.Errorf("nil element: %w", notKind)
	}
	v, ok := InstanceOf[T](e.Unsafe(), 0)
	if !ok {
		return zero, fmt.Errorf("%s: %w", e.GetName(), notKind)
	}
	return v, nil
}

// InstanceHandle is the handle BindInstance stored on obj, or 0.
func InstanceHandle(obj unsafe.Pointer) uintptr {
	return uintptr(C.gstc_instance_handle(C.gpointer(obj)))
}
