package frameengine

// wake.go: an element's flush and stop flags in C (see wake.h), which
// end the waits of its frame engine on the streaming thread.

/*
#include "wake.h"
*/
import "C"
import "github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"

// Wake is an element's wake (wake.h): attached for the element's
// lifetime, so it is safe to use from any thread while the element
// lives.
type Wake struct{ p *C.GstcWake }

// WakeOf returns self's wake, attaching it on the first call.
func WakeOf(self gstglue.RawElement) Wake { return Wake{C.gstc_wake_of(elemP(self))} }

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
func (w Wake) Ended() bool { return gobool(C.gstc_wake_ended(w.p)) }

// Waiters returns the threads waiting on w now (tests: a wait under
// way).
func (w Wake) Waiters() int { return int(C.g_atomic_int_get(&w.p.waiters)) }
