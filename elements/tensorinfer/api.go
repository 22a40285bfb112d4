package tensorinfer

import (
	"errors"
	"fmt"

	"github.com/go-gst/go-gst/gst"
)

// ErrNotTensorInfer: the element given is not a tensorinfer.
var ErrNotTensorInfer = errors.New("not a tensorinfer element")

// ReadStats returns the counters of the tensorinfer element e (the stats
// property as a Go value): the current run's, or the last run's after
// stop.
func ReadStats(e *gst.Element) (Stats, error) {
	if e == nil {
		return Stats{}, fmt.Errorf("nil element: %w", ErrNotTensorInfer)
	}
	el := fromObject(e.Unsafe())
	if el == nil {
		return Stats{}, fmt.Errorf("%s: %w", e.GetName(), ErrNotTensorInfer)
	}
	return el.snapshot(), nil
}
