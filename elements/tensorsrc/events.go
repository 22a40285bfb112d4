package tensorsrc

import (
	"fmt"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// Event chains everything but GstTensorSync events up to GstBaseSrc. ev
// is borrowed (the base-src event vfunc is transfer none). The
// GstTensorSync end events readers send upstream do not reach it: frameengine's
// event trampoline (frameengine.InstallBaseSrcTensorSync) parses them and counts
// them in the element's end tally, calling TensorSyncEnd only for those
// about no frame of ours in flight, and hands every other event to
// go-gst's trampoline, which calls Event.
func (e *element) Event(self *base.GstBaseSrc, ev *gst.Event) (ret bool) {
	defer gstglue.Guard(self.Element, "event", &ret, false)
	if ev.Type() == gst.EventTypeSeek {
		return e.seekEvent(self, ev)
	}
	if ev.Type() != gst.EventTypeCustomUpstream {
		return frameengine.BaseSrcParentEvent(self, ev)
	}
	if _, ok := tensorsync.Parse(ev); !ok {
		return frameengine.BaseSrcParentEvent(self, ev)
	}
	// A begin travelling upstream means nothing to a source; an end does
	// not get here while the trampoline is installed. Consumed.
	return true
}

// TensorSyncEnd is called for a GstTensorSync end event about no frame of
// this source in flight (the event trampoline counted it as an other
// end; reader ends — a reader downstream done with a frame — are
// counted in C and end there: the frame's bracket ends when the slot's
// memory comes back from its last holder). It logs the event, which is
// consumed. self is borrowed for the call.
func (e *element) TensorSyncEnd(self gstglue.RawElement, ts tensorsync.Info) bool {
	// Rare: a borrowed go-gst wrapper only to log with the element.
	glib.WithPointerTransferOriginal(self.Unsafe(), func(obj *glib.Object, _ glib.GoObjectSubclass) {
		cat.LogDebug(fmt.Sprintf("GstTensorSync end for (%d,%d)+%d seqnum %d is about no frame of this source in flight",
			ts.Dev, ts.Ino, ts.Offset, ts.Seqnum), base.ToGstBaseSrc(obj).Object)
	})
	return true
}
