package frameengine

// outring.go: an element's ring of output slots in C (tensorinfer's), so
// that a frame done in C (steady.go) takes a slot and a memory's return
// frees it without a call into Go. See outring.h for the state and its
// lock.

/*
#cgo nocallback gstc_out_ring_take
#cgo nocallback gstc_out_ring_push
#cgo noescape gstc_out_ring_push
#include "outring.h"
#include "ringmem.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Indices of an element's C counters (InferCounters.Load), counted by
// frames done in C and by output rings.
const (
	InferFrames = iota
	InferHits
	InferInSyncs
	InferBeginsMatched
	InferBeginsExpired
	InferEndEventsSent
	InferOutOpened
	InferOutClosed
	InferRuns
	InferRunNs
	InferRunCPUNs
	InferRunWallSampled
	InferRunsCPUSampled
	InferOutEnded      // closes that did the END ioctl
	InferOutSyncErrors // ENDs that failed, and tensorsrc's C STARTs
	// tensorinfer's frame engine (inferframe.h)
	InferWaits      // frames that waited for an output slot
	InferDropped    // frames dropped at a fence timeout
	InferFenceWaits // fence waits that blocked
	InferFenceTimeouts
	InferFenceWaitNs    // their time, summed (tensorsrc)
	InferFenceWaitMaxNs // the longest (tensorsrc)
	InferCopies         // inputs copied into the element's memory
	InferBytesCopied
	InferPreprocessed
	InferPreprocessNs // the pass's wall time
	InferGoFrames     // frames that called Go (gstcGoInferInput)
	inferCounterCount
)

// MaxOutSlots and MaxOutTensors bound an OutRing.
const (
	MaxOutSlots   = C.GSTC_OUT_MAX_SLOTS
	MaxOutTensors = C.GSTC_OUT_MAX_TENSORS
)

// InferCounters is an element's block of C counters: refcounted C
// memory, as a ring memory returning after the element is gone still
// counts into it. The zero value is no block.
type InferCounters struct{ p *C.GstcInferCounters }

// NewInferCounters returns a zeroed block; Unref it.
func NewInferCounters() InferCounters {
	if C.GSTC_INFER_N != inferCounterCount {
		panic("gstc: outring.h and outring.go disagree on the counters")
	}
	return InferCounters{C.gstc_infer_counters_new()}
}

// InferCountersOf returns the block of self (borrowed), attached on the
// first call and freed with the element.
func InferCountersOf(self gstglue.RawElement) InferCounters {
	return InferCounters{C.gstc_infer_counters_of(elemP(self))}
}

// Load reads counter i (InferFrames, ...).
func (c InferCounters) Load(i int) uint64 {
	return uint64(C.gstc_infer_load(c.p, C.int(i)))
}

// Reset zeroes every counter.
func (c InferCounters) Reset() {
	for i := range inferCounterCount {
		C.gstc_infer_zero(c.p, C.int(i))
	}
}

// Unref drops the caller's reference.
func (c InferCounters) Unref() { C.gstc_infer_counters_unref(c.p) }

// OutRing is a ring of output slots: C memory Go and C share (see
// outring.h), owned by a Go ring (its one reference until Close) and by
// each of its memories until they are freed.
type OutRing struct {
	p *C.GstcOutRing
}

// NewOutRing returns an empty ring counting into c. Go's reference of
// the C ring is dropped when the OutRing is unreachable (a cleanup), so
// that a call after Close finds a closed ring, never freed memory.
func NewOutRing(c InferCounters) *OutRing {
	r := &OutRing{p: C.gstc_out_ring_new(c.p)}
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

// AddSlot adds a slot of the tensors ts (at most MaxOutTensors; memory k
// must have been wrapped as MemRing slot index*MaxOutTensors+k, index
// being the slot's, the ring's size before the call). It returns the
// slot's index.
func (r *OutRing) AddSlot(ts []OutTensor) (int, error) {
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
	i := int(C.gstc_out_ring_add_slot(r.p, C.int(n), &mems[0], &brs[0], &dev[0], &ino[0], &off[0]))
	if i < 0 {
		return -1, ErrOutRingFull
	}
	for _, t := range ts {
		C.gstc_ring_mem_return_to(memP(t.Mem), r.p)
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
