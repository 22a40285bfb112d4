package tensorsrc

import (
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Every frame is made in C by create (srcFrame, srcframe.c), for every
// pattern: a built-in pattern's slot taken from
// the ring and written there, pattern=app's slot popped from the queue
// the application's Push fills. Go only configures it, here, and answers
// the application's API (api.go).

// configureFrameLocked makes the C frame (srcFrame) make the
// frames on r, as the state says (pattern, handoff, rate, video meta,
// sync-timeout, pacer): at each new ring and each caps change. A new
// ring gives the application's queue back to the old one. Called with
// e.mu held where no create runs (the streaming thread, or stopped).
func (e *element) configureFrameLocked(st *state, r *ring) {
	if r == nil || r.closed || e.st != st {
		st.frame.Enable(false)
		return
	}
	st.frame.SetRing(r.out, st.stats.c)
	st.frame.SetApp(st.pattern == patternApp)
	for _, sl := range r.slots {
		configureSlot(st, sl)
	}
	st.frame.SetGrowth(r.maxSlots)
	var vmeta *gstglue.VideoMetaLayout
	if r.hasVMeta && r.vmetaErr == nil {
		vmeta = r.vmeta
	}
	vmetaErr := ""
	if r.hasVMeta && r.vmetaErr != nil {
		vmetaErr = r.vmetaErr.Error()
	}
	st.frame.SetVideoMetaError(vmetaErr)
	st.frame.Configure(cPattern(st.pattern), st.closeAfterWrite, st.fpsN, st.fpsD, vmeta)
	st.frame.SetSyncTimeout(st.syncTimeout)
	st.frame.SetPacer(st.pacer)
	st.frame.Enable(true)
}

// configureSlot gives the C frame slot sl's bytes (and, in tests, the
// pipe standing in for its fences). Called with e.mu held where no
// create runs, or by create itself (a slot the ring grew).
func configureSlot(st *state, sl *Slot) {
	st.frame.SetSlot(sl.idx, sl.pin.Bytes())
	st.frame.SetFenceStandIn(sl.idx, -1, 0)
	if fenceStandIn.Load() { // tests: a pipe stands in for the fences
		if fd, events, ok := slotFence(sl); ok {
			st.frame.SetFenceStandIn(sl.idx, fd, events)
		}
	}
}

// cPattern is p as srcFrame writes it (a built-in pattern).
func cPattern(p pattern) int {
	switch p {
	case patternGradient:
		return patGradient
	case patternBlack:
		return patBlack
	case patternNone:
		return patNone
	}
	return patCounter
}

// fill writes the pattern of frame n into b: byte i is n*7+i (counter),
// i (gradient) or 0 (black), or leaves b as it is (none) — as the
// frame in C does (fillPattern, the one implementation).
func fill(b []byte, p pattern, n uint64) {
	if p == patternApp {
		return
	}
	fillPattern(b, cPattern(p), n)
}
