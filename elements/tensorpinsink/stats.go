package tensorpinsink

import (
	"sync/atomic"
	"time"

	"github.com/go-gst/go-gst/gst"
)

// counters are the element's statistics since its last start.
type counters struct {
	frames, hits, misses, evictions, mmaps atomic.Uint64
	// syncs: bracket halves done here (SyncForCPU at delivery and
	// SyncForDevice at release); joined: deliveries that found the
	// buffer's bracket already open (its producer's, or another reader's)
	// and joined it without an ioctl.
	syncs, joined                              atomic.Uint64
	beginsMatched, beginsExpired               atomic.Uint64
	copies, bytesCopied, dropped, closedAtStop atomic.Uint64
	waitsForLease, poolsProposed               atomic.Uint64
	// Fence waits before this sink's brackets (sync-timeout): those that
	// blocked (timed-out ones included), their total and longest time in
	// nanoseconds, and the timeouts.
	fenceWaits, fenceWaitNanos, fenceWaitMaxNanos, fenceTimeouts atomic.Uint64
	leases                                                       atomic.Int64
}

// recordFenceWait counts one fence wait that blocked for d.
func (c *counters) recordFenceWait(d time.Duration) {
	ns := uint64(max(d, 0))
	c.fenceWaits.Add(1)
	c.fenceWaitNanos.Add(ns)
	for {
		m := c.fenceWaitMaxNanos.Load()
		if ns <= m || c.fenceWaitMaxNanos.CompareAndSwap(m, ns) {
			return
		}
	}
}

func (c *counters) reset() {
	for _, u := range []*atomic.Uint64{&c.frames, &c.hits, &c.misses, &c.evictions, &c.mmaps, &c.syncs, &c.joined,
		&c.beginsMatched, &c.beginsExpired, &c.copies, &c.bytesCopied, &c.dropped, &c.closedAtStop, &c.waitsForLease,
		&c.poolsProposed, &c.fenceWaits, &c.fenceWaitNanos, &c.fenceWaitMaxNanos, &c.fenceTimeouts} {
		u.Store(0)
	}
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
		{"fence-waits", &c.fenceWaits}, {"fence-wait-total-ns", &c.fenceWaitNanos},
		{"fence-wait-max-ns", &c.fenceWaitMaxNanos}, {"fence-timeouts", &c.fenceTimeouts},
	} {
		st.SetValue(f.key, f.val.Load())
	}
	st.SetValue("leases-outstanding", uint64(max(c.leases.Load(), 0)))
	return st
}
