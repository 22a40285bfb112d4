package tensordecode

import (
	"errors"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// ErrNotTensorDecode: the element given is not a tensordecode.
var ErrNotTensorDecode = errors.New("not a tensordecode element")

// ReadStats returns the counters of the tensordecode element e (the
// stats property as a Go value): the current run's, or the last run's
// after stop.
func ReadStats(e *gst.Element) (Stats, error) {
	el, err := gstglue.ElementOf[*element](e, ErrNotTensorDecode)
	if err != nil {
		return Stats{}, err
	}
	return el.snapshot(), nil
}
