package frameengine

// outring.go: an element's ring of output slots in C (tensorinfer's
// outputs, tensorsrc's frames) with its memories and their end tally
// (outring.h), so that a frame made in C takes a slot and a memory's
// return frees it, on any thread, without a call into Go.

/*
#cgo nocallback gstc_out_ring_take
#cgo nocallback gstc_out_ring_push
#cgo noescape gstc_out_ring_push
#include "outring.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// MaxOutSlots and MaxOutTensors bound an OutRing.
const (
	MaxOutSlots   = C.GSTC_OUT_MAX_SLOTS
	MaxOutTensors = C.GSTC_OUT_MAX_TENSORS
)

// OutRing is a ring of output slots: C memory Go and C share (see
// outring.h), owned by a Go ring (its one reference until Close) and by
// each of its memories until they are freed.
type OutRing struct {
	p     *C.GstcOutRing
	tally EndTally
}

// NewOutRing returns an empty ring counting into c. Go's reference of
// the C ring is dropped when the OutRing is unreachable (a cleanup), so
// that a call after Close finds a closed ring, never freed memory.
func NewOutRing(c Counters, tally EndTally) *OutRing {
	r := &OutRing{p: C.gstc_out_ring_new(c.p), tally: tally}
	runtime.AddCleanup(r, func(p *C.GstcOutRing) { C.gstc_out_ring_unref(p) }, r.p)
	return r
}

// OutTensor is one output tensor of a slot: its ring memory (the ring's
// reference from now on, returned to this OutRing), its tensor (a
// *tensor.Tensor, kept open by the caller until the memory is freed), and
// its identity and offset for the frame's GstTensorSync begin.
type OutTensor struct {
	Mem           gstglue.RawMemory
	Tensor        any
	Dev, Ino, Off uint64
}

// ErrOutRingFull: AddSlot on a ring with MaxOutSlots slots, or closed.
var ErrOutRingFull = errors.New("gstc: output ring full or closed")

// Wrap wraps fd as fd memory (DMA-BUF memory if dmabuf; see
// gstglue.WrapFd for the fd's ownership and release) as memory id of the
// ring — id = slot*MaxOutTensors + tensor, for a slot AddSlot adds next —
// and returns it as a RawMemory that owns the one reference (no Go
// wrapper, no finalizer): hand it to AddSlot, or drop it with
// UnrefRingMemory (a memory of no slot is freed). Its memories are
// tracked in the ring's tally from now until they are freed.
func (r *OutRing) Wrap(dmabuf bool, fd, size, id int, release func()) (gstglue.RawMemory, error) {
	mem, err := gstglue.WrapFd(dmabuf, fd, size, release)
	if err != nil {
		return gstglue.RawMemory{}, err
	}
	m := gstglue.BorrowMemory(mem)
	C.gstc_ring_mem_attach(memP(m), r.p, C.int(id), r.tally.t)
	runtime.SetFinalizer(mem, nil)
	return m, nil
}

// AddSlot adds a slot of the tensors ts (at most MaxOutTensors; memory k
// must have been wrapped with id index*MaxOutTensors+k, index being the
// slot's, the ring's size before the call). It returns the slot's index.
func (r *OutRing) AddSlot(ts []OutTensor) (int, error) { return r.addSlot(ts, false) }

// AddTakenSlot is AddSlot for a ring others already take from: the slot
// is added taken, its adder's (as if Take had returned it), so that no
// one takes it before the adder has published what it keeps of it; the
// adder pushes it or gives it back (Give).
func (r *OutRing) AddTakenSlot(ts []OutTensor) (int, error) { return r.addSlot(ts, true) }

func (r *OutRing) addSlot(ts []OutTensor, taken bool) (int, error) {
	n := len(ts)
	if n < 1 || n > MaxOutTensors {
		return -1, fmt.Errorf("gstc: an output slot of %d tensors", n)
	}
	var mems [MaxOutTensors]*C.GstMemory
	var brs [MaxOutTensors]C.GstcBracket
	var dev, ino, off [MaxOutTensors]C.guint64
	for k, t := range ts {
		b, ok := cBracket(t.Tensor)
		if !ok {
			return -1, fmt.Errorf("gstc: output tensor %d has no shared bracket", k)
		}
		mems[k], brs[k] = memP(t.Mem), b
		dev[k], ino[k], off[k] = C.guint64(t.Dev), C.guint64(t.Ino), C.guint64(t.Off)
	}
	var i int
	if taken {
		i = int(C.gstc_out_ring_add_taken_slot(r.p, C.int(n), &mems[0], &brs[0], &dev[0], &ino[0], &off[0]))
	} else {
		i = int(C.gstc_out_ring_add_slot(r.p, C.int(n), &mems[0], &brs[0], &dev[0], &ino[0], &off[0]))
	}
	if i < 0 {
		return -1, ErrOutRingFull
	}
	return i, nil
}

// Take returns the free slot freed last, or -1.
func (r *OutRing) Take() int { return int(C.gstc_out_ring_take(r.p)) }

// TakeUntilInterrupted is Take, waiting in C on w (which r's frees must
// signal: SetWake) while every slot is busy, until w is interrupted
// after gen was read (Wake.Gen): then -1. A free wakes it without a call
// into Go. r nil waits for the interrupt alone. The calling goroutine's
// thread blocks in C meanwhile: not for the streaming thread, whose
// waits the element's flags end (the engines' own).
func (r *OutRing) TakeUntilInterrupted(w Wake, gen int32) int {
	var p *C.GstcOutRing
	if r != nil {
		p = r.p
	}
	return int(C.gstc_out_ring_take_until_interrupted(p, w.p, C.gint(gen)))
}

// TakeUntilInterruptedFor is TakeUntilInterrupted for at most d:
// timedOut when d passed with no slot free and no interrupt (slot -1).
func (r *OutRing) TakeUntilInterruptedFor(w Wake, gen int32, d time.Duration) (slot int, timedOut bool) {
	var p *C.GstcOutRing
	if r != nil {
		p = r.p
	}
	end := C.g_get_monotonic_time() + C.gint64(d/time.Microsecond)
	i := int(C.gstc_out_ring_take_until_interrupted_or(p, w.p, C.gint(gen), end))
	if i == -2 {
		return -1, true
	}
	return i, false
}

// Give puts back a slot taken but not pushed (its brackets left).
func (r *OutRing) Give(slot int) { C.gstc_out_ring_give(r.p, C.int(slot)) }

// OpenWrites enters the write bracket of each tensor of slot (taken),
// waiting out another's START or END. On error none is left open.
func (r *OutRing) OpenWrites(slot int) error {
	if e := C.gstc_out_ring_open_writes(r.p, C.int(slot), 1); e != 0 {
		return fmt.Errorf("DMA_BUF_IOCTL_SYNC start: %w", syscall.Errno(e))
	}
	return nil
}

// CloseWrites leaves the write brackets open on slot (a frame not
// pushed).
func (r *OutRing) CloseWrites(slot int) { C.gstc_out_ring_close_writes(r.p, C.int(slot)) }

// Push marks slot's memories downstream and hands their references
// (the ring's) to the caller: first, and the others in rest (n-1 of
// them, n the slot's tensors; rest has room for MaxOutTensors-1). Each
// memory covers its whole tensor again, however a resize downstream left
// it on an earlier frame.
func (r *OutRing) Push(slot int, rest *[MaxOutTensors - 1]gstglue.RawMemory) (first gstglue.RawMemory, n int) {
	var cn C.int
	var cr [MaxOutTensors - 1]*C.GstMemory
	m := C.gstc_out_ring_push(r.p, C.int(slot), &cn, &cr[0])
	for k := 0; k < int(cn)-1; k++ {
		rest[k] = gstglue.RawMemoryOf(unsafe.Pointer(cr[k]))
	}
	return gstglue.RawMemoryOf(unsafe.Pointer(m)), int(cn)
}

// Slots returns the ring's number of slots.
func (r *OutRing) Slots() int {
	return int(C.gstc_out_ring_size(r.p))
}

// Busy returns the number of slots taken or downstream (not free).
func (r *OutRing) Busy() int { return int(C.gstc_out_ring_busy(r.p)) }

// Close retires the ring (outring.h): Take finds no slot from now on,
// memories downstream are freed when they come back. Idempotent.
func (r *OutRing) Close() { C.gstc_out_ring_close(r.p) }

// takeWaitingFor (tests) is the C frames' bounded wait for a slot
// (gstc_out_ring_take_waiting_until) for at most d (negative: no
// bound): the slot, -1 when a flag ended the wait, -2 when d passed.
func (r *OutRing) takeWaitingFor(w Wake, d time.Duration) int {
	end := C.gint64(-1)
	if d >= 0 {
		end = C.g_get_monotonic_time() + C.gint64(d/time.Microsecond)
	}
	return int(C.gstc_out_ring_take_waiting_until(r.p, w.p, end))
}

// outRingProbe (tests) installs or removes a hook on every OutRing's
// returns that records, between a memory's write bracket being left and
// its slot being freed, the bracket's state word and what Take found
// (given back at once).
func outRingProbe(on bool) { C.gstc_out_ring_probe_install(cbool(on)) }

// outRingProbed reads what the probe recorded.
func outRingProbed() (calls int, word uint64, take int) {
	p := C.gstc_out_ring_probe
	return int(p.calls), uint64(p.word), int(p.take)
}

// SetWake makes every free of r signal w (the wake of the element whose
// frame engine waits for r's slots): before r is shared.
func (r *OutRing) SetWake(w Wake) { C.gstc_out_ring_set_wake(r.p, w.p) }

// UnrefRingMemory drops the reference the caller owns of a ring memory
// (from Wrap). If it was the last one, its ring takes it back or it
// is freed, now, on this goroutine.
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

// ringMemoryState reads the ring state of m (borrowed): its id, the
// bracket of its current frame, and whether its announcement is still
// pending. ok is false if m is not a ring memory. For tests.
func ringMemoryState(m gstglue.RawMemory) (id int, ts tensorsync.Info, announcePending, ok bool) {
	var c C.GstTensorSyncInfo
	var s, a C.int
	if memP(m) == nil || C.gstc_ring_mem_get(memP(m), &s, &c, &a) == 0 {
		return 0, tensorsync.Info{}, false, false
	}
	return int(s), tensorsync.InfoFromC(unsafe.Pointer(&c)), a != 0, true
}

// InstallTensorSyncAnnouncer adds a buffer probe to pad (a source pad)
// that pushes, right before each buffer whose first memory is a ring
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

// Unsafe returns the ring's address (a GstcOutRing, borrowed: the
// OutRing keeps its reference) for an element's C frame, nil for nil.
func (r *OutRing) Unsafe() unsafe.Pointer {
	if r == nil {
		return nil
	}
	return unsafe.Pointer(r.p)
}
