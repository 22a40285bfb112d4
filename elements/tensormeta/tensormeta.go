// Package tensormeta reads GstTensorPinMeta, the meta tensorinfer
// output=video attaches to each video buffer it pushes: the frame's
// output tensors (a buffer of one memory per tensor, held by the meta:
// the output ring's slot returns when the last holder drops it), the
// other/tensors caps describing them, and how the frame was mapped into
// the model's input. C code includes the header-only
// gsttensorpinmeta.h beside this file; Go code calls Read.
//
// Lifetime: Read returns the tensors with a reference of the caller's;
// Meta.Release drops it (idempotent). The bytes are valid while it is
// held; the memory's CPU access is bracketed by whoever maps it (a
// gst_memory_map of the project's dma-bufs joins the process's bracket).
package tensormeta

import (
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
)

// Transform maps the frame into the model's input: frame pixel (x, y)
// was read at model-input pixel (x*ScaleX+OffsetX, y*ScaleY+OffsetY).
type Transform = gstc.Transform

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
	lease gstc.Lease
}

// Read returns buf's GstTensorPinMeta, or false when it has none.
func Read(buf *gst.Buffer) (Meta, bool) {
	m, ok := gstc.ReadTensorPinMeta(gstc.BorrowBuffer(buf))
	if !ok {
		return Meta{}, false
	}
	out := Meta{Caps: m.Caps, Transform: m.Transform, Run: m.Run}
	if !m.Tensors.IsNil() {
		out.lease = gstc.AdoptLease(m.Tensors)
		out.Tensors = out.lease.Buffer()
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

// Release drops the reference Read took on the tensors.
func (m *Meta) Release() {
	m.lease.Release()
	m.lease = gstc.Lease{}
	if m.Tensors != nil {
		gstc.ReleaseBuffer(m.Tensors)
		m.Tensors = nil
	}
}
