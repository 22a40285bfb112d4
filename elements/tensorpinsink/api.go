package tensorpinsink

import (
	"errors"
	"fmt"

	"github.com/go-gst/go-gst/gst"
)

// ErrNotTensorPinSink: FromElement was given another kind of element.
var ErrNotTensorPinSink = errors.New("tensorpinsink: not a tensorpinsink element")

// Sink is the Go API of a tensorpinsink element, for programs that embed
// GStreamer and register the element statically.
type Sink struct{ s *sink }

// FromElement returns the Go API of a tensorpinsink element. e is borrowed.
func FromElement(e *gst.Element) (*Sink, error) {
	if e == nil {
		return nil, fmt.Errorf("nil element: %w", ErrNotTensorPinSink)
	}
	s := fromObject(e.Unsafe())
	if s == nil {
		return nil, fmt.Errorf("%s: %w", e.GetName(), ErrNotTensorPinSink)
	}
	return &Sink{s: s}, nil
}

// OnFrame installs the function that receives each frame, on the streaming
// thread; it owns the frame and must Release it (now or later, from any
// goroutine). Frames not released hold back the producer: after
// max-leases of them the streaming thread waits (or drops, with drop=true).
// nil removes the handler (frames are then released on delivery). Install
// it before the pipeline leaves READY.
func (k *Sink) OnFrame(h func(*Frame)) {
	if h == nil {
		k.s.handler.Store(nil)
		return
	}
	k.s.handler.Store(&h)
}

// Stats is a copy of the element's counters.
type Stats struct {
	Frames, CacheHits, CacheMisses, CacheEvictions, Mmaps, Syncs uint64
	BracketsAdopted, Copies, BytesCopied, Dropped                uint64
	BracketsClosedAtStop, UnmatchedBegins, WaitsForLease         uint64
	LeasesOutstanding                                            int64
}

// Stats reads the counters (the same as the stats property).
func (k *Sink) Stats() Stats {
	c := &k.s.stats
	if st := k.s.current(); st != nil {
		k.s.recordCache(st)
	}
	return Stats{
		Frames: c.frames.Load(), CacheHits: c.hits.Load(), CacheMisses: c.misses.Load(),
		CacheEvictions: c.evictions.Load(), Mmaps: c.mmaps.Load(), Syncs: c.syncs.Load(),
		BracketsAdopted: c.adopted.Load(), Copies: c.copies.Load(), BytesCopied: c.bytesCopied.Load(),
		Dropped: c.dropped.Load(), BracketsClosedAtStop: c.closedAtStop.Load(),
		UnmatchedBegins: c.unmatchedBegins.Load(), WaitsForLease: c.waitsForLease.Load(),
		LeasesOutstanding: c.leases.Load(),
	}
}
