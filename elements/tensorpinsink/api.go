package tensorpinsink

import (
	"errors"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// ErrNotTensorPinSink: FromElement was given another kind of element.
var ErrNotTensorPinSink = errors.New("tensorpinsink: not a tensorpinsink element")

// Sink is the Go API of a tensorpinsink element, for programs that embed
// GStreamer and register the element statically.
type Sink struct{ s *sink }

// FromElement returns the Go API of a tensorpinsink element. e is borrowed.
func FromElement(e *gst.Element) (*Sink, error) {
	s, err := gstglue.ElementOf[*sink](e, ErrNotTensorPinSink)
	if err != nil {
		return nil, err
	}
	return &Sink{s: s}, nil
}

// OnFrame installs the function that receives each frame, on the streaming
// thread; it owns the frame and must Release it (now or later, from any
// goroutine). Frames not released hold back the producer: after
// max-leases of them the streaming thread waits (or drops, with drop=true).
// nil removes the handler (frames are then released on delivery). Install
// it before the pipeline leaves READY.
func (k *Sink) OnFrame(h func(Frame)) {
	s := k.s
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	if h == nil {
		s.handler.Store(nil)
	} else {
		s.handler.Store(&h)
	}
	if st := s.state; st != nil {
		st.engine.SetGoConsumer(h != nil)
	}
}

// Stats is a copy of the element's counters.
type Stats struct {
	Frames, CacheHits, CacheMisses, CacheEvictions, Mmaps uint64
	// Syncs counts bracket halves done by this sink (one at delivery, one
	// at release); BracketsJoined the deliveries whose buffer already had
	// its bracket open (opened by the producer, or by another reader of
	// the same buffer), joined without an ioctl.
	Syncs, BracketsJoined uint64
	// BeginsMatched counts frames announced by a GstTensorSync begin event;
	// BeginsExpired begin events whose buffer never reached the sink
	// (flushed, dropped or converted upstream, or the caps changed).
	BeginsMatched, BeginsExpired        uint64
	Copies, BytesCopied, Dropped        uint64
	BracketsClosedAtStop, WaitsForLease uint64
	// PoolsProposed counts the pinned pools offered upstream
	// (propose-pool).
	PoolsProposed uint64
	// FenceWaits counts the frames whose dma-buf fences had not signalled
	// when the sink opened its bracket, so it waited (sync-timeout),
	// timed-out waits included; FenceWaitNanos is their total time and
	// FenceWaitMaxNanos the longest; FenceTimeouts the waits that gave up
	// (the frame was dropped — counted in Dropped too — or an error posted,
	// by on-sync-timeout).
	FenceWaits, FenceWaitNanos, FenceWaitMaxNanos, FenceTimeouts uint64
	LeasesOutstanding                                            int64
	// HandlerPanics counts frames whose OnFrame handler panicked: the
	// panic is posted as an error and the sink releases the frame.
	HandlerPanics uint64
	// BeginsRejected counts GstTensorSync begin events refused because
	// they were not serialized with the buffers (sent out of band): a
	// begin announces the buffer that follows it, which only an event in
	// order with the buffers can do.
	BeginsRejected uint64
	// CacheCapacity is the pin cache's bound: cache-size, raised to
	// max-leases+1, and grown when the producer cycles through more
	// buffers than that (a warning says so once).
	CacheCapacity uint64
}

// Stats reads the counters (the same as the stats property).
func (k *Sink) Stats() Stats {
	c := &k.s.stats
	if st := k.s.current(); st != nil {
		k.s.recordCache(st)
	}
	fw, fn, fm, ft := c.fenceWaits.Load(), c.fenceWaitNs.Load(), c.fenceWaitMax.Load(), c.fenceTimeouts.Load()
	return Stats{
		Frames: c.frames.Load(), CacheHits: c.hits.Load(), CacheMisses: c.misses.Load(),
		CacheEvictions: c.evictions.Load(), Mmaps: c.mmaps.Load(), Syncs: c.syncs.Load(),
		BracketsJoined: c.joined.Load(), BeginsMatched: c.beginsMatched.Load(), BeginsExpired: c.beginsExpired.Load(),
		Copies: c.copies.Load(), BytesCopied: c.bytesCopied.Load(),
		Dropped: c.dropped.Load(), BracketsClosedAtStop: c.closedAtStop.Load(),
		WaitsForLease: c.waitsForLease.Load(), PoolsProposed: c.poolsProposed.Load(),
		FenceWaits: fw, FenceWaitNanos: fn, FenceWaitMaxNanos: fm, FenceTimeouts: ft,
		LeasesOutstanding: c.leases.LoadSigned(), HandlerPanics: c.handlerPanics.Load(),
		BeginsRejected: c.beginsRejected.Load(), CacheCapacity: c.cacheCapacity.Load(),
	}
}
