package tensorsrc

import (
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Every frame is made in C by the create trampoline (frameengine.SrcSteady,
// srcsteady.c), for every pattern: a built-in pattern's slot taken from
// the ring and written there, pattern=app's slot popped from the queue
// the application's Push fills. Go only configures it, here, and answers
// the application's API (api.go).

// configureFrameLocked makes the C frame (frameengine.SrcSteady) make the
// frames on r, as the state says (pattern, handoff, rate, video meta,
// sync-timeout, pacer): at each new ring and each caps change. A new
// ring gives the application's queue back to the old one. Called with
// e.mu held where no create runs (the streaming thread, or stopped).
func (e *element) configureFrameLocked(st *state, r *ring) {
	if r == nil || r.closed || e.st != st {
		st.steady.Enable(false)
		return
	}
	st.steady.SetRing(r.out, st.stats.c)
	st.steady.SetApp(st.pattern == patternApp)
	for i, sl := range r.slots {
		st.steady.SetSlot(i, sl.pin.Bytes())
		st.steady.SetFenceStandIn(i, -1, 0)
		if fenceStandIn.Load() { // tests: a pipe stands in for the fences
			if fd, events, ok := slotFence(sl); ok {
				st.steady.SetFenceStandIn(i, fd, events)
			}
		}
	}
	var vmeta *gstglue.VideoMetaLayout
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

// cPattern is p as frameengine.SrcSteady writes it (a built-in pattern).
func cPattern(p pattern) int {
	switch p {
	case patternGradient:
		return frameengine.SrcGradient
	case patternBlack:
		return frameengine.SrcBlack
	case patternNone:
		return frameengine.SrcNone
	}
	return frameengine.SrcCounter
}

// fill writes the pattern of frame n into b: byte i is n*7+i (counter),
// i (gradient) or 0 (black), or leaves b as it is (none) — as the steady
// frame in C does (frameengine.FillPattern, the one implementation).
func fill(b []byte, p pattern, n uint64) {
	if p == patternApp {
		return
	}
	frameengine.FillPattern(b, cPattern(p), n)
}

// frameTimes returns the PTS and duration of frame n at fpsN/fpsD
// (n×fpsD/fpsN seconds, without drift), or ClockTimeNone for a variable
// or unknown rate — as the C frame stamps them
// (frameengine.FrameTimes, the one implementation).
func frameTimes(n uint64, fpsN, fpsD int) (pts, dur uint64) {
	return frameengine.FrameTimes(n, fpsN, fpsD)
}
