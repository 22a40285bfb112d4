package tensorsrc

import (
	"fmt"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// Event chains everything but GstTensorSync events up to GstBaseSrc. ev
// is borrowed (the base-src event vfunc is transfer none). The
// GstTensorSync end events readers send upstream do not reach it: gstc's
// event trampoline (gstc.InstallBaseSrcTensorSync) parses them and calls
// TensorSyncEnd without allocating, and hands every other event to
// go-gst's trampoline, which calls Event.
func (e *element) Event(self *base.GstBaseSrc, ev *gst.Event) (ret bool) {
	defer gstc.Guard(self.Element, "event", &ret, false)
	if ev.Type() == gst.EventTypeSeek {
		return e.seekEvent(self, ev)
	}
	if ev.Type() != gst.EventTypeCustomUpstream {
		return gstc.BaseSrcParentEvent(self, ev)
	}
	ts, ok := tensorsync.Parse(ev)
	if !ok {
		return gstc.BaseSrcParentEvent(self, ev)
	}
	if ts.Phase != tensorsync.PhaseEnd {
		return true
	}
	// Not reached while the trampoline is installed; kept equivalent.
	if !e.tensorSyncEnd(ts) {
		logOtherEnd(ts, self.Object)
	}
	return true
}

// TensorSyncEnd handles a GstTensorSync end event: a reader downstream
// (tensorpinsink) is done with a frame. It is counted; the frame's bracket
// ends when the slot's memory comes back from its last holder, which may
// be another reader. The event is consumed. self is borrowed for the call.
func (e *element) TensorSyncEnd(self gstc.RawElement, ts tensorsync.Info) bool {
	if !e.tensorSyncEnd(ts) {
		// Rare: a borrowed go-gst wrapper only to log with the element.
		glib.WithPointerTransferOriginal(self.Unsafe(), func(obj *glib.Object, _ glib.GoObjectSubclass) {
			logOtherEnd(ts, base.ToGstBaseSrc(obj).Object)
		})
	}
	return true
}

// tensorSyncEnd counts a reader's end event and reports whether it was
// about a frame of ours in flight.
func (e *element) tensorSyncEnd(ts tensorsync.Info) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.st
	if st == nil {
		return false
	}
	matched := st.ring != nil && st.ring.readerEndLocked(ts)
	for _, r := range st.retired {
		matched = matched || r.readerEndLocked(ts)
	}
	if matched {
		st.stats.readerEnds.Add(1)
	} else {
		st.stats.otherEnds.Add(1)
	}
	return matched
}

func logOtherEnd(ts tensorsync.Info, obj *gst.Object) {
	cat.LogDebug(fmt.Sprintf("GstTensorSync end for (%d,%d)+%d seqnum %d is about no frame of this source in flight",
		ts.Dev, ts.Ino, ts.Offset, ts.Seqnum), obj)
}
