package tensoroverlay

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
	// Boxes counts the regions drawn: not empty and not entirely outside
	// their frame.
	Boxes uint64
	// Copies counts the frames whose memory was copied so that the
	// element could draw on them: a buffer a tee or a holder upstream
	// shares, or read-only memory. A frame with nothing to draw is never
	// copied.
	Copies uint64
}

// ErrNotTensorOverlay: the element given is not a tensoroverlay.
var ErrNotTensorOverlay = errors.New("not a tensoroverlay element")

// ReadStats returns the counters of the tensoroverlay element e: the
// current run's, or the last run's after it stopped.
func ReadStats(e *gst.Element) (Stats, error) {
	el, err := gstglue.ElementOf[*element](e, ErrNotTensorOverlay)
	if err != nil {
		return Stats{}, err
	}
	return readStats(el.self), nil
}

// statsStructure returns the counters as a new "tensoroverlay-stats"
// structure owned by the caller.
func (e *element) statsStructure() *gst.Structure {
	s := readStats(e.self)
	st := gst.NewStructure("tensoroverlay-stats")
	st.SetValue("frames", s.Frames)
	st.SetValue("boxes", s.Boxes)
	st.SetValue("copies", s.Copies)
	return st
}
