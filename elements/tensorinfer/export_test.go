package tensorinfer

import (
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// WaitingForSlot reports whether e's streaming thread is inside the
// engine's wait for a free output slot (tests only).
func WaitingForSlot(e *gst.Element) bool {
	el, _ := gstglue.InstanceOf[*element](e.Unsafe(), 0)
	return el != nil && frameengine.WakeOf(el.raw()).Waiters() > 0
}

// SetInferInputHook sets the seam inferInput runs first (nil: none) and
// returns the function that clears it.
func SetInferInputHook(f func()) func() {
	inferInputHook = f
	return func() { inferInputHook = nil }
}
