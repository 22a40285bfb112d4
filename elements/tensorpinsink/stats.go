package tensorpinsink

import (
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
)

// counter is one of the element's counters, which live in C (frameengine's
// sink counters, attached to the element): the frame engine counts there
// without Go, and Go adds what it does.
type counter struct {
	c frameengine.Counters
	i int
}

func (c counter) Add(n uint64)      { c.c.Add(c.i, int64(n)) }
func (c counter) Load() uint64      { return c.c.Load(c.i) }
func (c counter) Store(v uint64)    { c.c.Store(c.i, v) }
func (c counter) LoadSigned() int64 { return int64(c.c.Load(c.i)) }

// counters are the element's statistics since its last start.
type counters struct {
	all                                    frameengine.Counters
	frames, hits, misses, evictions, mmaps counter
	// syncs: bracket halves done here (at delivery and at release);
	// joined: deliveries that found the buffer's bracket already open
	// (its producer's, or another reader's) and joined it without an
	// ioctl.
	syncs, joined                counter
	beginsMatched, beginsExpired counter
	// beginsRejected: GstTensorSync begins refused because they were not
	// serialized with the buffers (out-of-band custom events).
	beginsRejected                             counter
	copies, bytesCopied, dropped, closedAtStop counter
	waitsForLease, poolsProposed               counter
	// handlerPanics: frames whose Go handler (OnFrame) panicked; the sink
	// released each such frame itself.
	handlerPanics counter
	// cacheCapacity: the pin cache's bound (cache-size, max-leases+1, or
	// what it learnt of the producer's pool).
	cacheCapacity counter
	// Fence waits before this sink's brackets (sync-timeout): those that
	// blocked (timed-out ones included), their total and longest time in
	// nanoseconds, and the timeouts.
	fenceWaits, fenceWaitNs, fenceWaitMax, fenceTimeouts counter
	leases                                               counter
}

// bind points the counters at the element's C counters.
func (c *counters) bind(all frameengine.Counters) {
	c.all = all
	for _, f := range []struct {
		p *counter
		i int
	}{
		{&c.frames, ctrFrames}, {&c.hits, ctrHits}, {&c.misses, ctrMisses},
		{&c.evictions, ctrEvictions}, {&c.mmaps, ctrMmaps}, {&c.syncs, ctrSyncs},
		{&c.joined, ctrJoined}, {&c.beginsMatched, ctrBeginsMatched},
		{&c.beginsExpired, ctrBeginsExpired}, {&c.beginsRejected, ctrBeginsRejected},
		{&c.copies, ctrCopies}, {&c.bytesCopied, ctrBytesCopied}, {&c.dropped, ctrDropped},
		{&c.closedAtStop, ctrClosedAtStop}, {&c.waitsForLease, ctrWaitsForLease},
		{&c.poolsProposed, ctrPoolsProposed}, {&c.handlerPanics, ctrHandlerPanics},
		{&c.cacheCapacity, ctrCacheCapacity}, {&c.fenceWaits, ctrFenceWaits},
		{&c.fenceWaitNs, ctrFenceWaitNanos}, {&c.fenceWaitMax, ctrFenceWaitMax},
		{&c.fenceTimeouts, ctrFenceTimeouts}, {&c.leases, ctrLeases},
	} {
		*f.p = counter{all, f.i}
	}
}

func (c *counters) reset() { c.all.Reset(ctrLeases) }

// structure renders the counters as a GstStructure the caller owns.
func (c *counters) structure(name string) *gst.Structure {
	st := gst.NewStructure(name)
	for _, f := range []struct {
		key string
		val counter
	}{
		{"frames", c.frames}, {"cache-hits", c.hits}, {"cache-misses", c.misses},
		{"cache-evictions", c.evictions}, {"mmaps", c.mmaps}, {"syncs", c.syncs},
		{"brackets-joined", c.joined}, {"begins-matched", c.beginsMatched}, {"begins-expired", c.beginsExpired},
		{"copies", c.copies}, {"bytes-copied", c.bytesCopied},
		{"dropped", c.dropped}, {"brackets-closed-at-stop", c.closedAtStop},
		{"waits-for-lease", c.waitsForLease}, {"pools-proposed", c.poolsProposed},
		{"handler-panics", c.handlerPanics},
		{"begins-rejected", c.beginsRejected}, {"cache-capacity", c.cacheCapacity},
		{"fence-waits", c.fenceWaits}, {"fence-wait-total-ns", c.fenceWaitNs},
		{"fence-wait-max-ns", c.fenceWaitMax}, {"fence-timeouts", c.fenceTimeouts},
	} {
		st.SetValue(f.key, f.val.Load())
	}
	st.SetValue("leases-outstanding", uint64(max(c.leases.LoadSigned(), 0)))
	return st
}
