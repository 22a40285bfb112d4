package frameengine

// wake.go: an element's flush and stop flags in C (see wake.h), which
// end the waits of its frame engine on the streaming thread.

/*
#include <poll.h>
#include "wake.h"

// For tests: a flag in C memory that a wait waits for, standing in for
// a free output slot.
static gboolean
gstc_wake_test_flag_set (gpointer flag)
{
  return g_atomic_int_get ((gint *) flag) != 0;
}

static gboolean
gstc_wake_test_wait_flag (GstcWake * w, gint * flag)
{
  return gstc_wake_wait_until (w, gstc_wake_test_flag_set, flag);
}

// For tests: whether w's eventfd polls readable now.
static gboolean
gstc_wake_test_eventfd_readable (GstcWake * w)
{
  struct pollfd p = { w->efd, POLLIN, 0 };

  return w->efd >= 0 && poll (&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}
*/
import "C"

import (
	"syscall"
	"time"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Wake is an element's wake (wake.h): attached for the element's
// lifetime, so it is safe to use from any thread while the element
// lives.
type Wake struct{ p *C.GstcWake }

// WakeOf returns self's wake, attaching it on the first call.
func WakeOf(self gstglue.RawElement) Wake { return Wake{C.gstc_wake_of(elemP(self))} }

// NewWake returns a wake of no element, without an eventfd (it owns no
// fd), for waits off the streaming thread that flags must not end
// (OutRing.TakeUntilInterrupted; Interrupt ends them). The caller owns
// one reference (Unref it: from a cleanup of its owner, say); each ring
// it is set on holds its own until the ring closes.
func NewWake() Wake { return Wake{C.gstc_wake_new()} }

// Unref drops the caller's reference of a wake from NewWake.
func (w Wake) Unref() { C.gstc_wake_unref(w.p) }

// Gen returns the number of interrupts so far: read it before deciding
// to wait (TakeUntilInterrupted).
func (w Wake) Gen() int32 { return int32(C.gstc_wake_gen(w.p)) }

// Interrupt ends every wait whose generation was read before it (a
// stop, a new ring, the end of the stream, a cancelled context); it sets
// no flag.
func (w Wake) Interrupt() { C.gstc_wake_interrupt(w.p) }

// SetFlushing sets or clears the flush flag; setting it ends every wait.
func (w Wake) SetFlushing(on bool) { C.gstc_wake_set_flushing(w.p, cbool(on)) }

// SetStopping sets or clears the stop flag (the change to READY; cleared
// at the next start); setting it ends every wait.
func (w Wake) SetStopping(on bool) { C.gstc_wake_set_stopping(w.p, cbool(on)) }

// SetSeeking sets or clears the seek flag (a non-flushing seek waiting
// for the streaming thread to leave its frame); setting it ends every
// wait.
func (w Wake) SetSeeking(on bool) { C.gstc_wake_set_seeking(w.p, cbool(on)) }

// Ended reports whether a flush or a stop is under way.
func (w Wake) Ended() bool { return C.gstc_wake_ended(w.p) != 0 }

// Waiters returns the threads waiting on w now (tests: a wait under
// way).
func (w Wake) Waiters() int { return int(C.g_atomic_int_get(&w.p.waiters)) }

// wakeTestFlag is a flag in C memory (the test owns it: free) that tests
// of wake.c wait for in place of a free output slot.
type wakeTestFlag struct{ p *C.gint }

func newWakeTestFlag() wakeTestFlag {
	return wakeTestFlag{(*C.gint)(C.calloc(1, C.sizeof_gint))}
}

func (f wakeTestFlag) set()  { C.g_atomic_int_set(f.p, 1) }
func (f wakeTestFlag) free() { C.free(unsafe.Pointer(f.p)) }

// waitFor is gstc_wake_wait_until on f (tests): true once f is set and
// the wait is signalled, false when a flush, a stop or a seek ended it.
func (w Wake) waitFor(f wakeTestFlag) bool {
	return C.gstc_wake_test_wait_flag(w.p, f.p) != 0
}

// signal is gstc_wake_signal, what C calls when it frees a slot (tests).
func (w Wake) signal() { C.gstc_wake_signal(w.p) }

// eventfdReadable reports whether w's eventfd (the wake's own) polls
// readable now (tests).
func (w Wake) eventfdReadable() bool { return C.gstc_wake_test_eventfd_readable(w.p) != 0 }

// Unsafe returns the wake's address (a GstcWake, borrowed) for an
// element's C frame.
func (w Wake) Unsafe() unsafe.Pointer { return unsafe.Pointer(w.p) }

// The results of PollInterruptible.
const (
	PollReady       = 0
	PollTimedOut    = 1
	PollInterrupted = 3
)

// PollInterruptible polls fd for events (a dma-buf's fences: POLLOUT for
// a write) for at most timeout (0: no bound) until an interrupt of w
// after gen was read (Gen): PollReady, PollTimedOut or PollInterrupted,
// with the time it slept (0 when fd was ready at once), or a poll error
// (an errno). The calling goroutine's thread blocks in C meanwhile: an
// owner's own wait (NewWake), not the streaming thread's. fd stays the
// caller's.
func (w Wake) PollInterruptible(gen int32, fd int, events int16, timeout time.Duration) (result int, waited time.Duration, err error) {
	ms := -1
	if timeout > 0 {
		ms = max(int(timeout/time.Millisecond), 1)
	}
	var ns C.gint64
	r := int(C.gstc_wake_poll_interruptible(w.p, C.gint(gen), C.int(fd), C.short(events), C.int(ms), &ns))
	if r < 0 {
		return 0, time.Duration(ns), syscall.Errno(-r)
	}
	return r, time.Duration(ns), nil
}

// The results of gstc_fences_wait (GstcFencesResult), for tests.
const (
	fencesReady    = int(C.GSTC_FENCES_SIGNALLED)
	fencesFlushing = int(C.GSTC_FENCES_ENDED)
	fencesTimedOut = int(C.GSTC_FENCES_TIMED_OUT)
)

// fencesWaitRead is gstc_fences_wait for a read (POLLIN) of fd, bounded
// by timeoutMs (negative: no bound) beside w (tests): its result and
// whether the poll slept. fd stays the caller's.
func fencesWaitRead(fd int, w Wake, timeoutMs int) (result int, waited bool) {
	var f C.GstcFencesWait
	r := C.gstc_fences_wait(C.int(fd), C.POLLIN, w.p, C.int(timeoutMs), &f)
	return int(r), f.waited != 0
}
