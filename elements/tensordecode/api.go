package tensordecode

import (
	"errors"
	"fmt"

	"github.com/go-gst/go-gst/gst"
)

// ErrNotTensorDecode: the element given is not a tensordecode.
var ErrNotTensorDecode = errors.New("not a tensordecode element")

// ReadStats returns the counters of the tensordecode element e (the
// stats property as a Go value): the current run's, or the last run's
// after stop.
func ReadStats(e *gst.Element) (Stats, error) {
	if e == nil {
		return Stats{}, fmt.Errorf("nil element: %w", ErrNotTensorDecode)
	}
	el := fromObject(e.Unsafe())
	if el == nil {
		return Stats{}, fmt.Errorf("%s: %w", e.GetName(), ErrNotTensorDecode)
	}
	return el.snapshot(), nil
}
