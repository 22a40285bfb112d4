package gstc

// instance.go: the Go side of an element, found by the trampolines
// through a handle the instance carries (GObject qdata), instead of
// go-glib's glib.FromObjectUnsafePrivate (two cgo calls and a map lookup
// under a lock, per callback: about 5 % of tensorinfer's own cost a frame
// in its profile).

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
	"unsafe"

	"github.com/go-gst/go-glib/glib"
)

// instanceEntry is what an instance's handle refers to: its Go side.
// Nothing to release: the Go value lives as long as go-glib keeps it.
type instanceEntry struct{ v any }

func (*instanceEntry) release() {}

// BindInstance makes v the Go side of obj (a GObject: the element whose
// InstanceInit is running, v its Go subclass value) for this package's
// trampolines (render, create, prepare-output-buffer, GstTensorSync
// events, …), which then find v through a handle stored on obj (one
// qdata read in C, one lock-free table read in Go) instead of go-glib's
// lookup. The handle lives as long as obj: GObject drops it when obj is
// finalized, after which no vfunc of obj runs. An element that does not
// call it is found through go-glib, as before. Allocates once.
func BindInstance(obj unsafe.Pointer, v any) {
	C.gstc_instance_set_handle(C.gpointer(obj), C.uintptr_t(newHandle(&instanceEntry{v: v})))
}

// instanceOf returns the Go side of the element at obj: the value bound
// to h (the handle C read from obj, gstc_instance_handle), else go-glib's.
// No allocation.
func instanceOf(obj unsafe.Pointer, h C.uintptr_t) any {
	if h != 0 {
		if r, ok := lookupHandle(uintptr(h)); ok {
			if ie, ok := r.(*instanceEntry); ok {
				return ie.v
			}
		}
	}
	return glib.FromObjectUnsafePrivate(obj)
}

// boundInstance is what a trampoline finds for obj: instanceOf with the
// handle C reads from it.
func boundInstance(obj unsafe.Pointer) any {
	return instanceOf(obj, C.gstc_instance_handle(C.gpointer(obj)))
}
