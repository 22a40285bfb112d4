package tensortrack

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Harness drives a tensortrack element's vfuncs directly — start, caps,
// frames, events, stop — from the test's goroutine standing in for the
// streaming thread, without a pipeline: so a test can count what the
// element itself does per frame.
type Harness struct {
	e  *element
	el *gst.Element
}

// NewHarness returns a harness around el, a tensortrack in NULL.
func NewHarness(el *gst.Element) *Harness { return &Harness{e: instance(el.Unsafe()), el: el} }

func (h *Harness) Start() bool { return h.e.Start(nil) }
func (h *Harness) Stop() bool  { return h.e.Stop(nil) }

// Self is the element's instance pointer, for the C vfuncs.
func (h *Harness) Self() unsafe.Pointer { return h.e.self }

func instance(p unsafe.Pointer) *element {
	e, _ := gstglue.InstanceOf[*element](p, 0)
	return e
}
