package gstc

// steady.go: tensorinfer's steady frame in C (see steady.h): what makes a
// frame steady, and the table Go keeps for it — the input slots bound
// once, the output ring, ONNX Runtime's session and run function.

/*
#include "steady.h"
*/
import "C"

import (
	"time"
	"unsafe"
)

// Steady is an element's steady-frame state: C memory Go builds and
// changes on the streaming thread only (or while nothing streams), the
// thread whose prepare_output_buffer reads it. Free it after Uninstall.
type Steady struct{ p *C.GstcSteady }

// NewSteady returns a disabled state over ring (nil: none yet),
// counting into c.
func NewSteady(ring *OutRing, c InferCounters) Steady {
	var rp *C.GstcOutRing
	if ring != nil {
		rp = ring.p
	}
	return Steady{C.gstc_steady_new(rp, c.p)}
}

// IsZero reports whether s is no state.
func (s Steady) IsZero() bool { return s.p == nil }

// Free releases the state (Uninstall it first).
func (s Steady) Free() { C.gstc_steady_free(s.p) }

// Install makes s the steady frame of self (a GstBaseTransform using
// InstallBaseTransform).
func (s Steady) Install(self RawElement) { C.gstc_steady_set(self.p, s.p) }

// UninstallSteady leaves self with no steady frame: every frame goes to
// Go.
func UninstallSteady(self RawElement) { C.gstc_steady_set(self.p, nil) }

// SetEnabled turns the steady frame on or off.
func (s Steady) SetEnabled(on bool) { s.p.enabled = cbool(on) }

// SetRing replaces the output ring (the state takes a reference).
func (s Steady) SetRing(r *OutRing) {
	C.g_atomic_int_inc(&r.p.refs)
	C.gstc_out_ring_unref(s.p.ring)
	s.p.ring = r.p
}

// SetSession sets ONNX Runtime's session and the functions that run a
// binding on it and release a status (C function pointers: see package
// infer's CRunner).
func (s Steady) SetSession(session, run, releaseStatus unsafe.Pointer) {
	s.p.session = session
	s.p.run = C.GstcRunFunc(run)
	s.p.release_status = C.GstcReleaseFunc(releaseStatus)
}

// SetStream sets what the frames of a stream share: the pin cache's
// qdata key, the element's pending begins, and where the input starts
// and its row stride in a buffer without a GstVideoMeta.
func (s Steady) SetStream(q QdataKey, begins PendingBegins, offset, stride int) {
	s.p.qkey = q.q
	s.p.begins = begins.p
	s.p.default_offset = C.guint64(offset)
	s.p.default_stride = C.gint(stride)
}

// SetSampling sets the run clock's sampling (package infer's
// cpuSamplePeriod and cpuSampleMax).
func (s Steady) SetSampling(period time.Duration, max int) {
	s.p.sample_period_ns = C.guint64(period)
	s.p.sample_max = C.int(max)
}

// SteadyInput is one input slot bound once (steady.h's GstcSteadyInput):
// Tensor (a *tensor.Tensor) is the pin cache entry's, kept open by the
// caller while the input is in the table; IO[k] is the OrtIoBinding of
// the slot and output slot k (nil: not bound).
type SteadyInput struct {
	Tag                uintptr
	MemOffset, MemSize uint64
	Tensor             any
	Dev, Ino           uint64
	Offset             uint64
	Stride             int
	IO                 []unsafe.Pointer
}

// MaxSteadyInputs bounds the input table.
const MaxSteadyInputs = C.GSTC_STEADY_MAX_INPUTS

// ClearInputs empties the input table.
func (s Steady) ClearInputs() { s.p.n_in = 0 }

// AddInput adds in to the table; false if it is full or in.Tensor has no
// shared bracket.
func (s Steady) AddInput(in SteadyInput) bool {
	n := int(s.p.n_in)
	if n >= C.GSTC_STEADY_MAX_INPUTS || len(in.IO) > MaxOutSlots {
		return false
	}
	b, ok := cBracket(in.Tensor)
	if !ok {
		return false
	}
	r := &s.p.in[n]
	*r = C.GstcSteadyInput{}
	r.tag = C.uintptr_t(in.Tag)
	r.mem_offset, r.mem_size = C.guint64(in.MemOffset), C.guint64(in.MemSize)
	r.bracket = b
	r.dev, r.ino = C.guint64(in.Dev), C.guint64(in.Ino)
	r.offset, r.stride = C.guint64(in.Offset), C.gint(in.Stride)
	copy(r.io[:], in.IO)
	s.p.n_in = C.int(n + 1)
	return true
}

// InputUsed returns the use stamp of input i (in AddInput's order): the
// count of frames done in C at its last one, 0 if none. Stamps order the
// inputs by their last use.
func (s Steady) InputUsed(i int) uint64 { return uint64(s.p.in[i].used) }

// NextSeq returns the next output frame's seqnum and counts it (Go's
// frames and C's share the sequence).
func (s Steady) NextSeq() uint64 {
	q := uint64(s.p.seq)
	s.p.seq++
	return q
}
