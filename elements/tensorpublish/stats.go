package tensorpublish

import (
	"errors"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Stats are the element's counters since its last start (the stats
// property as a Go value).
type Stats struct {
	// Frames counts the buffers through the element; Objects the regions
	// they had.
	Frames, Objects uint64
	// Messages counts the lines made: frames with objects, or every
	// frame with add-empty-frames.
	Messages uint64
	// Published counts the messages written to the file or acknowledged
	// by the broker (written to the connection at QoS 0), summed over the
	// destinations.
	Published uint64
	// Dropped counts the messages that will never be sent: the oldest
	// beyond max-queued, those queued at a stop, those after a write
	// error. Every message made is published, dropped or queued.
	Dropped uint64
	// Queued counts the messages held now: waiting, or sent and not yet
	// acknowledged.
	Queued uint64
	// Reconnects counts the connections to the broker made after a
	// failed attempt or a lost connection.
	Reconnects uint64
	// FrameTime is the time spent on the streaming thread, in all.
	FrameTime time.Duration
}

// ErrNotTensorPublish: the element given is not a tensorpublish.
var ErrNotTensorPublish = errors.New("not a tensorpublish element")

// ReadStats returns the counters of the tensorpublish element e: the
// current run's, or the last run's after it stopped.
func ReadStats(e *gst.Element) (Stats, error) {
	el, err := gstglue.ElementOf[*element](e, ErrNotTensorPublish)
	if err != nil {
		return Stats{}, err
	}
	return el.stats(), nil
}

func (e *element) stats() Stats {
	e.stateMu.Lock()
	p, last := e.pub, e.last
	e.stateMu.Unlock()
	if p == nil {
		return last
	}
	return p.stats()
}

// statsStructure returns the counters as a new "tensorpublish-stats"
// structure owned by the caller.
func (e *element) statsStructure() *gst.Structure {
	s := e.stats()
	st := gst.NewStructure("tensorpublish-stats")
	for _, f := range []struct {
		name string
		v    uint64
	}{{"frames", s.Frames}, {"objects", s.Objects}, {"messages", s.Messages}, {"published", s.Published},
		{"dropped", s.Dropped}, {"queued", s.Queued}, {"reconnects", s.Reconnects}, {"frame-ns-total", uint64(s.FrameTime)}} {
		st.SetValue(f.name, f.v)
	}
	return st
}
