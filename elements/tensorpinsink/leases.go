package tensorpinsink

import (
	"fmt"
	"sync"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
)

// leases hands out frames (at most max-leases at once) and takes them back.
// It outlives the streaming state: frames the application still holds
// after stop refer to it, so it holds the element and its sink pad (for the
// upstream end events) until it is retired and the last frame is released.
type leases struct {
	held     gstc.Held
	stats    *counters
	postSync bool

	mu       sync.Mutex
	cond     sync.Cond
	frames   []Frame
	free     []int
	flushing bool
	retired  bool
}

func newLeases(elem *gst.Element, stats *counters, max int, postSync bool) *leases {
	l := &leases{held: gstc.Hold(elem, "sink"), stats: stats, postSync: postSync,
		frames: make([]Frame, max), free: make([]int, 0, max)}
	l.cond.L = &l.mu
	for i := max - 1; i >= 0; i-- {
		l.free = append(l.free, i)
		l.frames[i].index = i
		l.frames[i].lessor = l
	}
	return l
}

// take returns a free frame, waiting while all are held (or, with drop,
// returning nil at once). It returns FlowFlushing when woken by a flush or
// stop.
func (l *leases) take(drop bool) (*Frame, gst.FlowReturn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.free) == 0 && !l.flushing {
		if drop {
			l.stats.dropped.Add(1)
			return nil, gst.FlowOK
		}
		l.stats.waitsForLease.Add(1)
		for len(l.free) == 0 && !l.flushing {
			l.cond.Wait()
		}
	}
	if l.flushing {
		return nil, gst.FlowFlushing
	}
	i := l.free[len(l.free)-1]
	l.free = l.free[:len(l.free)-1]
	f := &l.frames[i]
	f.released.Store(false)
	f.closed.Store(false)
	l.stats.leases.Add(1)
	return f, gst.FlowOK
}

// give puts a released frame back; the last one back after retire lets go
// of the element.
func (l *leases) give(f *Frame) {
	l.mu.Lock()
	l.free = append(l.free, f.index)
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

// abandon returns a frame that was taken but never delivered.
func (l *leases) abandon(f *Frame) {
	f.released.Store(true)
	l.give(f)
}

func (l *leases) setFlushing(on bool) {
	l.mu.Lock()
	l.flushing = on
	l.cond.Broadcast()
	l.mu.Unlock()
}

// closeAll closes the brackets of frames the application still holds (at
// stop) and returns how many it closed.
func (l *leases) closeAll() int {
	l.mu.Lock()
	held := make([]*Frame, 0, len(l.frames))
	isFree := make(map[int]bool, len(l.free))
	for _, i := range l.free {
		isFree[i] = true
	}
	for i := range l.frames {
		if !isFree[i] {
			held = append(held, &l.frames[i])
		}
	}
	l.mu.Unlock()
	n := 0
	for _, f := range held {
		if !f.released.Load() && f.closed.CompareAndSwap(false, true) {
			l.closeBracket(f)
			n++
		}
	}
	return n
}

// closeBracket ends the frame's CPU access: SyncForDevice on the sink's
// import (the END ioctl for a dma-buf), then, for a bracket opened
// upstream, GstTensorSync phase=end sent upstream — before the buffer is
// released, so the opener learns of it first.
func (l *leases) closeBracket(f *Frame) {
	l.stats.syncs.Add(1)
	if err := f.entry.Tensor().SyncForDevice(f.access); err != nil {
		l.held.PostWarning(gstc.ResourceSync, "could not end CPU access to a frame: "+err.Error(), "")
	}
	if f.adopted {
		ts := f.sync
		ts.Phase = gstc.PhaseEnd
		l.held.PushTensorSync(gstc.Upstream, ts)
	}
	if l.postSync {
		l.postPhase(gstc.PhaseEnd, f)
	}
}

// postPhase posts a bracket phase on the bus (post-sync-messages=true).
func (l *leases) postPhase(phase gstc.Phase, f *Frame) {
	id := f.entry.Tensor().Identity()
	st := gst.NewStructure(gstc.TensorSyncName)
	st.SetValue("phase", phase.String())
	st.SetValue("access", f.access.String())
	st.SetValue("dev", id.Dev)
	st.SetValue("ino", id.Ino)
	st.SetValue("pts", f.pts)
	st.SetValue("slot", uint(f.slot))
	st.SetValue("adopted", f.adopted)
	if !l.held.PostElementMessage(st) {
		cat.LogWarning(fmt.Sprintf("could not post the %v phase of slot %d", phase, f.slot))
	}
}
