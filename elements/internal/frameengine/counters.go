package frameengine

// counters.go: an element's counters in C (counters.h), read and reset
// by its Go side for the stats property.

/*
#include "counters.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// The indices the shared engine counts at; an element's own begin at
// CountersOwn.
const (
	RingWaits      = C.GSTC_RING_WAITS       // frames that waited for a free slot
	RingOutOpened  = C.GSTC_RING_OUT_OPENED  // slots' write brackets opened
	RingOutClosed  = C.GSTC_RING_OUT_CLOSED  // … and closed
	RingOutEnded   = C.GSTC_RING_OUT_ENDED   // closes that did the END ioctl
	RingSyncErrors = C.GSTC_RING_SYNC_ERRORS // ENDs that failed, and STARTs from C that did
	CountersOwn    = C.GSTC_COUNTERS_OWN
	CountersMax    = C.GSTC_COUNTERS_MAX
)

// Counters is an element's block of C counters: refcounted C memory. The
// zero value is no block.
type Counters struct{ p *C.GstcCounters }

// NewCounters returns a zeroed block with a reference of the caller's.
func NewCounters() Counters { return Counters{C.gstc_counters_new()} }

// CountersOf returns self's block with a reference of the caller's
// (attached on the first call; the element holds its own): Unref it.
func CountersOf(self gstglue.RawElement) Counters {
	return Counters{C.gstc_counters_ref(C.gstc_counters_of(elemP(self)))}
}

// Load reads counter i.
func (c Counters) Load(i int) uint64 { return uint64(C.gstc_counter_load(c.p, C.int(i))) }

// Store sets counter i.
func (c Counters) Store(i int, v uint64) { C.gstc_counter_store(c.p, C.int(i), C.guint64(v)) }

// Add adds n (may be negative) to counter i.
func (c Counters) Add(i int, n int64) { C.gstc_count(c.p, C.int(i), C.guint64(n)) }

// Reset zeroes every counter but those keep names.
func (c Counters) Reset(keep ...int) {
next:
	for i := range CountersMax {
		for _, k := range keep {
			if i == k {
				continue next
			}
		}
		c.Store(i, 0)
	}
}

// Unref drops a reference (the zero value: a no-op).
func (c Counters) Unref() { C.gstc_counters_unref(c.p) }

// IsZero reports whether c is no block.
func (c Counters) IsZero() bool { return c.p == nil }

// Unsafe returns the block's address (a GstcCounters, borrowed) for an
// element's C frame.
func (c Counters) Unsafe() unsafe.Pointer { return unsafe.Pointer(c.p) }
