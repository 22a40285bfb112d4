package tensorsrc

import (
	"fmt"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// CreateRaw implements gstc.RawCreator (GstPushSrcClass.create,
// installed by gstc.InstallPushSrcCreate: no go-gst wrapper of the
// element or the buffer, no Go allocation per frame) for pattern=app: it
// takes the oldest slot the application pushed (waiting for one), and
// returns a new buffer around the slot's persistent memory, which comes
// back to the ring when its last user drops it. With handoff=adopt the
// slot's bracket stays open until then and the buffer's GstTensorSync
// begin is pushed right before it; with handoff=close it ends here. The
// built-in patterns' frames are made in C (gstc.SrcSteady, configured by
// configureFrameLocked), which calls no Go. self is borrowed for the
// call.
func (e *element) CreateRaw(self gstc.RawElement) (gst.FlowReturn, gstc.RawBuffer) {
	e.mu.Lock()
	st := e.st
	if st == nil {
		e.mu.Unlock()
		return gst.FlowFlushing, gstc.RawBuffer{}
	}
	r := st.ring
	if r == nil || st.pattern != patternApp {
		e.mu.Unlock()
		gstc.PostErrorRaw(self, gstc.CoreNegotiation, "no caps were negotiated before the first buffer", "")
		return gst.FlowNotNegotiated, gstc.RawBuffer{}
	}
	sl, flow := e.nextSlotLocked(st)
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
	sl.state, sl.seq = slotInFlight, uint32(n)
	sl.held = false // moved into the buffer below
	closeAfterWrite := st.closeAfterWrite
	// A slot whose bracket is closed (SetWriteFence: a device wrote it)
	// has no bracket to announce; readers open their own and wait for the
	// device's fence.
	announce := !closeAfterWrite && sl.open
	e.mu.Unlock()

	_, dur := frameTimes(n, st.fpsN, st.fpsD)
	pts := sl.pts
	if st.pacer != nil {
		// Live: wait for the frame's time here, not in GstBaseSrc (see
		// gstc.LivePacer). A flush or stop puts the slot back first in
		// the queue.
		var ok bool
		if pts, ok = st.pacer.Wait(self, pts); !ok {
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
	if closeAfterWrite {
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

// configureFrameLocked makes the C frame (gstc.SrcSteady) make the
// built-in pattern's frames on r, as the state says (pattern, handoff,
// rate, video meta, sync-timeout, pacer): at each new ring and each caps
// change. Called with e.mu held where no create runs (the streaming
// thread, or stopped).
func (e *element) configureFrameLocked(st *state, r *ring) {
	if st.pattern == patternApp || r == nil || r.out == nil || r.closed || e.st != st {
		st.steady.Enable(false)
		return
	}
	st.steady.SetRing(r.out, st.stats.c)
	for i, sl := range r.slots {
		st.steady.SetSlot(i, sl.pin.Bytes())
		st.steady.SetFenceStandIn(i, -1, 0)
		if fenceStandIn.Load() { // tests: a pipe stands in for the fences
			if fd, events, ok := slotFence(sl); ok {
				st.steady.SetFenceStandIn(i, fd, events)
			}
		}
	}
	var vmeta *gstc.VideoMetaLayout
	if r.hasVMeta && r.vmetaErr == nil {
		vmeta = r.vmeta
	}
	vmetaErr := ""
	if r.hasVMeta && r.vmetaErr != nil {
		vmetaErr = r.vmetaErr.Error()
	}
	st.steady.SetVideoMetaError(vmetaErr)
	st.steady.Configure(cPattern(st.pattern), st.closeAfterWrite, st.fpsN, st.fpsD, vmeta)
	st.steady.SetSyncTimeout(st.syncTimeout)
	st.steady.SetPacer(st.pacer)
	st.steady.Enable(true)
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

// nextSlotLocked waits for the oldest slot the application pushed; it
// returns nil and the flow to return when flushing (Unlock) or at the end
// of stream.
func (e *element) nextSlotLocked(st *state) (*Slot, gst.FlowReturn) {
	for {
		if st.flushing || st.seekWake || e.st != st {
			return nil, gst.FlowFlushing
		}
		if len(st.queue) > 0 {
			sl := st.queue[0]
			copy(st.queue, st.queue[1:])
			st.queue = st.queue[:len(st.queue)-1]
			return sl, gst.FlowOK
		}
		if st.eos {
			return nil, gst.FlowEOS
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
// or unknown rate — as the C frame stamps them
// (gstc.FrameTimes, the one implementation).
func frameTimes(n uint64, fpsN, fpsD int) (pts, dur uint64) {
	return gstc.FrameTimes(n, fpsN, fpsD)
}
