package frameengine

// ringmem.go: tensorsrc's recyclable ring memory. This part of the layer
// is tensorsrc's, not a general GStreamer wrapper: fd memories that come
// back to the source's ring when their last holder drops them (a
// GstMiniObject dispose hook), the frame buffer around one, and the pad
// probe that announces each frame with a GstTensorSync begin event.

/*
#include "ringmem.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// A source that owns a ring of memories (tensorsrc) needs, per frame and
// without the allocations go-gst would make: a buffer around a memory it
// keeps for the stream's life, to know when nobody downstream uses that
// memory any more, and a GstTensorSync begin event that reaches
// downstream right before the buffer — after the SEGMENT event, and only
// if the buffer is really pushed.
//
// The return is tracked on the memory, not the buffer: a buffer can be
// copied downstream (gst_buffer_make_writable of a buffer a tee shares,
// gst_buffer_copy_region) and the copy shares the memory, so "the buffer
// was freed" does not mean "the memory is free". A MemRing memory gets a
// GstMiniObject dispose function: when its last reference is dropped,
// wherever that is, the ring is asked whether it takes the memory back,
// and if so the memory is resurrected — the same GstMemory object with its
// qdata intact, as GstBufferPool does for buffers.

// MemRing owns recyclable fd memories. onReturn(slot, seqnum) runs when
// the last reference of one of its memories is dropped (on whichever
// thread drops it, with the memory and its fd still valid), seqnum being
// the one given to the memory's last NewFrameBuffer. Returning true takes
// the memory back: the caller owns one reference again (the same
// RawMemory). That reference is taken before onReturn runs, so onReturn
// may hand the memory to another thread at once. Returning false lets it
// be freed (its Wrap release runs). onReturn must not drop a reference of any
// memory of the ring, nor take a lock held by code that does.
//
// The ring stays registered until it is closed and every memory it
// wrapped has been freed.
type MemRing struct {
	h        uintptr
	tally    EndTally
	onReturn func(slot int, seqnum uint32) bool
	// refs counts the ring itself (until Close) and each memory not yet
	// freed; at zero the handle is deleted.
	refs atomic.Int64
}

// NewMemRing registers onReturn; see MemRing. Its memories are tracked in
// tally (unless it is the zero EndTally) from Wrap until they are freed.
func NewMemRing(tally EndTally, onReturn func(slot int, seqnum uint32) (keep bool)) *MemRing {
	r := &MemRing{onReturn: onReturn, tally: tally}
	r.refs.Store(1)
	r.h = gstglue.NewHandle(r)
	return r
}

func (r *MemRing) unref() {
	if r.refs.Add(-1) == 0 {
		gstglue.TakeHandle(r.h)
	}
}

// Close drops the ring's own registration; memories not yet freed still
// call onReturn. Call it once.
func (r *MemRing) Close() { r.unref() }

// Wrap wraps fd as fd memory (DMA-BUF memory if dmabuf; see wrapFd for
// the fd's ownership and release) as memory slot of the ring and returns
// it as a RawMemory that owns the one reference (no Go wrapper, no
// finalizer): hand it to NewFrameBuffer, or drop it with UnrefRingMemory.
func (r *MemRing) Wrap(dmabuf bool, fd, size, slot int, release func()) (gstglue.RawMemory, error) {
	if r.refs.Load() <= 0 {
		return gstglue.RawMemory{}, errors.New("gstc: MemRing.Wrap after Close")
	}
	mem, err := gstglue.WrapFd(dmabuf, fd, size, release)
	if err != nil {
		return gstglue.RawMemory{}, err
	}
	r.refs.Add(1)
	m := gstglue.BorrowMemory(mem)
	C.gstc_ring_mem_attach(memP(m), C.uintptr_t(r.h), C.int(slot), r.tally.t)
	runtime.SetFinalizer(mem, nil)
	return m, nil
}

// UnrefRingMemory drops the reference the caller owns of a ring memory
// (from Wrap, or taken back by onReturn). If it was the last one,
// onReturn runs now, on this goroutine.
func UnrefRingMemory(m gstglue.RawMemory) {
	if memP(m) != nil {
		C.gst_memory_unref(memP(m))
	}
}

// NewFrameBuffer moves the caller's reference of ring memory m into a new
// buffer with PTS, duration, offset and offset_end = offset+1 (pass
// ClockTimeNone for an unknown time), and records ts as the bracket of
// this frame: its Seqnum is what onReturn will get, and if announce, the
// probe of InstallTensorSyncAnnouncer pushes ts (with the buffer's PTS at
// push time) as a GstTensorSync event right before the buffer.
//
// The returned RawBuffer owns the buffer's only reference (no Go wrapper,
// no allocation): return it from CreateRaw (which transfers it to
// GStreamer) or drop it with UnrefRawBuffer.
func NewFrameBuffer(m gstglue.RawMemory, pts, duration, offset uint64, ts tensorsync.Info, announce bool) gstglue.RawBuffer {
	ann := C.int(0)
	if announce {
		ann = 1
	}
	return gstglue.RawBufferOf(unsafe.Pointer(C.gstc_ring_frame_new(memP(m), C.guint64(pts), C.guint64(duration), C.guint64(offset), ann,
		C.int(ts.Phase), C.int(ts.Access), C.guint64(ts.Dev), C.guint64(ts.Ino),
		C.guint64(ts.Offset), C.guint(ts.Seqnum))))
}

// ringMemoryState reads the ring state of m (borrowed): its slot, the
// bracket of its current frame, and whether its announcement is still
// pending. ok is false if m is not a MemRing memory. For tests.
func ringMemoryState(m gstglue.RawMemory) (slot int, ts tensorsync.Info, announcePending, ok bool) {
	var c C.GstTensorSyncInfo
	var s, a C.int
	if memP(m) == nil || !gobool(C.gstc_ring_mem_get(memP(m), &s, &c, &a)) {
		return 0, tensorsync.Info{}, false, false
	}
	return int(s), tensorsync.InfoFromC(unsafe.Pointer(&c)), a != 0, true
}

//export gstcGoRingMemReturned
func gstcGoRingMemReturned(owner C.uintptr_t, slot C.int, seqnum C.guint) (keep C.gboolean) {
	r, ok := gstglue.LookupHandle(uintptr(owner))
	if !ok {
		return 0
	}
	ring, ok := r.(*MemRing)
	if !ok {
		return 0
	}
	gstglue.SafeCall("ring memory return", func() {
		if ring.onReturn(int(slot), uint32(seqnum)) {
			keep = 1
		}
	})
	return keep
}

//export gstcGoRingMemFreed
func gstcGoRingMemFreed(owner C.uintptr_t) {
	if r, ok := gstglue.LookupHandle(uintptr(owner)); ok {
		if ring, ok := r.(*MemRing); ok {
			ring.unref()
		}
	}
}

// InstallTensorSyncAnnouncer adds a buffer probe to pad (a source pad)
// that pushes, right before each buffer whose first memory is a MemRing
// memory with a pending announcement (NewFrameBuffer with announce), its
// GstTensorSync as a GST_EVENT_CUSTOM_DOWNSTREAM event. Unlike pushing
// the event from create, this puts it after the stream-start, caps and
// segment events and sends it only for buffers that are really pushed
// (basesrc drops a created buffer when it is flushing or at a pending
// EOS). It returns the probe id for RemoveProbe. pad is borrowed.
func InstallTensorSyncAnnouncer(pad *gst.Pad) uint64 {
	return uint64(C.gstc_add_announcer(padC(pad)))
}

// RemoveProbe removes probe id from pad (gst_pad_remove_probe).
func RemoveProbe(pad *gst.Pad, id uint64) {
	C.gst_pad_remove_probe(padC(pad), C.gulong(id))
}
