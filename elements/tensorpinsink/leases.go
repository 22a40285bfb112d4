package tensorpinsink

import (
	"fmt"
	"sync"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// leases hands out frame records (at most max-leases at once) and takes
// them back. It outlives the streaming state: frames the application
// still holds after stop refer to it, so it holds the element and its sink
// pad (for the upstream end events) until it is retired and the last
// frame is released.
//
// A record's state and bracket flag change only under mu, which is what
// makes Release, a second Release through a copy of the Frame, and stop
// closing the brackets of held frames safe against each other.
type leases struct {
	held     gstc.Held
	stats    *counters
	postSync bool

	mu       sync.Mutex
	cond     sync.Cond
	frames   []frameRecord
	free     []int
	flushing bool
	retired  bool
}

func newLeases(elem *gst.Element, stats *counters, max int, postSync bool) *leases {
	l := &leases{held: gstc.Hold(elem, "sink"), stats: stats, postSync: postSync,
		frames: make([]frameRecord, max), free: make([]int, 0, max)}
	l.cond.L = &l.mu
	for i := max - 1; i >= 0; i-- {
		l.free = append(l.free, i)
		l.frames[i].index = i
		l.frames[i].lessor = l
	}
	return l
}

// take returns a free record for the streaming thread to fill, waiting
// while all are held (or, with drop, returning nil at once). Woken by the
// sink's unlock vfunc (a flush, a stop, or a pause that must not wait for
// the application), it returns nil and interrupted; after stop it returns
// FlowFlushing.
func (l *leases) take(drop bool) (rec *frameRecord, flow gst.FlowReturn, interrupted bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.retired {
		return nil, gst.FlowFlushing, false
	}
	if len(l.free) == 0 && !l.flushing {
		if drop {
			l.stats.dropped.Add(1)
			return nil, gst.FlowOK, false
		}
		l.stats.waitsForLease.Add(1)
		for len(l.free) == 0 && !l.flushing {
			l.cond.Wait()
		}
	}
	if l.retired {
		return nil, gst.FlowFlushing, false
	}
	if l.flushing {
		return nil, gst.FlowFlushing, true
	}
	i := l.free[len(l.free)-1]
	l.free = l.free[:len(l.free)-1]
	r := &l.frames[i]
	r.state, r.closed = frameFilling, false
	l.stats.leases.Add(1)
	return r, gst.FlowOK, false
}

// hand makes a filled record a delivered Frame.
func (l *leases) hand(r *frameRecord) Frame {
	l.mu.Lock()
	r.state = frameHeld
	f := Frame{r: r, gen: r.gen.Load()}
	l.mu.Unlock()
	return f
}

// release is Frame.Release: only the first call for a generation acts.
func (l *leases) release(r *frameRecord, gen uint64) error {
	l.mu.Lock()
	if r.gen.Load() != gen || r.state != frameHeld {
		l.mu.Unlock()
		return ErrStaleFrame
	}
	r.state = frameReleasing
	r.readMu.Lock() // waits for getters of this generation to finish
	r.gen.Add(1)    // every copy of the Frame is stale from here on
	r.readMu.Unlock()
	closeIt := !r.closed
	r.closed = true
	if r.closingAtStop {
		// closeAll is ending this frame's bracket right now, outside the
		// lock (it may be posting the very message whose handler calls
		// us): it finishes the release when it is done with the record.
		r.releaseDeferred = true
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	if closeIt {
		l.closeBracket(r)
	}
	l.finishRelease(r)
	return nil
}

// finishRelease gives back what a released frame held: pins, cache
// entries, the buffer, then the record.
func (l *leases) finishRelease(r *frameRecord) {
	r.releasePlanes()
	r.lease.Release()
	r.lease = gstc.Lease{}
	l.give(r)
}

// releasePlanes drops the planes' pins and the entries' references.
func (r *frameRecord) releasePlanes() {
	for i := 0; i < r.nplanes; i++ {
		r.planes[i].view = nil
	}
	for i := 0; i < r.nmem; i++ {
		if r.views[i] != nil {
			r.views[i].Release() // before the entry: its last release closes the kept sets
			r.views[i] = nil
		}
		r.mems[i].Release()
		r.mems[i] = nil
	}
	r.nplanes, r.nmem = 0, 0
}

// give puts a record back; the last one back after retire lets go of the
// element.
func (l *leases) give(r *frameRecord) {
	l.mu.Lock()
	r.state = frameFree
	l.free = append(l.free, r.index)
	l.stats.leases.Add(-1)
	l.cond.Broadcast()
	done := l.retired && len(l.free) == len(l.frames)
	l.mu.Unlock()
	if done {
		l.held.Release()
	}
}

// retire is called at stop: no more frames are taken; the element is let go
// of now, or when the application releases its last frame.
func (l *leases) retire() {
	l.mu.Lock()
	l.retired, l.flushing = true, true
	l.cond.Broadcast()
	done := len(l.free) == len(l.frames)
	l.mu.Unlock()
	if done {
		l.held.Release()
	}
}

// abandon returns a record that was taken but never delivered (filling
// failed and undid what it had taken).
func (l *leases) abandon(r *frameRecord) { l.give(r) }

func (l *leases) setFlushing(on bool) {
	l.mu.Lock()
	l.flushing = on
	l.cond.Broadcast()
	l.mu.Unlock()
}

// closeAll leaves the brackets of frames the application still holds (at
// stop) and returns how many it left. It marks them under mu — so a
// Release racing it finds the bracket taken care of — and ends them after
// unlocking: closeBracket posts messages and pushes events, whose
// handlers (a bus sync handler, an upstream element) may release frames.
// A Release that arrives while its frame is being closed leaves the rest
// of the release to closeAll.
func (l *leases) closeAll() int {
	l.mu.Lock()
	var closing []*frameRecord
	for i := range l.frames {
		r := &l.frames[i]
		if r.state == frameHeld && !r.closed {
			r.closed, r.closingAtStop = true, true
			closing = append(closing, r)
		}
	}
	l.mu.Unlock()
	for _, r := range closing {
		l.closeBracket(r)
		l.mu.Lock()
		r.closingAtStop = false
		finish := r.releaseDeferred
		r.releaseDeferred = false
		l.mu.Unlock()
		if finish {
			l.finishRelease(r)
		}
	}
	return len(closing)
}

// closeBracket ends the frame's CPU access: SyncForDevice on the sink's
// import of each of its memories, which leaves the buffer's shared
// bracket (the END ioctl if no other reader, and no announcing source, is
// still inside); then, for an announced buffer, GstTensorSync phase=end
// sent upstream — before the buffer is released, so the producer hears
// of it while the frame is still in flight.
func (l *leases) closeBracket(r *frameRecord) {
	for i := 0; i < r.nmem; i++ {
		l.stats.syncs.Add(1)
		if err := r.mems[i].Tensor().SyncForDevice(r.access); err != nil {
			l.held.PostWarning(gstc.ResourceSync, "could not end CPU access to a frame: "+err.Error(), "")
		}
	}
	if r.announced {
		ts := r.sync
		ts.Phase = tensorsync.PhaseEnd
		l.held.PushTensorSync(tensorsync.Upstream, ts)
	}
	if l.postSync {
		l.postPhase(tensorsync.PhaseEnd, r)
	}
}

// postPhase posts a bracket phase on the bus (post-sync-messages=true).
func (l *leases) postPhase(phase tensorsync.Phase, r *frameRecord) {
	id := r.mems[0].Tensor().Identity()
	st := gst.NewStructure(tensorsync.StructureName)
	st.SetValue("phase", phase.String())
	st.SetValue("access", r.access.String())
	st.SetValue("dev", id.Dev)
	st.SetValue("ino", id.Ino)
	st.SetValue("pts", r.pts)
	st.SetValue("slot", uint(r.mems[0].Slot()))
	st.SetValue("announced", r.announced)
	if r.announced {
		st.SetValue("seqnum", uint(r.sync.Seqnum))
	}
	if !l.held.PostElementMessage(st) {
		cat.LogWarning(fmt.Sprintf("could not post the %v phase of slot %d", phase, r.mems[0].Slot()))
	}
}
