package frameengine

// pending.go: the GstTensorSync begin events an element has received and
// not yet matched to their buffers — the one matcher tensorpinsink and
// tensorinfer share. The store is C memory on the element, so the
// sink-event trampolines (basesink.c, basetransform.c) record a begin
// without a Go callback: a callback a frame is about 0.2–0.3 µs on this
// project's test VM; the store and the match cost tens of ns.

/*
#cgo noescape gstc_pending_match
#cgo nocallback gstc_pending_match
#cgo noescape gstc_pending_add
#cgo nocallback gstc_pending_add
#cgo nocallback gstc_pending_clear
#cgo nocallback gstc_pending_attach
#include "pending.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// MaxPending bounds the begin events kept waiting for their buffers:
// more than a few frames between an announcement and its buffer means the
// buffer is not coming (dropped or filtered upstream).
const MaxPending = C.GSTC_PENDING_MAX

// PendingBegins are the GstTensorSync begin events an element has received
// whose buffers have not arrived yet. A buffer is matched to its begin by
// the dma-buf's identity, the tensor's offset and the seqnum (which the
// producer puts in the buffer's offset, as tensorsrc does) — not by
// arrival order, so elements that hold a buffer back while the next begin
// passes (videorate, aggregators) still match every frame, and a begin
// whose buffer was lost never matches a later, unannounced buffer of the
// same pool slot. A buffer without an offset (OffsetNone) is matched by
// identity and offset alone.
//
// The store is C memory attached to the element (PendingBeginsOf) and
// freed with it; the element's sink-event trampoline records serialized
// begins in it directly. Its methods are safe from any thread (a mutex in
// C, never held across a call out). The zero PendingBegins is not usable.
type PendingBegins struct{ p *C.GstcPending }

// PendingBeginsOf returns the store of self (a GstBaseSink or
// GstBaseTransform using this package's trampolines), attaching it on the
// first call. Once attached, the trampolines record begin events there
// instead of calling the element's TensorSyncBegin. self is borrowed; the
// store lives as long as the element.
func PendingBeginsOf(self gstglue.RawElement) PendingBegins {
	return PendingBegins{C.gstc_pending_attach((*C.GstElement)(unsafe.Pointer(elemP(self))))}
}

// Add records ts; it returns how many pending begins it displaced: the
// same buffer announced again (its earlier frame never arrived) or, when
// full, the oldest.
func (b PendingBegins) Add(ts tensorsync.Info) (expired int) {
	c := infoToC(ts)
	return int(C.gstc_pending_add(b.p, &c))
}

// Match removes and returns the begin announcing the buffer at offset of
// the dma-buf (dev, ino) whose GST_BUFFER_OFFSET is bufOffset (the
// seqnum; OffsetNone when the producer numbers no buffers). Begins for
// the same buffer with an older seqnum are stale — the frame they
// announced never arrived, and the pool slot has come round again — and
// are removed and counted in expired, with the begins the trampoline
// displaced since the last Match or Clear. No allocation.
func (b PendingBegins) Match(dev, ino, offset, bufOffset uint64) (ts tensorsync.Info, ok bool, expired int) {
	var c C.GstTensorSyncInfo
	var exp C.int
	ok = C.gstc_pending_match(b.p, C.guint64(dev), C.guint64(ino), C.guint64(offset), C.guint64(bufOffset), &c, &exp) != 0
	if ok {
		ts = tensorsync.InfoFromC(unsafe.Pointer(&c))
	}
	return ts, ok, int(exp)
}

// Clear forgets every pending begin and returns how many there were,
// with the begins the trampoline displaced since the last Match or Clear.
func (b PendingBegins) Clear() int { return int(C.gstc_pending_clear(b.p)) }

func infoToC(ts tensorsync.Info) C.GstTensorSyncInfo {
	return C.GstTensorSyncInfo{phase: C.int(ts.Phase), access: C.int(ts.Access), dev: C.guint64(ts.Dev),
		ino: C.guint64(ts.Ino), offset: C.guint64(ts.Offset), pts: C.guint64(ts.PTS), seqnum: C.guint(ts.Seqnum)}
}

// Unsafe returns the begins' address (a GstcPending, borrowed) for an
// element's C frame.
func (b PendingBegins) Unsafe() unsafe.Pointer { return unsafe.Pointer(b.p) }
