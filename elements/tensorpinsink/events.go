package tensorpinsink

import (
	"fmt"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
)

// Event posts the statistics at EOS, counts the pending begin a flush
// discards and chains the rest up. It owns ev (go-gst's base-sink event
// vfunc is transfer full). GstTensorSync begin events do not reach it:
// gstc's event trampoline (gstc.InstallBaseSinkTensorSync) parses them and
// calls TensorSyncBegin without allocating, and hands every other event
// to go-gst's trampoline, which calls Event.
func (s *sink) Event(self *base.GstBaseSink, ev *gst.Event) bool {
	if ts, ok := gstc.ParseTensorSyncEvent(ev); ok && ts.Phase == gstc.PhaseBegin {
		// Not reached while the trampoline is installed; kept equivalent.
		s.tensorSyncBegin(ts)
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

// TensorSyncBegin records a GstTensorSync begin event: the bracket the
// next buffer of that identity arrives in. The event is consumed.
func (s *sink) TensorSyncBegin(self gstc.RawElement, ts gstc.TensorSync) bool {
	s.tensorSyncBegin(ts)
	return true
}

func (s *sink) tensorSyncBegin(ts gstc.TensorSync) {
	if st := s.current(); st != nil {
		if st.havePending {
			s.stats.unmatchedBegins.Add(1)
		}
		st.pending, st.havePending = ts, true
	}
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
