// Package tensormeta reads GstTensorPinMeta, the meta tensorinfer
// output=video attaches to each video buffer it pushes: the frame's
// output tensors (a buffer of one memory per tensor, held by the meta:
// the output ring's slot returns when the last holder drops it), the
// other/tensors caps describing them, and how the frame was mapped into
// the model's input. C code includes the header-only
// gsttensorpinmeta.h beside this file; Go code calls Read.
//
// Lifetime: Read returns the tensors with a reference of the caller's;
// Meta.Release drops it. A Meta may be copied: every copy shares the one
// reference, and the first Release of any of them drops it (the others'
// are no-ops). A Meta never released drops it when no copy is reachable
// any more (a safety net: the buffer's ring slot returns at some garbage
// collection, not when the application is done). The bytes are valid
// while it is held; the memory's CPU access is bracketed by whoever maps
// it (a gst_memory_map of the project's dma-bufs joins the process's
// bracket).
package tensormeta

import (
	"runtime"
	"sync/atomic"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Transform maps the frame into the model's input: frame pixel (x, y)
// was read at model-input pixel (x*ScaleX+OffsetX, y*ScaleY+OffsetY).
type Transform = frameengine.Transform

// Meta is a buffer's GstTensorPinMeta.
type Meta struct {
	// Tensors is the run's output frame, one memory per tensor (a
	// reference of the caller's until Release).
	Tensors *gst.Buffer
	// Caps describes Tensors: other/tensors with num_tensors,
	// dimensions (innermost first), types and names.
	Caps      string
	Transform Transform
	// Run numbers the model's runs: frames sharing a result (interval)
	// have the same one.
	Run   uint64
	lease *lease
}

// lease is the reference Read took, shared by a Meta's copies.
type lease struct {
	released atomic.Bool
	raw      gstglue.Lease // the meta's tensors, a reference of the caller's
	tensors  *gst.Buffer   // Meta.Tensors: a wrapper with a reference of its own
	cleanup  runtime.Cleanup
}

// Read returns buf's GstTensorPinMeta, or false when it has none.
func Read(buf *gst.Buffer) (Meta, bool) {
	m, ok := frameengine.ReadTensorPinMeta(gstglue.BorrowBuffer(buf))
	if !ok {
		return Meta{}, false
	}
	out := Meta{Caps: m.Caps, Transform: m.Transform, Run: m.Run}
	if !m.Tensors.IsNil() {
		l := &lease{raw: gstglue.AdoptLease(m.Tensors)}
		l.tensors = l.raw.Buffer()
		// The safety net captures the raw reference alone (not l, which
		// would never become unreachable); the wrapper has go-gst's own.
		l.cleanup = runtime.AddCleanup(l, gstglue.Lease.Release, l.raw)
		out.lease, out.Tensors = l, l.tensors
	}
	return out, true
}

// FrameToModel maps a frame point into the model's input.
func (m Meta) FrameToModel(x, y float64) (float64, float64) {
	t := m.Transform
	return x*t.ScaleX + t.OffsetX, y*t.ScaleY + t.OffsetY
}

// ModelToFrame maps a model-input point back into the frame.
func (m Meta) ModelToFrame(x, y float64) (float64, float64) {
	t := m.Transform
	return (x - t.OffsetX) / t.ScaleX, (y - t.OffsetY) / t.ScaleY
}

// Release drops the reference Read took on the tensors, and clears m's
// Tensors. Only the first Release of a Meta and its copies drops it: the
// others, and a Release again, do nothing. Safe from any goroutine.
func (m *Meta) Release() {
	l := m.lease
	m.lease, m.Tensors = nil, nil
	if l == nil || !l.released.CompareAndSwap(false, true) {
		return
	}
	l.cleanup.Stop()
	l.raw.Release()
	gstglue.ReleaseBuffer(l.tensors)
}
