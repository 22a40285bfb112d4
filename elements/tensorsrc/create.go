package tensorsrc

import (
	"context"
	"errors"
	"fmt"

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
		st.steady.SetFrame(frameAt(st.seekPos, st.fpsN, st.fpsD))
		st.seekPending = false
	}
	n := st.steady.NextFrame()
	app := st.pattern == patternApp
	if app {
		sl.state, sl.seq = slotInFlight, uint32(n)
		sl.held = false // moved into the buffer below
	}
	fpsN, fpsD := st.fpsN, st.fpsD
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
			if !app {
				// No lock: a give may call slotFreed, which takes e.mu.
				r.out.Give(sl.idx)
				return gst.FlowFlushing, gstc.RawBuffer{}
			}
			e.mu.Lock()
			sl.state, sl.held = slotQueued, true
			st.queue = append(st.queue, nil)
			copy(st.queue[1:], st.queue)
			st.queue[0] = sl
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
			r.out.Give(sl.idx)
			if errors.Is(err, errWaitInterrupted) {
				return gst.FlowFlushing, gstc.RawBuffer{}
			}
			gstc.PostErrorRaw(self, gstc.ResourceSync, fmt.Sprintf("slot %d: opening its CPU bracket: %v", sl.idx, err), "")
			return gst.FlowError, gstc.RawBuffer{}
		}
		fill(sl.pin.Bytes(), st.pattern, n)
		if closeAfterWrite {
			// handoff=close: the write is done, so end the bracket now — a
			// device reader downstream then sees what the CPU wrote. Readers
			// on the CPU open their own.
			r.out.CloseWrites(sl.idx)
		}
	} else if closeAfterWrite {
		e.mu.Lock()
		sl.closeBracketLocked()
		e.mu.Unlock()
	}

	// The slot's reference moves into the buffer; from here on, dropping
	// the buffer (and any copy sharing the memory) frees the slot and
	// closes its bracket if no one downstream did.
	m := sl.m
	if !app {
		var rest [gstc.MaxOutTensors - 1]gstc.RawMemory // one tensor a slot: unused
		m, _ = r.out.Push(sl.idx, &rest)
	}
	buf := gstc.NewFrameBuffer(m, pts, dur, n, tensorsync.Info{
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
	if !app && st.pacer == nil {
		e.mu.Lock()
		e.enableSteadyLocked(st, r)
		e.mu.Unlock()
	}
	return gst.FlowOK, buf
}

// enableSteadyLocked lets the create trampoline make the next frames of
// r in C (gstc.SrcSteady), configured as this create made its frame, if
// it is not already: from the first frame after a start, a seek, a caps
// change or a new ring, all of which disable it. Called on the streaming
// thread, where the trampoline reads it.
func (e *element) enableSteadyLocked(st *state, r *ring) {
	if st.steady.Enabled() || st.ring != r || r.closed || r.out == nil || st.seekPending || e.st != st || fenceStandIn.Load() {
		return
	}
	st.steady.SetRing(r.out, st.stats.c)
	for i, sl := range r.slots {
		st.steady.SetSlot(i, sl.pin.Bytes())
	}
	var vmeta *gstc.VideoMetaLayout
	if r.hasVMeta {
		vmeta = r.vmeta
	}
	st.steady.Configure(cPattern(st.pattern), st.closeAfterWrite, st.fpsN, st.fpsD, vmeta)
	st.steady.Enable(true)
}

// disableSteadyLocked makes the next frame Go's (it enables the steady
// frame again, with what changed). Call it where no create runs: on the
// streaming thread, under the stream lock, or stopped.
func (st *state) disableSteadyLocked() {
	st.steady.Enable(false)
}

// cPattern is p as gstc.SrcSteady writes it (a built-in pattern).
func cPattern(p pattern) int {
	switch p {
	case patternGradient:
		return gstc.SrcGradient
	case patternBlack:
		return gstc.SrcBlack
	case patternNone:
		return gstc.SrcNone
	}
	return gstc.SrcCounter
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
		} else if i := r.out.TakeOrWait(); i >= 0 {
			// TakeOrWait under e.mu: a slot freed after it calls
			// slotFreed, which waits for e.mu, so its broadcast comes
			// after the Wait below has released it.
			return r.slots[i], gst.FlowOK, waited
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
// i (gradient) or 0 (black), or leaves b as it is (none) — as the steady
// frame in C does (gstc.FillPattern, the one implementation).
func fill(b []byte, p pattern, n uint64) {
	if p == patternApp {
		return
	}
	gstc.FillPattern(b, cPattern(p), n)
}

// frameTimes returns the PTS and duration of frame n at fpsN/fpsD
// (n×fpsD/fpsN seconds, without drift), or ClockTimeNone for a variable
// or unknown rate — as the steady frame in C stamps them
// (gstc.FrameTimes, the one implementation).
func frameTimes(n uint64, fpsN, fpsD int) (pts, dur uint64) {
	return gstc.FrameTimes(n, fpsN, fpsD)
}
