package tensorpinsink

import (
	"sync"
)

// leases is the Go side of one run's leases: the lease table itself is
// the frame engine's (frameengine's sinkframe.h: taking one, the wait for one
// that unlock, a flush or a stop ends, drop, the release from any
// thread, the brackets left at stop). Go keeps, per lease, the record a
// Go consumer's Frame reads (its tensors and pins), filled only when a
// Go consumer takes the frame. It outlives the run: frames the
// application still holds after stop refer to it (and their leases keep
// the engine).
type leases struct {
	engine sinkFrame
	mu     sync.Mutex
	frames []frameRecord
}

func newLeases(engine sinkFrame, max int) *leases {
	l := &leases{engine: engine, frames: make([]frameRecord, max)}
	for i := range l.frames {
		l.frames[i].index = i
		l.frames[i].lessor = l
	}
	return l
}

// hand makes lease i (engine generation cgen), filled by deliver, a
// delivered Frame.
func (l *leases) hand(r *frameRecord, cgen uint64) Frame {
	l.mu.Lock()
	r.state, r.cgen = frameHeld, cgen
	f := Frame{r: r, gen: r.gen.Load()}
	l.mu.Unlock()
	return f
}

// release is Frame.Release: only the first call for a generation acts.
// The record's views go first; then the engine's release leaves the
// brackets, sends the end event, releases the buffer and the lease (any
// thread: no Go on the engine's side).
func (l *leases) release(r *frameRecord, gen uint64) error {
	l.mu.Lock()
	if r.gen.Load() != gen || r.state != frameHeld {
		l.mu.Unlock()
		return ErrStaleFrame
	}
	r.state = frameFree
	r.readMu.Lock() // waits for getters of this generation to finish
	r.gen.Add(1)    // every copy of the Frame is stale from here on
	r.readMu.Unlock()
	cgen := r.cgen
	r.releasePlanes()
	l.mu.Unlock()
	l.engine.Release(r.index, cgen)
	return nil
}

// releasePlanes drops the planes' views (the entries are the engine's
// lease's).
func (r *frameRecord) releasePlanes() {
	for i := 0; i < r.nplanes; i++ {
		r.planes[i].view = nil
	}
	for i := 0; i < r.nmem; i++ {
		if r.views[i] != nil {
			r.views[i].Release()
			r.views[i] = nil
		}
		r.mems[i] = nil
	}
	r.nplanes, r.nmem = 0, 0
}
