package tensorsrc

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// runStats are the counters of one run (Start to Stop). Buffers returned
// after Stop still count into the run that produced them.
type runStats struct {
	poolSize    int
	maxPoolSize int
	backend     string

	mmaps atomic.Uint64
	// ringSize: tensors in the current ring (pool-size, or more when
	// downstream's ALLOCATION answer asked for more); downstreamMin: the
	// min-buffers downstream asked for.
	ringSize, downstreamMin atomic.Uint64
	// grown: tensors added to the run's rings because every one was
	// downstream while a preroll waited (grow.go); ringSize counts them.
	grown atomic.Uint64
	// waits: the application's Acquires that waited for a free slot
	// (create's waits are counted in c).
	waits atomic.Uint64
	// Reader ends: GstTensorSync end events from downstream readers
	// (tensorpinsink, tensorinfer) about a frame of this run, any number
	// per frame (one per reader); other ends: end events about no frame
	// of ours in flight. The event trampoline counts both in the
	// element's tally (C), which Stop reads into readerEnds and
	// otherEnds: until then (endsLive) they are the tally's counts less
	// endsBase, its counts at Start. endsMu makes a read and the freeze
	// one or the other.
	ends                  frameengine.EndTally
	endsBase              [2]uint64
	endsMu                sync.Mutex
	endsLive              bool
	readerEnds, otherEnds uint64
	syncErrors            atomic.Uint64
	// Fence waits before opening a slot's bracket (sync-timeout): those
	// that blocked, their total and longest time (ns), the timeouts; and
	// the write fences the application attached (SetWriteFence).
	fences         tensor.FenceWaitCounter
	fencesAttached atomic.Uint64
	// seeks: seeks done (not counting the start's); seekDiscarded: slots
	// the application had pushed that a seek gave back unsent.
	seeks, seekDiscarded atomic.Uint64
	// c: what the frames and the ring count in C — frames, create's waits
	// for a slot and for fences, and every bracket of the slots
	// (frameengine.OutRing: opened before writing, closed when the slot's memory
	// came back from its last holder or right after writing with
	// handoff=close, ended when that close did the END ioctl) — added to
	// the counters above (the application's Acquire's, Go's) in what is
	// reported. A C block, as a slot's memory returning after Stop still
	// counts into it.
	c frameengine.Counters
}

func newRunStats(poolSize, maxPoolSize int, backend string) *runStats {
	s := &runStats{poolSize: poolSize, maxPoolSize: maxPoolSize, backend: backend, c: frameengine.NewCounters()}
	runtime.AddCleanup(s, func(c frameengine.Counters) { c.Unref() }, s.c)
	return s
}

// frameCount returns the frames made (all in C).
func (s *runStats) frameCount() uint64 {
	return s.c.Load(ctrFrames)
}

// countEnds makes the run's end counts those of tally from now until
// freezeEnds, and starts the tally's new run. Call it before s is
// published.
func (s *runStats) countEnds(tally frameengine.EndTally) {
	tally.NewRun()
	s.ends = tally
	s.endsBase[0], s.endsBase[1] = tally.Read()
	s.endsLive = true
}

// endCounts returns the run's reader and other end events.
func (s *runStats) endCounts() (reader, other uint64) {
	s.endsMu.Lock()
	defer s.endsMu.Unlock()
	if s.endsLive {
		r, o := s.ends.Read()
		return r - s.endsBase[0], o - s.endsBase[1]
	}
	return s.readerEnds, s.otherEnds
}

// freezeEnds keeps the run's end counts as they are now (at Stop): ends
// counted later are not the run's.
func (s *runStats) freezeEnds() {
	s.endsMu.Lock()
	defer s.endsMu.Unlock()
	if s.endsLive {
		r, o := s.ends.Read()
		s.readerEnds, s.otherEnds = r-s.endsBase[0], o-s.endsBase[1]
		s.endsLive = false
	}
}

// structure returns the counters as a "tensorsrc-stats" structure (a new
// one, owned by the caller).
func (s *runStats) structure() *gst.Structure {
	st := gst.NewStructure("tensorsrc-stats")
	fw, fn, fm, ft := s.fences.Read()
	// Closes first: every close follows its open, so opened >= closed.
	closed := s.c.Load(frameengine.RingOutClosed)
	opened := s.c.Load(frameengine.RingOutOpened)
	readerEnds, otherEnds := s.endCounts()
	for _, f := range []struct {
		k string
		v any
	}{
		{"frames", s.frameCount()},
		{"pool-size", uint(s.poolSize)},
		{"ring-size", s.ringSize.Load()},
		{"downstream-min-buffers", s.downstreamMin.Load()},
		{"backend", s.backend},
		{"mmaps", s.mmaps.Load()},
		{"brackets-opened", opened},
		{"brackets-closed", closed},
		{"brackets-ended-here", s.c.Load(frameengine.RingOutEnded)},
		{"brackets-open", opened - min(opened, closed)},
		{"waits-for-free-slot", s.waits.Load() + s.c.Load(frameengine.RingWaits)},
		{"reader-end-events", readerEnds},
		{"other-end-events", otherEnds},
		{"sync-errors", s.syncErrors.Load() + s.c.Load(frameengine.RingSyncErrors)},
		{"fence-waits", fw + s.c.Load(ctrFenceWaits)},
		{"fence-wait-total-ns", fn + s.c.Load(ctrFenceWaitNs)},
		{"fence-wait-max-ns", max(fm, s.c.Load(ctrFenceWaitMaxNs))},
		{"fence-timeouts", ft + s.c.Load(ctrFenceTimeouts)},
		{"fences-attached", s.fencesAttached.Load()},
		{"seeks", s.seeks.Load()},
		{"seek-discarded", s.seekDiscarded.Load()},
		{"steady-frames", s.c.Load(ctrFrames)},
		{"max-pool-size", uint(s.maxPoolSize)},
		{"pool-grown", s.grown.Load()},
	} {
		st.SetValue(f.k, f.v)
	}
	return st
}
