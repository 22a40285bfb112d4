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
// gstc_instance_quark; its place in the table is freed
// (gstc_instance_destroy) when obj is finalized, or when a later call
// replaces it.
static inline void
gstc_instance_set_handle (gpointer obj, uintptr_t h)
{
  g_object_set_qdata_full ((GObject *) obj, gstc_instance_quark (),
      (gpointer) h, gstc_instance_destroy);
}
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
)

// instanceEntry is what an instance's handle refers to: its Go side, and
// the per-frame interfaces it implements, asserted once when bound (nil
// where it does not). Nothing to release: the Go value lives as long as
// go-glib keeps it.
type instanceEntry struct {
	v         any
	renderer  RawRenderer
	creator   RawCreator
	preparer  RawPreparer
	sinkBegin TensorSyncBeginHandler
	srcEnd    TensorSyncEndHandler
	xfBegin   TransformTensorSyncBeginHandler
}

// The instances' table. A handle is an index (plus one) into a slice
// that trampolines read without a lock: one atomic load and one index,
// no map lookup and no interface assertion per callback (in
// tensorinfer's profile the general handle table's sync.Map lookups and
// the generic trampoline's assertions came to about 0.4 µs a frame).
// Binding and destroying take instMu and publish a new slice when the
// table grows; a freed place is reused. The C side reads an instance's
// handle only while the instance lives; the places are atomic all the
// same, so that a stale handle reads nil or another entry, never a torn
// one.
var (
	instMu    sync.Mutex
	instTable atomic.Pointer[[]atomic.Pointer[instanceEntry]]
	instFree  []uintptr
)

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
	ie.xfBegin, _ = v.(TransformTensorSyncBeginHandler)
	C.gstc_instance_set_handle(C.gpointer(obj), C.uintptr_t(putInstance(ie)))
}

// putInstance stores ie in the table and returns its handle (never 0).
func putInstance(ie *instanceEntry) uintptr {
	instMu.Lock()
	defer instMu.Unlock()
	var t []atomic.Pointer[instanceEntry]
	if p := instTable.Load(); p != nil {
		t = *p
	}
	if n := len(instFree); n > 0 {
		h := instFree[n-1]
		instFree = instFree[:n-1]
		t[h-1].Store(ie)
		return h
	}
	// A new array (readers keep the old one), with the places copied.
	grown := make([]atomic.Pointer[instanceEntry], len(t)+1, 2*len(t)+8)
	for i := range t {
		grown[i].Store(t[i].Load())
	}
	grown[len(t)].Store(ie)
	instTable.Store(&grown)
	return uintptr(len(grown))
}

// instanceEntryOf returns the entry of handle h, or nil. No lock, no
// allocation.
func instanceEntryOf(h C.uintptr_t) *instanceEntry {
	p := instTable.Load()
	if h == 0 || p == nil || int(h) > len(*p) {
		return nil
	}
	return (*p)[h-1].Load()
}

//export gstcGoInstanceDestroy
func gstcGoInstanceDestroy(h C.uintptr_t) {
	instMu.Lock()
	defer instMu.Unlock()
	if p := instTable.Load(); p != nil && h != 0 && int(h) <= len(*p) && (*p)[h-1].Load() != nil {
		(*p)[h-1].Store(nil)
		instFree = append(instFree, uintptr(h))
	}
}

// liveInstances counts the instances bound and not yet finalized (for
// tests).
func liveInstances() int {
	instMu.Lock()
	defer instMu.Unlock()
	n := 0
	if p := instTable.Load(); p != nil {
		for i := range *p {
			if (*p)[i].Load() != nil {
				n++
			}
		}
	}
	return n
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
