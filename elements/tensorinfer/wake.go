package tensorinfer

import (
	"sync"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
)

// waker ends a streaming thread's wait for a free output slot the moment
// the element must not wait any longer: a FLUSH_START on the sink pad
// (a flushing seek; the pad is already flushing) or the state change to
// READY (before GstBaseTransform deactivates its pads, which takes the
// stream lock the waiting thread holds). GstBaseTransform has no unlock
// vfunc; these are the two ways in. The wait itself is a select on the
// ring's freed signal and the channel armed here, so it costs nothing
// while it lasts and ends at once.
type waker struct {
	mu sync.Mutex
	// ch is closed to wake every waiter and replaced by the next arm.
	ch chan struct{}
	// flushing: FLUSH_START seen, FLUSH_STOP not yet; stopping: the
	// change to READY is under way (cleared by the next READY→PAUSED).
	flushing, stopping bool
}

// arm returns the channel a waiter selects on, and whether it must not
// wait at all. A waiter arms first and checks after, so a wake that
// comes between is never missed.
func (w *waker) arm() (<-chan struct{}, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch, w.flushing || w.stopping
}

// setFlushing and setStopping record the flags; raising either wakes
// every waiter. They never block.
func (w *waker) setFlushing(v bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushing = v
	w.wakeLocked()
}

func (w *waker) setStopping(v bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopping = v
	w.wakeLocked()
}

func (w *waker) wakeLocked() {
	if (w.flushing || w.stopping) && w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}

// SinkFlushStart wakes a streaming thread waiting for a free output slot
// (the flushing thread is about to wait for its stream lock).
func (e *element) SinkFlushStart(self gstc.RawElement) {
	e.wake.setFlushing(true)
}

// ChangeState wakes a waiting streaming thread before GstBaseTransform
// deactivates the pads on the way to READY, and re-arms the wait on the
// way back to PAUSED.
func (e *element) ChangeState(el *gst.Element, t gst.StateChange) (ret gst.StateChangeReturn) {
	defer gstc.Guard(el, "change-state", &ret, gst.StateChangeFailure)
	switch t {
	case gst.StateChangePausedToReady:
		e.wake.setStopping(true)
	case gst.StateChangeReadyToPaused:
		e.wake.setStopping(false)
		e.wake.setFlushing(false)
	}
	return el.ParentChangeState(t)
}
