package tensordecode

import (
	"sync/atomic"

	"github.com/go-gst/go-gst/gst"
)

// counters are the element's counters of one run (Start to the next
// Start).
type counters struct {
	frames, objects, decodeNs atomic.Uint64
	noTensors                 atomic.Uint64
	regions, nonFinite        atomic.Uint64
	carried                   atomic.Uint64
}

func (c *counters) reset() {
	c.frames.Store(0)
	c.objects.Store(0)
	c.decodeNs.Store(0)
	c.noTensors.Store(0)
	c.regions.Store(0)
	c.nonFinite.Store(0)
	c.carried.Store(0)
}

// Stats is a snapshot of the counters (for Go tests and programs).
type Stats struct {
	// Frames decoded, and the objects found in them (a region of
	// interest each).
	Frames, Objects uint64
	// DecodeNsTotal is the wall time spent decoding frames (mapping the
	// tensors, decoding, adding the regions), summed.
	DecodeNsTotal uint64
	// FramesWithoutTensors counts the video buffers (video mode) that
	// came without a GstTensorPinMeta and passed through untouched.
	FramesWithoutTensors uint64
	// Regions counts the regions whose results were decoded (a
	// tensorinfer inference-region=roi-list's rows).
	Regions uint64
	// NonFinite counts the candidates dropped for a NaN or an infinity
	// where a number judges or places them (decode.Decoder.NonFinite):
	// hostile model outputs, never objects.
	NonFinite uint64
	// ResultsCarried counts the results written again onto a tracked
	// region from its track's last result, on frames its tensorinfer did
	// not run it (tensorinfer reclassify-interval).
	ResultsCarried uint64
}

func (e *element) snapshot() Stats {
	c := &e.stats
	// The time the C frame spent adding the objects is decoding too.
	c.decodeNs.Add(takeAttachNs(e.self))
	return Stats{Frames: c.frames.Load(), Objects: c.objects.Load(), DecodeNsTotal: c.decodeNs.Load(),
		FramesWithoutTensors: c.noTensors.Load(), Regions: c.regions.Load(), NonFinite: c.nonFinite.Load(),
		ResultsCarried: c.carried.Load()}
}

// statsStructure returns the counters as a new "tensordecode-stats"
// structure owned by the caller.
func (e *element) statsStructure() *gst.Structure {
	s := e.snapshot()
	st := gst.NewStructure("tensordecode-stats")
	st.SetValue("frames", s.Frames)
	st.SetValue("objects", s.Objects)
	st.SetValue("decode-ns-total", s.DecodeNsTotal)
	st.SetValue("frames-without-tensors", s.FramesWithoutTensors)
	st.SetValue("regions", s.Regions)
	st.SetValue("non-finite", s.NonFinite)
	st.SetValue("results-carried", s.ResultsCarried)
	return st
}
