package tensorpinsink

import (
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pinread"
)

// Event posts the statistics at EOS, expires the pending begins at EOS
// and flush, and chains everything up. It owns ev (go-gst's base-sink event
// vfunc is transfer full). GstTensorSync begin events do not reach it:
// the sink's event vfunc in C (basesink.c) records them in the element's
// pending begins (attached at Start) for render to match, and hands every
// other event to go-gst's trampoline, which calls Event.
func (s *sink) Event(self *base.GstBaseSink, ev *gst.Event) (ret bool) {
	defer gstglue.Guard(self.Element, "event", &ret, false)
	switch ev.Type() {
	case gst.EventTypeEOS:
		// No buffer follows EOS: begins still pending announced buffers
		// that were dropped or filtered before the sink.
		s.expireBegins()
		s.postStats(self)
	case gst.EventTypeFlushStop:
		// The buffers they announced were flushed.
		s.expireBegins()
	}
	return self.ParentEvent(ev)
}

// expireBegins forgets the pending begin events (their buffers are not
// coming) and counts them.
func (s *sink) expireBegins() {
	if st := s.current(); st != nil {
		s.stats.beginsExpired.Add(uint64(st.begins.Clear()))
	}
}

// ProposeAllocation answers upstream's ALLOCATION query. The sink reads
// GstVideoMeta, so producers may send padded strides instead of copying
// to the default layout; and (propose-pool) it offers a pool of fd memory
// — a dma-heap buffer per memory where /dev/dma_heap/system opens, else a
// memfd — that it pins once per buffer: a producer that takes it (video
// test sources, converters, scalers, software decoders) writes straight
// into memory the sink imports without a copy. min-buffers is max-leases
// + 1, so the producer (and a camera or decoder pool upstream of it)
// learns how many buffers the application may hold. A producer that
// declines keeps the copy path, counted as before.
func (s *sink) ProposeAllocation(self *base.GstBaseSink, query *gst.Query) (ret bool) {
	defer gstglue.Guard(self.Element, "propose-allocation", &ret, false)
	set := s.settings.Read()
	prop, ok := pinread.ReadProposal(query, set.proposePool)
	f, mem := prop.Format, prop.Memory
	if !ok || len(f.Planes) != 1 && f.Media == capslayout.MediaTensors {
		// Several tensors are several memories per buffer: a pool of
		// one-memory buffers would not fit them.
		return true
	}
	if err := frameengine.ProposePinnedPool(query, f.Media == capslayout.MediaVideo, f.FrameSize, int(set.maxLeases)+1, mem, set.poolHandoff != poolHandoffClose); err != nil {
		cat.LogWarning("no pool proposed: "+err.Error(), self.Object)
		return true
	}
	s.stats.poolsProposed.Add(1)
	return true
}

// postStats posts the counters as an element message at EOS.
func (s *sink) postStats(self *base.GstBaseSink) {
	if st := s.current(); st != nil {
		s.recordCache(st)
	}
	if !gstglue.PostElementMessage(self.Element, s.stats.structure("tensorpinsink-stats")) {
		cat.LogWarning("could not post statistics", self.Object)
	}
}
