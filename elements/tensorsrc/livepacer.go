package tensorsrc

// livepacer.go: the clock wait of a live source, done in the subclass's
// create instead of by GstBaseSrc.
//
// Why: GstBaseSrc paces a pseudo-live source (one with get_times, as
// videotestsrc) after create, and when PLAYING→PAUSED unschedules that
// wait it returns GST_FLOW_FLUSHING, which pauses the source's task;
// PAUSED→PLAYING restarts the task — unless the streaming thread pauses
// it just after the restart (the pause happens outside the live lock).
// An application that goes PLAYING→PAUSED→PLAYING quickly then has a
// live pipeline that never reaches PLAYING again (1.22 and later, seen
// as a tensorsrc soak test stalling about one run in ten). A wait in
// create that a pause does not interrupt never returns FLUSHING for a
// pause: the frame is pushed when PLAYING resumes, as GstBaseSrc does
// with any frame create returns while paused. Flushes and stops end the
// wait (SetUnlocked from the element's unlock).

/*
#include "livepacer.h"
*/
import "C"

import (
	"sync"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// livePacer paces a live source's frames on its pipeline clock. It owns
// a C allocation: Close frees it (idempotent); the element must not wait
// on it or unlock it after Close. Its methods are safe from any thread.
type livePacer struct {
	mu sync.Mutex
	p  *C.GstcLivePacer
}

// newLivePacer returns a pacer, unlocked state false.
func newLivePacer() *livePacer { return &livePacer{p: C.gstc_live_pacer_new()} }

// Wait blocks until running time pts — a stream time, shifted by the
// offset that makes the run's first frame (and the first after each
// PAUSED→PLAYING) "now" — and returns the shifted PTS to stamp the
// frame with. ok is false when a flush or stop (SetUnlocked(true)) ended
// the wait; then the frame is not pushed. Without a clock, or for an
// invalid pts, it returns at once with pts unchanged.
func (l *livePacer) Wait(self gstglue.RawElement, pts uint64) (shifted uint64, ok bool) {
	l.mu.Lock()
	p := l.p
	l.mu.Unlock()
	if p == nil {
		return pts, false
	}
	t := C.GstClockTime(pts)
	r := C.gstc_live_pacer_wait(p, elemP(self), &t)
	return uint64(t), r != C.GST_CLOCK_UNSCHEDULED
}

// SetUnlocked(true) ends a Wait in progress and makes later ones return
// at once (the element's unlock); SetUnlocked(false) ends that (its
// unlock_stop) and realigns the next frame on the clock.
func (l *livePacer) SetUnlocked(unlocked bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.p != nil {
		var b C.gboolean
		if unlocked {
			b = 1
		}
		C.gstc_live_pacer_set_unlocked(l.p, b)
	}
}

// Close frees the pacer. No Wait may be in progress.
func (l *livePacer) Close() {
	l.mu.Lock()
	p := l.p
	l.p = nil
	l.mu.Unlock()
	if p != nil {
		C.gstc_live_pacer_free(p)
	}
}
