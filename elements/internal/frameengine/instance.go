package frameengine

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
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// instanceEntry is what an instance's handle (in the general handle
// table: lookups without a lock or a map) refers to: its Go side, and
// the per-frame interfaces it implements, asserted once when bound (nil
// where it does not), so that a trampoline makes no interface assertion
// per callback (in tensorinfer's profile the sync.Map lookups and the
// generic trampoline's getitab came to about 0.4 µs a frame). Nothing to
// release: the Go value lives as long as go-glib keeps it.
type instanceEntry struct {
	v         any
	renderer  RawRenderer
	creator   RawCreator
	preparer  RawPreparer
	sinkBegin TensorSyncBeginHandler
	srcEnd    TensorSyncEndHandler
	inferHost InferFrameHost
}

// BindInstance makes v the Go side of obj (a GObject: the element whose
// InstanceInit is running, v its Go subclass value) for this package's
// trampolines (render, create, prepare-output-buffer, GstTensorSync
// events, …), which then find v through a handle stored on obj (one
// qdata read in C, one lock-free table read in Go) instead of go-glib's
// lookup. The handle lives as long as obj: GObject drops it when obj is
// finalized, after which no vfunc of obj runs. An element that does not
// call it is found through go-glib, as before. Allocates once.
func BindInstance(obj unsafe.Pointer, v any) {
	ie := &instanceEntry{v: v}
	ie.renderer, _ = v.(RawRenderer)
	ie.creator, _ = v.(RawCreator)
	ie.preparer, _ = v.(RawPreparer)
	ie.sinkBegin, _ = v.(TensorSyncBeginHandler)
	ie.srcEnd, _ = v.(TensorSyncEndHandler)
	ie.inferHost, _ = v.(InferFrameHost)
	C.gstc_instance_set_handle(C.gpointer(obj), C.uintptr_t(gstglue.NewHandle(ie)))
}

// instanceEntryOf returns the entry of handle h, or nil. No lock, no
// allocation.
func instanceEntryOf(h C.uintptr_t) *instanceEntry {
	if h == 0 {
		return nil
	}
	r, _ := gstglue.LookupHandle(uintptr(h))
	ie, _ := r.(*instanceEntry)
	return ie
}

// instanceOf returns the Go side of the element at obj: the value bound
// to h (the handle C read from obj, gstc_instance_handle), else go-glib's.
// No allocation.
func instanceOf(obj unsafe.Pointer, h C.uintptr_t) any {
	if ie := instanceEntryOf(h); ie != nil {
		return ie.v
	}
	return glib.FromObjectUnsafePrivate(obj)
}

// calleeOf returns what a trampoline calls on the element at obj: pick
// of its entry when it is bound (asserted at binding), else go-glib's
// value asserted now; ok is false when the element does not implement it.
func calleeOf[H any](obj unsafe.Pointer, h C.uintptr_t, pick func(*instanceEntry) H) (c H, ok bool) {
	if ie := instanceEntryOf(h); ie != nil {
		c = pick(ie)
		return c, any(c) != nil
	}
	c, ok = glib.FromObjectUnsafePrivate(obj).(H)
	return c, ok
}

// instanceHandle is the handle BindInstance stored on obj, or 0.
func instanceHandle(obj unsafe.Pointer) C.uintptr_t {
	return C.gstc_instance_handle(C.gpointer(obj))
}

// instanceHandleOf converts a handle kept as a uintptr (tests).
func instanceHandleOf(h uintptr) C.uintptr_t { return C.uintptr_t(h) }

// boundInstance is what a trampoline finds for obj: instanceOf with the
// handle C reads from it.
func boundInstance(obj unsafe.Pointer) any {
	return instanceOf(obj, instanceHandle(obj))
}
