package tensorsrc

import (
	"sync/atomic"

	"github.com/go-gst/go-gst/gst"
)

// runStats are the counters of one run (Start to Stop). Buffers returned
// after Stop still count into the run that produced them.
type runStats struct {
	poolSize int
	backend  string

	frames, mmaps, opened            atomic.Uint64
	closedDownstream, closedBySource atomic.Uint64
	waits, endEvents, unmatchedEnds  atomic.Uint64
	syncErrors                       atomic.Uint64
}

func newRunStats(poolSize int, backend string) *runStats {
	return &runStats{poolSize: poolSize, backend: backend}
}

// structure returns the counters as a "tensorsrc-stats" structure (a new
// one, owned by the caller).
func (s *runStats) structure() *gst.Structure {
	st := gst.NewStructure("tensorsrc-stats")
	// Closes first: every close follows its open, so opened >= closes.
	down, bySrc := s.closedDownstream.Load(), s.closedBySource.Load()
	opened := s.opened.Load()
	for _, f := range []struct {
		k string
		v any
	}{
		{"frames", s.frames.Load()},
		{"pool-size", uint(s.poolSize)},
		{"backend", s.backend},
		{"mmaps", s.mmaps.Load()},
		{"brackets-opened", opened},
		{"brackets-closed-downstream", down},
		{"brackets-closed-by-source", bySrc},
		{"brackets-open", opened - min(opened, down+bySrc)},
		{"waits-for-free-slot", s.waits.Load()},
		{"end-events", s.endEvents.Load()},
		{"unmatched-end-events", s.unmatchedEnds.Load()},
		{"sync-errors", s.syncErrors.Load()},
	} {
		st.SetValue(f.k, f.v)
	}
	return st
}
