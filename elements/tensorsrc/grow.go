package tensorsrc

// grow.go: the ring grows, up to max-pool-size, where waiting for a free
// slot cannot end — as a GstBufferPool allocates up to its max-buffers
// when downstream holds every buffer.
//
// In PAUSED a prerolled sink holds its buffer and a queue in front of it
// holds what it has, and neither frees anything until PLAYING. When they
// hold every slot while another sink still waits for its preroll — a tee
// whose one branch's queue took the whole ring while the other branch's
// sink, done with those frames in PLAYING, needs a new one — the pipeline
// never prerolls: the source waits for a slot that nothing will free.
// So a wait for a free slot that lasts (growAfterFirst, then twice as
// long each time in a row, at most growAfterMax) while the source is
// PAUSED and a bin it is in has a state change pending (a preroll)
// gets a new slot: allocated, pinned and wrapped once, like the others,
// kept for the ring's life (a new pin, whose address is stable from then
// on), counted in stats pool-grown and ring-size. Growth is one slot at
// a time and one frame's worth: that frame reaches every branch, and the
// starving sink prerolls on it.
//
// What it does not grow for: back-pressure in PLAYING (a slow sink, the
// application holding frames) — sinks free their buffers there, the wait
// ends; a prerolled pipeline in PAUSED (no state change pending): its
// queues filling up is not a stall; a wait shorter than the delay (a
// preroll under way, the first frame still on its way to a slow sink).
// The delay doubling with each growth in a row keeps a long stall that
// growth does not end (a preroll pending for another reason) to a few
// slots: one per doubling of the stall.
//
// Where: create's wait is in C (srcframe.c, take_slot), which calls into
// Go only to grow (gstcGoSrcGrow), never per frame; pattern=app's
// Acquire waits in C too and grows from Go (Source.Acquire). A new slot
// is added to the C ring taken (OutRing.AddTakenSlot), so that no one
// else takes it before the grower has published it (ring.slots, the C
// frame's bytes) and used it.

/*
#include "srcframe.h"
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// The first wait for a free slot after which the ring grows, and the
// longest (srcframe.h's GSTC_SRC_GROW_AFTER_US and _MAX_US).
const (
	growAfterFirst = time.Duration(C.GSTC_SRC_GROW_AFTER_US) * time.Microsecond
	growAfterMax   = time.Duration(C.GSTC_SRC_GROW_AFTER_MAX_US) * time.Microsecond
)

// gstcGoSrcGrow is the C frame's call for one slot more (its ring out,
// every slot downstream while a preroll waits): the new slot's index,
// taken for the frame, or -1 — the ring is not current or at its bound,
// or the allocation failed (a warning says so) — and the frame waits as
// before.
//
//export gstcGoSrcGrow
func gstcGoSrcGrow(src *C.GstPushSrc, h C.uintptr_t, out *C.GstcOutRing) (ret C.int) {
	self := gstglue.RawElementOf(unsafe.Pointer(src))
	defer gstglue.RecoverTrampoline(self, "tensorsrc ring growth", &ret, C.int(-1))
	e, ok := gstglue.InstanceOf[*element](unsafe.Pointer(src), uintptr(h))
	if !ok {
		return -1
	}
	e.mu.Lock()
	var r *ring
	if st := e.st; st != nil && st.ring != nil && st.ring.out.Unsafe() == unsafe.Pointer(out) {
		r = st.ring
	}
	e.mu.Unlock()
	if r == nil {
		return -1
	}
	sl := e.grow(self, r, true)
	if sl == nil {
		return -1
	}
	return C.int(sl.idx)
}

// grow adds one slot to r, taken for the caller (who pushes it or gives
// it back), if r is still the current ring and below its bound; nil
// otherwise, or when the allocation failed (a warning posted from self:
// r grows no more). forFrame: the slot is the C frame's (create's), whose
// bytes it writes. No lock held on entry; growMu makes growths one at a
// time.
func (e *element) grow(self gstglue.RawElement, r *ring, forFrame bool) *Slot {
	e.growMu.Lock()
	defer e.growMu.Unlock()
	e.mu.Lock()
	st := e.st
	if st == nil || st.ring != r || r.closed || r.growOff || len(r.slots) >= r.maxSlots {
		e.mu.Unlock()
		return nil
	}
	i, l := len(r.slots), r.format.Layout()
	e.mu.Unlock()

	sl, err := newSlot(r, i, l, true)
	e.mu.Lock()
	if e.st != st || st.ring != r || r.closed {
		// Stopped or renegotiated meanwhile (the C ring, closed, may
		// have refused the slot): a slot added is the retired ring's,
		// and its give drops it.
		e.mu.Unlock()
		if err == nil {
			sl.release()
		}
		return nil
	}
	if err != nil {
		r.growOff = true
		e.mu.Unlock()
		gstglue.PostWarningRaw(self, gstglue.ResourceNoSpaceLeft,
			fmt.Sprintf("every one of the ring's %d tensors is held downstream while a sink waits for its preroll, "+
				"and another could not be allocated (%d bytes from %s): %v; the source waits for one to come back", i, r.size, r.backend.name, err), "")
		return nil
	}
	r.slots = append(r.slots, sl)
	n := len(r.slots)
	st.stats.ringSize.Store(uint64(n))
	st.stats.grown.Add(1)
	if forFrame {
		configureSlot(st, sl) // create runs on this thread: it is in this call
	}
	e.mu.Unlock()
	cat.LogInfo(fmt.Sprintf("every tensor of the ring was held downstream while a sink waited for its preroll: "+
		"the ring grew to %d (at most %d)", n, r.maxSlots))
	return sl
}

// prerollWaits reports whether the source is PAUSED while a bin it is in
// has a state change pending: a sink's preroll (srcframe.h's
// gstc_src_preroll_waits).
func (e *element) prerollWaits() bool {
	return C.gstc_src_preroll_waits((*C.GstElement)(e.self)) != 0
}

// acquireGrowAfter is how long Acquire waits for a free slot of r before
// the ring may grow (0: it does not grow: Acquire waits for a free slot
// or an interrupt alone). Called with e.mu held.
func (r *ring) acquireGrowAfter() time.Duration {
	if r.growOff || len(r.slots) >= r.maxSlots {
		return 0
	}
	return time.Duration(r.growAfter.Load())
}

// grewForAcquire doubles the next delay (a growth in a row); tookSlot
// puts it back (a slot came back).
func (r *ring) grewForAcquire() {
	r.growAfter.Store(int64(min(2*time.Duration(r.growAfter.Load()), growAfterMax)))
}

func (r *ring) tookSlot() { r.growAfter.Store(int64(growAfterFirst)) }
