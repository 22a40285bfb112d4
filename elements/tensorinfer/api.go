package tensorinfer

import (
	"errors"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// ErrNotTensorInfer: the element given is not a tensorinfer.
var ErrNotTensorInfer = errors.New("not a tensorinfer element")

// ReadStats returns the counters of the tensorinfer element e (the stats
// property as a Go value): the current run's, or the last run's after
// stop.
func ReadStats(e *gst.Element) (Stats, error) {
	el, err := gstglue.ElementOf[*element](e, ErrNotTensorInfer)
	if err != nil {
		return Stats{}, err
	}
	return el.snapshot(), nil
}
