package frameengine

// endtally.go: which of a source's ring memories are in flight, kept in C
// (outring.h) so that the source's event vfunc counts the GstTensorSync
// end events readers send upstream — one a frame for each reader, e.g.
// tensorinfer — without a Go callback (about 0.15 µs a frame on this
// project's test VM; the count under the tally's lock costs tens of ns).

/*
#cgo nocallback gstc_end_tally_attach
#cgo nocallback gstc_end_tally_new_run
#cgo noescape gstc_end_tally_read
#cgo nocallback gstc_end_tally_read
#include "outring.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// EndTally counts, for a source element (tensorsrc), the GstTensorSync end
// events its readers send upstream: a reader end names a frame of the
// current run (NewRun) in one of the element's ring memories still in
// flight (in a frame buffer, not yet returned to its ring), an other end
// names none. Memories join it through their OutRing's tally
// (NewOutRing), from their Wrap until they are freed.
//
// The tally is C memory attached to the element (EndTallyOf) and freed
// once the element and every memory tracked in it are gone; the
// element's event vfunc counts each end event there (tensorsrc's
// basesrc.c) and calls into Go only for the other ends. Safe from any
// thread. The zero EndTally tracks nothing.
type EndTally struct{ t *C.GstcEndTally }

// EndTallyOf returns the tally of self (a source element), attaching
// it on the first call. self is
// borrowed; the tally lives as long as the element (and its memories).
func EndTallyOf(self gstglue.RawElement) EndTally {
	return EndTally{C.gstc_end_tally_attach((*C.GstElement)(unsafe.Pointer(elemP(self))))}
}

// NewRun starts a new run of the element: an end about a frame made
// before it (still downstream after a restart) is an other end.
func (t EndTally) NewRun() {
	if t.t != nil {
		C.gstc_end_tally_new_run(t.t)
	}
}

// Read returns the counts of reader and other ends since the tally was
// attached.
func (t EndTally) Read() (readerEnds, otherEnds uint64) {
	if t.t == nil {
		return 0, 0
	}
	var r, o C.guint64
	C.gstc_end_tally_read(t.t, &r, &o)
	return uint64(r), uint64(o)
}

// count counts end event ts as the event trampoline does and reports
// whether it was a reader end. For tests.
func (t EndTally) count(ts tensorsync.Info) bool {
	c := infoToC(ts)
	return C.gstc_end_tally_count(t.t, &c) != 0
}

// Unsafe returns the tally's address (a GstcEndTally, borrowed) for an
// element's C frame, nil for the zero EndTally.
func (t EndTally) Unsafe() unsafe.Pointer { return unsafe.Pointer(t.t) }
