package tensorsrc

import (
	"fmt"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
)

// Event chains everything but GstTensorSync events up to GstBaseSrc. ev
// is borrowed (the base-src event vfunc is transfer none). The
// GstTensorSync end events a sink sends upstream do not reach it: gstc's
// event trampoline (gstc.InstallBaseSrcTensorSync) parses them and calls
// TensorSyncEnd without allocating, and hands every other event to
// go-gst's trampoline, which calls Event.
func (e *element) Event(self *base.GstBaseSrc, ev *gst.Event) bool {
	if ev.Type() != gst.EventTypeCustomUpstream {
		return gstc.BaseSrcParentEvent(self, ev)
	}
	ts, ok := gstc.ParseTensorSyncEvent(ev)
	if !ok {
		return gstc.BaseSrcParentEvent(self, ev)
	}
	if ts.Phase != gstc.PhaseEnd {
		return true
	}
	// Not reached while the trampoline is installed; kept equivalent.
	if !e.tensorSyncEnd(ts) {
		logUnmatchedEnd(ts, self.Object)
	}
	return true
}

// TensorSyncEnd handles a GstTensorSync end event a sink sent upstream
// when it closed a bracket (did the END ioctl on its own import of the
// buffer): the matching slot's bracket is handed off without a second
// ioctl and the event is consumed. self is borrowed for the call.
func (e *element) TensorSyncEnd(self gstc.RawElement, ts gstc.TensorSync) bool {
	if !e.tensorSyncEnd(ts) {
		// Rare: a borrowed go-gst wrapper only to log with the element.
		glib.WithPointerTransferOriginal(self.Unsafe(), func(obj *glib.Object, _ glib.GoObjectSubclass) {
			logUnmatchedEnd(ts, base.ToGstBaseSrc(obj).Object)
		})
	}
	return true
}

// tensorSyncEnd hands off the bracket ts closes and reports whether one
// matched.
func (e *element) tensorSyncEnd(ts gstc.TensorSync) bool {
	matched := false
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.st
	if st == nil {
		return false
	}
	st.stats.endEvents.Add(1)
	if st.ring != nil {
		matched = st.ring.endFromDownstreamLocked(ts)
	}
	for _, r := range st.retired {
		if !matched {
			matched = r.endFromDownstreamLocked(ts)
		}
	}
	if !matched {
		st.stats.unmatchedEnds.Add(1)
	}
	return matched
}

func logUnmatchedEnd(ts gstc.TensorSync, obj *gst.Object) {
	cat.LogDebug(fmt.Sprintf("GstTensorSync end for (%d,%d)+%d seqnum %d matches no open bracket (already closed by the source?)",
		ts.Dev, ts.Ino, ts.Offset, ts.Seqnum), obj)
}
