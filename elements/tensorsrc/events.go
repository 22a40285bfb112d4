package tensorsrc

import (
	"fmt"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
)

// Event handles the GstTensorSync end events a sink sends upstream when
// it has closed a bracket (done the END ioctl on its own import of the
// buffer): the matching slot's bracket is handed off without a second
// ioctl and the event is consumed. Everything else goes to GstBaseSrc.
// ev is borrowed (the base-src event vfunc is transfer none).
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
	matched := false
	e.mu.Lock()
	if st := e.st; st != nil {
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
	}
	e.mu.Unlock()
	if !matched {
		cat.LogDebug(fmt.Sprintf("GstTensorSync end for (%d,%d)+%d seqnum %d matches no open bracket (already closed by the source?)",
			ts.Dev, ts.Ino, ts.Offset, ts.Seqnum), self.Object)
	}
	return true
}
