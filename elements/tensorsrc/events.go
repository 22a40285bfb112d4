package tensorsrc

import (
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// Event chains everything but GstTensorSync events up to GstBaseSrc. ev
// is borrowed (the base-src event vfunc is transfer none). The
// GstTensorSync end events readers send upstream do not reach it: the
// source's event vfunc in C (basesrc.c) counts them in the element's end
// tally, and hands every other event to go-gst's trampoline, which calls
// Event.
func (e *element) Event(self *base.GstBaseSrc, ev *gst.Event) (ret bool) {
	defer gstglue.Guard(self.Element, "event", &ret, false)
	if ev.Type() == gst.EventTypeSeek {
		return e.seekEvent(self, ev)
	}
	if ev.Type() != gst.EventTypeCustomUpstream {
		return parentEvent(self, ev)
	}
	if _, ok := tensorsync.Parse(ev); !ok {
		return parentEvent(self, ev)
	}
	// A begin travelling upstream means nothing to a source; an end does
	// not get here. Consumed.
	return true
}
