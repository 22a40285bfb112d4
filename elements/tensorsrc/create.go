package tensorsrc

import (
	"context"
	"errors"
	"fmt"
	"math/bits"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// CreateRaw implements gstc.RawCreator (GstPushSrcClass.create, installed
// by gstc.InstallPushSrcCreate: no go-gst wrapper of the element or the
// buffer, no Go allocation per frame): it takes the next slot (a free
// one, waiting while all are in flight; or the next one the application
// pushed), opens its CPU bracket and writes the pattern (built-in
// patterns), and returns a new buffer around the slot's persistent
// memory, which comes back to the ring when its last user drops it. With
// handoff=adopt the bracket stays open until then and the announcer probe
// pushes its GstTensorSync begin event right before the buffer; with
// handoff=close it ends here, after the write. self is borrowed for the
// call.
func (e *element) CreateRaw(self gstc.RawElement) (gst.FlowReturn, gstc.RawBuffer) {
	e.mu.Lock()
	st := e.st
	if st == nil {
		e.mu.Unlock()
		return gst.FlowFlushing, gstc.RawBuffer{}
	}
	r := st.ring
	if r == nil {
		e.mu.Unlock()
		gstc.PostErrorRaw(self, gstc.CoreNegotiation, "no caps were negotiated before the first buffer", "")
		return gst.FlowNotNegotiated, gstc.RawBuffer{}
	}
	sl, flow := e.nextSlotLocked(st, r)
	if sl == nil {
		e.mu.Unlock()
		return flow, gstc.RawBuffer{}
	}
	if st.seekPending {
		// The first frame after a seek (or the start): the one at the
		// segment's position, now that the frame rate is known.
		st.frame, st.seekPending = frameAt(st.seekPos, st.fpsN, st.fpsD), false
	}
	n := st.frame
	st.frame++
	sl.state, sl.seq = slotInFlight, uint32(n)
	sl.held = false // moved into the buffer below
	fpsN, fpsD := st.fpsN, st.fpsD
	app := st.pattern == patternApp
	closeAfterWrite := st.closeAfterWrite
	// An app slot whose bracket is closed (SetWriteFence: a device wrote
	// it) has no bracket to announce; readers open their own and wait for
	// the device's fence.
	announce := !closeAfterWrite && (!app || sl.open)
	e.mu.Unlock()

	pts, dur := frameTimes(n, fpsN, fpsD)
	if app {
		pts = sl.pts
	}
	if st.pacer != nil {
		// Live: wait for the frame's time here, not in GstBaseSrc (see
		// gstc.LivePacer). A flush or stop gives the slot back.
		var ok bool
		if pts, ok = st.pacer.Wait(self, pts); !ok {
			e.mu.Lock()
			if app {
				sl.state, sl.held = slotQueued, true
				st.queue = append(st.queue, nil)
				copy(st.queue[1:], st.queue)
				st.queue[0] = sl
			} else {
				sl.freeLocked()
				sl.held = true
			}
			e.cond.Broadcast()
			e.mu.Unlock()
			return gst.FlowFlushing, gstc.RawBuffer{}
		}
	}

	if !app {
		// The bracket opens before the CPU writes and stays open while the
		// buffer travels: downstream readers (inference) run inside it.
		// The wait for the slot's fences runs with no lock held; a flush
		// or stop (Unlock) ends it.
		stopped := func() bool { return st.flushing || st.seekWake || e.st != st || sl.r.closed }
		if err := e.openForWrite(context.Background(), st, sl, stopped); err != nil {
			e.mu.Lock()
			sl.freeLocked()
			sl.held = true
			e.cond.Broadcast()
			e.mu.Unlock()
			if errors.Is(err, errWaitInterrupted) {
				return gst.FlowFlushing, gstc.RawBuffer{}
			}
			gstc.PostErrorRaw(self, gstc.ResourceSync, fmt.Sprintf("slot %d: DMA_BUF_IOCTL_SYNC start: %v", sl.idx, err), "")
			return gst.FlowError, gstc.RawBuffer{}
		}
		e.mu.Lock()
		sl.open = true
		e.mu.Unlock()
		fill(sl.pin.Bytes(), st.pattern, n)
	}
	if closeAfterWrite {
		// handoff=close: the write is done, so end the bracket now — a
		// device reader downstream then sees what the CPU wrote. Readers
		// on the CPU open their own.
		e.mu.Lock()
		sl.closeBracketLocked()
		e.mu.Unlock()
	}

	// The slot's reference moves into the buffer; from here on, dropping
	// the buffer (and any copy sharing the memory) frees the slot and
	// closes its bracket if no one downstream did.
	buf := gstc.NewFrameBuffer(sl.m, pts, dur, n, tensorsync.Info{
		Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessReadWrite,
		Dev: sl.id.Dev, Ino: sl.id.Ino, Offset: uint64(sl.t.Offset()), PTS: pts, Seqnum: uint32(n),
	}, announce)
	if r.hasVMeta {
		err := r.vmetaErr
		if err == nil {
			err = gstc.AddVideoMeta(buf, r.vmeta)
		}
		if err != nil {
			gstc.UnrefRawBuffer(buf)
			gstc.PostErrorRaw(self, gstc.CoreFailed, fmt.Sprintf("video meta: %v", err), "")
			return gst.FlowError, gstc.RawBuffer{}
		}
	}
	st.stats.frames.Add(1)
	return gst.FlowOK, buf
}

// nextSlotLocked waits for the slot of the next frame: a free one for
// the built-in patterns, the oldest pushed one for pattern=app. It
// returns nil and the flow to return when flushing (Unlock) or, for
// pattern=app, at the end of stream. While it waits for a free slot,
// st.slotWaiters counts it.
func (e *element) nextSlotLocked(st *state, r *ring) (*Slot, gst.FlowReturn) {
	sl, flow, waited := e.awaitSlotLocked(st, r)
	if waited {
		st.slotWaiters--
	}
	return sl, flow
}

// awaitSlotLocked is nextSlotLocked's wait; waited reports that it
// waited for a free slot (counted in waits and st.slotWaiters).
func (e *element) awaitSlotLocked(st *state, r *ring) (sl *Slot, flow gst.FlowReturn, waited bool) {
	for {
		if st.flushing || st.seekWake || e.st != st {
			return nil, gst.FlowFlushing, waited
		}
		if st.pattern == patternApp {
			if len(st.queue) > 0 {
				sl := st.queue[0]
				copy(st.queue, st.queue[1:])
				st.queue = st.queue[:len(st.queue)-1]
				return sl, gst.FlowOK, waited
			}
			if st.eos {
				return nil, gst.FlowEOS, waited
			}
		} else if sl := r.takeFreeLocked(); sl != nil {
			return sl, gst.FlowOK, waited
		} else if !waited {
			// Every slot is downstream: back-pressure, not a drop.
			waited = true
			st.stats.waits.Add(1)
			st.slotWaiters++
		}
		e.cond.Wait()
	}
}

// fill writes the pattern of frame n into b: byte i is n*7+i (counter),
// i (gradient) or 0 (black), or leaves b as it is (none). It writes one 256-byte period and doubles
// it with copy, so a frame costs a few memmoves, not a byte loop.
func fill(b []byte, p pattern, n uint64) {
	switch p {
	case patternBlack:
		clear(b)
		return
	case patternNone:
		return
	}
	var base byte
	if p == patternCounter {
		base = byte(n * 7)
	}
	k := min(256, len(b))
	for i := 0; i < k; i++ {
		b[i] = base + byte(i)
	}
	for k < len(b) {
		k += copy(b[k:], b[:k])
	}
}

// frameTimes returns the PTS and duration of frame n at fpsN/fpsD
// (n×fpsD/fpsN seconds, without drift), or ClockTimeNone for a variable
// or unknown rate.
func frameTimes(n uint64, fpsN, fpsD int) (pts, dur uint64) {
	if fpsN <= 0 || fpsD <= 0 {
		return gstc.ClockTimeNone, gstc.ClockTimeNone
	}
	at := func(k uint64) uint64 {
		hi, lo := bits.Mul64(k, uint64(fpsD)*1_000_000_000)
		if hi >= uint64(fpsN) {
			return gstc.ClockTimeNone
		}
		q, _ := bits.Div64(hi, lo, uint64(fpsN))
		return q
	}
	pts = at(n)
	next := at(n + 1)
	if pts == gstc.ClockTimeNone || next == gstc.ClockTimeNone {
		return pts, gstc.ClockTimeNone
	}
	return pts, next - pts
}
