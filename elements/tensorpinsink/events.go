package tensorpinsink

import (
	"fmt"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
)

// Event handles GstTensorSync begin events (the bracket the next buffer of
// that identity arrives in), posts the statistics at EOS and chains the
// rest up. It owns ev (go-gst's base-sink event vfunc is transfer full).
func (s *sink) Event(self *base.GstBaseSink, ev *gst.Event) bool {
	if ts, ok := gstc.ParseTensorSyncEvent(ev); ok && ts.Phase == gstc.PhaseBegin {
		if st := s.current(); st != nil {
			if st.havePending {
				s.stats.unmatchedBegins.Add(1)
			}
			st.pending, st.havePending = ts, true
		}
		ev.Unref()
		return true
	}
	switch ev.Type() {
	case gst.EventTypeEOS:
		s.postStats(self)
	case gst.EventTypeFlushStop:
		if st := s.current(); st != nil && st.havePending {
			// The buffer it announced was flushed.
			s.stats.unmatchedBegins.Add(1)
			st.havePending = false
		}
	}
	return self.ParentEvent(ev)
}

// ProposeAllocation tells upstream the sink reads GstVideoMeta, so
// producers may send padded strides instead of copying to the default
// layout.
func (s *sink) ProposeAllocation(self *base.GstBaseSink, query *gst.Query) bool {
	query.AddAllocationMeta(gstc.VideoMetaAPIType(), nil)
	return true
}

// postStats posts the counters as an element message at EOS.
func (s *sink) postStats(self *base.GstBaseSink) {
	if st := s.current(); st != nil {
		s.recordCache(st)
	}
	if !gstc.PostElementMessage(self.Element, s.stats.structure("tensorpinsink-stats")) {
		cat.LogWarning(fmt.Sprintf("could not post statistics"), self.Object)
	}
}
