package gstglue

// release.go: deterministic release of the references go-gst wrappers own
// (caps, pads), which go-gst would otherwise drop at some garbage
// collection.

/*
#include "cgo.h"
*/
import "C"

import (
	"runtime"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// go-gst drops the references its wrappers own from finalizers, which may
// never run before the process exits; GStreamer's leaks tracer then reports
// the objects as leaked. Objects an element creates while running (caps in
// a query, a pad looked up by name) are released with these instead,
// deterministically.

// ReleaseCaps drops the reference a caps wrapper owns now and disarms its
// finalizer. Use it only on wrappers that own a reference (NewCapsFromString,
// QueryCaps, IntersectFull, …), never on caps borrowed from a vfunc. nil is
// ignored.
func ReleaseCaps(c *gst.Caps) {
	if c == nil || c.Unsafe() == nil {
		return
	}
	runtime.SetFinalizer(c, nil)
	C.gst_mini_object_unref((*C.GstMiniObject)(c.Unsafe()))
}

// GiveCaps returns c for a go-gst vfunc trampoline that hands the caps to C
// as transfer-full (GetCaps, Fixate): the wrapper's own reference becomes
// the caller's, and its finalizer is disarmed so it is not dropped twice.
func GiveCaps(c *gst.Caps) *gst.Caps {
	if c != nil {
		runtime.SetFinalizer(c, nil)
	}
	return c
}

// ReleasePad drops the reference a pad wrapper from Element.GetStaticPad
// owns now and disarms its finalizer. nil is ignored.
func ReleasePad(p *gst.Pad) {
	if p == nil || p.Object == nil || p.Object.InitiallyUnowned == nil || p.Object.InitiallyUnowned.Object == nil {
		return
	}
	obj := p.Object.InitiallyUnowned.Object
	runtime.SetFinalizer(obj, nil)
	C.gst_object_unref(C.gpointer(obj.Unsafe()))
}

// ReleaseBuffer drops the reference a buffer wrapper owns now (from
// gst.NewEmptyBuffer, NewBufferFromBytes…) and disarms its finalizer: for
// a wrapper whose buffer was handed on with a reference of its own (go-gst's
// appsrc PushBuffer refs it), so that the buffer — and the memories and
// fds it holds — is freed when its last user drops it, not at some
// garbage collection. nil is ignored.
func ReleaseBuffer(b *gst.Buffer) {
	if b == nil || b.Instance() == nil {
		return
	}
	runtime.SetFinalizer(b, nil)
	C.gst_mini_object_unref((*C.GstMiniObject)(unsafe.Pointer(b.Instance())))
}

// ReleaseQuery drops the reference a query wrapper owns now (from
// gst.NewAllocationQuery…) and disarms its finalizer, so the pools and
// allocators an answer holds go with it, not at some garbage collection.
// nil is ignored.
func ReleaseQuery(q *gst.Query) {
	if q == nil || q.Instance() == nil {
		return
	}
	runtime.SetFinalizer(q, nil)
	C.gst_mini_object_unref((*C.GstMiniObject)(unsafe.Pointer(q.Instance())))
}

// RefMemory returns a new reference of m as a wrapper that owns it: a
// producer's memory put in one more buffer (AppendMemory moves it there),
// as a pool's memories are, frame after frame.
func RefMemory(m *gst.Memory) *gst.Memory { return BorrowMemory(m).ref() }

// ReleaseMemory drops the reference a memory wrapper owns now and
// disarms its finalizer (see ReleaseBuffer). nil is ignored.
func ReleaseMemory(m *gst.Memory) {
	if m == nil || m.Instance() == nil {
		return
	}
	unrefMemory(m)
}
