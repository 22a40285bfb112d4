package tensorinfer

import (
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// ChangeState ends the engine's waits (a free output slot, an input's
// fences) before the change to READY deactivates the pads, which waits
// for the streaming thread; the next start clears the flag. (A flush
// ends them too, from C: frameengine's wake.)
func (e *element) ChangeState(el *gst.Element, t gst.StateChange) (ret gst.StateChangeReturn) {
	defer gstglue.Guard(el, "change-state", &ret, gst.StateChangeFailure)
	w := frameengine.WakeOf(e.raw())
	switch t {
	case gst.StateChangePausedToReady:
		w.SetStopping(true)
	case gst.StateChangeReadyToPaused:
		w.SetStopping(false)
		w.SetFlushing(false)
	}
	return el.ParentChangeState(t)
}
