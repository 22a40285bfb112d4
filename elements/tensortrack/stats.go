package tensortrack

import (
	"errors"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Stats are the element's counters since its last start (the stats
// property as a Go value).
type Stats struct {
	// Frames counts the buffers the element handled.
	Frames uint64
	// TracksStarted counts the tracks given an id (reported: seen on
	// two detector runs in a row, or on the first run of a stream).
	TracksStarted uint64
	// TracksEnded counts the tracks ended: lost longer than max-lost,
	// or ended by a flush, EOS or a stop.
	TracksEnded uint64
	// TracksAlive is the number of tracks alive after the last frame.
	TracksAlive uint64
	// PredictedRegions counts the regions written at a track's
	// predicted place: a repeated run's region moved there, or a region
	// added for a track without one.
	PredictedRegions uint64
}

// ErrNotTensorTrack: the element given is not a tensortrack.
var ErrNotTensorTrack = errors.New("not a tensortrack element")

// ReadStats returns the counters of the tensortrack element e: the
// current run's, or the last run's after it stopped.
func ReadStats(e *gst.Element) (Stats, error) {
	el, err := gstglue.ElementOf[*element](e, ErrNotTensorTrack)
	if err != nil {
		return Stats{}, err
	}
	return readStats(el.self), nil
}

// statsStructure returns the counters as a new "tensortrack-stats"
// structure owned by the caller.
func (e *element) statsStructure() *gst.Structure {
	s := readStats(e.self)
	st := gst.NewStructure("tensortrack-stats")
	st.SetValue("frames", s.Frames)
	st.SetValue("tracks-started", s.TracksStarted)
	st.SetValue("tracks-ended", s.TracksEnded)
	st.SetValue("tracks-alive", s.TracksAlive)
	st.SetValue("predicted-regions", s.PredictedRegions)
	return st
}
