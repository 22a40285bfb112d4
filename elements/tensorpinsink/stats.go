package tensorpinsink

import (
	"sync/atomic"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// counters are the element's statistics since its last start.
type counters struct {
	frames, hits, misses, evictions, mmaps atomic.Uint64
	// syncs: bracket halves done here (SyncForCPU at delivery and
	// SyncForDevice at release); joined: deliveries that found the
	// buffer's bracket already open (its producer's, or another reader's)
	// and joined it without an ioctl.
	syncs, joined                atomic.Uint64
	beginsMatched, beginsExpired atomic.Uint64
	// beginsRejected: GstTensorSync begins refused because they were not
	// serialized with the buffers (out-of-band custom events).
	beginsRejected                             atomic.Uint64
	copies, bytesCopied, dropped, closedAtStop atomic.Uint64
	waitsForLease, poolsProposed               atomic.Uint64
	// handlerPanics: frames whose Go handler (OnFrame) panicked; the sink
	// released each such frame itself.
	handlerPanics atomic.Uint64
	// cacheCapacity: the pin cache's bound (cache-size, max-leases+1, or
	// what it learnt of the producer's pool).
	cacheCapacity atomic.Uint64
	// Fence waits before this sink's brackets (sync-timeout): those that
	// blocked (timed-out ones included), their total and longest time in
	// nanoseconds, and the timeouts.
	fences tensor.FenceWaitCounter
	leases atomic.Int64
}

func (c *counters) reset() {
	for _, u := range []*atomic.Uint64{&c.frames, &c.hits, &c.misses, &c.evictions, &c.mmaps, &c.syncs, &c.joined,
		&c.beginsMatched, &c.beginsExpired, &c.copies, &c.bytesCopied, &c.dropped, &c.closedAtStop, &c.waitsForLease,
		&c.poolsProposed, &c.handlerPanics, &c.beginsRejected, &c.cacheCapacity} {
		u.Store(0)
	}
	c.fences.Reset()
}

// structure renders the counters as a GstStructure the caller owns.
func (c *counters) structure(name string) *gst.Structure {
	st := gst.NewStructure(name)
	for _, f := range []struct {
		key string
		val *atomic.Uint64
	}{
		{"frames", &c.frames}, {"cache-hits", &c.hits}, {"cache-misses", &c.misses},
		{"cache-evictions", &c.evictions}, {"mmaps", &c.mmaps}, {"syncs", &c.syncs},
		{"brackets-joined", &c.joined}, {"begins-matched", &c.beginsMatched}, {"begins-expired", &c.beginsExpired},
		{"copies", &c.copies}, {"bytes-copied", &c.bytesCopied},
		{"dropped", &c.dropped}, {"brackets-closed-at-stop", &c.closedAtStop},
		{"waits-for-lease", &c.waitsForLease}, {"pools-proposed", &c.poolsProposed},
		{"handler-panics", &c.handlerPanics},
		{"begins-rejected", &c.beginsRejected}, {"cache-capacity", &c.cacheCapacity},
	} {
		st.SetValue(f.key, f.val.Load())
	}
	waits, total, longest, timeouts := c.fences.Read()
	st.SetValue("fence-waits", waits)
	st.SetValue("fence-wait-total-ns", total)
	st.SetValue("fence-wait-max-ns", longest)
	st.SetValue("fence-timeouts", timeouts)
	st.SetValue("leases-outstanding", uint64(max(c.leases.Load(), 0)))
	return st
}
