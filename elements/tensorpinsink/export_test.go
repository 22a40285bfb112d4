package tensorpinsink

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Harness drives a tensorpinsink element's vfuncs directly — start, caps,
// render, stop — from the test's goroutine standing in for the streaming
// thread, without a pipeline or a source: so a test can count what the
// sink itself does per frame (Go allocations, mmaps, slots) while it
// pushes the same few buffers again and again.
type Harness struct {
	s  *sink
	e  *gst.Element
	bs *base.GstBaseSink
}

// NewHarness returns a harness around e, a tensorpinsink in NULL.
func NewHarness(e *gst.Element) *Harness {
	return &Harness{s: instance(e.Unsafe()), e: e, bs: &base.GstBaseSink{Element: e}}
}

func (h *Harness) Start() bool              { return h.s.Start(h.bs) }
func (h *Harness) SetCaps(c *gst.Caps) bool { return h.s.SetCaps(h.bs, c) }
func (h *Harness) Stop() bool               { return h.s.Stop(h.bs) }
func (h *Harness) Render(b *gst.Buffer) gst.FlowReturn {
	self, buf := gstglue.BorrowElement(h.e), gstglue.BorrowBuffer(b)
	if ret, ok := sinkFrameRender(self, buf); ok {
		return ret
	}
	return h.s.RenderRaw(self, buf)
}

// SetSinkInputHook sets the seam sinkInput runs first (nil: none) and
// returns the function that clears it.
func SetSinkInputHook(f func()) func() {
	sinkInputHook = f
	return func() { sinkInputHook = nil }
}

func instance(p unsafe.Pointer) *sink {
	s, _ := gstglue.InstanceOf[*sink](p, 0)
	return s
}
