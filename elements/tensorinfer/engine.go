package tensorinfer

import (
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/internal/ortabi"
)

// Every frame is made by the frame engine in C (frameengine's inferframe.h):
// input lookup, brackets, fences, the wait for an output slot,
// pre-processing, the run and the output buffer, with its errors. Go
// keeps what only it can do and tells the engine at once, on the
// streaming thread: the engine's table of inputs is a bounded cache of
// what Go bound (an input binding made, an entry evicted, a session or
// ring replaced), filled through the one call the engine makes into Go
// (InferInput, below) when a frame's memory is not in it.

// engineInput records what an engine table entry holds: the pin cache
// entry (a reference, dropped when it leaves the table) and the layout
// it is read with.
type engineInput struct {
	ent            *pincache.Entry
	offset, stride int
	slot           int // the session input slot bound to it; -1: none
}

// setEngineSession points the engine at the live session and ring and
// empties its table (the bindings it held were the old session's).
func (st *streamState) setEngineSession() {
	st.clearEngineInputs()
	if st.engine.IsZero() {
		return
	}
	st.engine.SetReady(false)
	if st.ring != nil {
		st.engine.SetRing(st.ring.c)
	} else {
		st.engine.SetRing(nil)
	}
	if st.sess == nil {
		return
	}
	if run, ok := ortabi.RunnerOf(st.sess); ok {
		st.engine.SetSession(run.Session, run.Run, run.ReleaseStatus, run.ErrorMessage, run.SamplePeriod, run.SampleMax, st.set.model)
	}
}

// addEngineInput puts input in (over ent, read as k) into the engine's
// table, taking a reference of ent for it; when the table is full, the
// input used least recently leaves it first (its binding stays: a frame
// on it asks Go again, which adds it back).
func (st *streamState) addEngineInput(ent *pincache.Entry, k engineInput, in engineRecord) (int, bool) {
	if st.engine.NumInputs() >= maxEngineInputs {
		lru := 0
		for i := range st.engineIns {
			if st.engine.InputUsed(i) < st.engine.InputUsed(lru) {
				lru = i
			}
		}
		st.removeEngineInput(lru)
	}
	if !ent.Acquire() {
		return 0, false
	}
	i, ok := st.engine.AddInput(in)
	if !ok {
		ent.Release()
		return 0, false
	}
	k.ent = ent
	st.engineIns = append(st.engineIns, k)
	return i, true
}

// findEngineInput returns the table's index of ent read as k, or -1.
func (st *streamState) findEngineInput(ent *pincache.Entry, offset, stride int) int {
	for i, in := range st.engineIns {
		if in.ent == ent && in.offset == offset && in.stride == stride {
			return i
		}
	}
	return -1
}

// removeEngineInput takes input i out of the table (the last takes its
// index, as in C) and drops its reference.
func (st *streamState) removeEngineInput(i int) {
	ent := st.engineIns[i].ent
	st.engine.RemoveInput(i)
	last := len(st.engineIns) - 1
	st.engineIns[i] = st.engineIns[last]
	st.engineIns[last] = engineInput{}
	st.engineIns = st.engineIns[:last]
	ent.Release()
}

// removeEngineInputs takes out the inputs drop selects.
func (st *streamState) removeEngineInputs(drop func(engineInput) bool) {
	for i := len(st.engineIns) - 1; i >= 0; i-- {
		if drop(st.engineIns[i]) {
			st.removeEngineInput(i)
		}
	}
}

// clearEngineInputs empties the table: before anything it points at (a
// session's bindings, an entry) goes.
func (st *streamState) clearEngineInputs() {
	if st.engine.IsZero() {
		return
	}
	st.touchEngineInputs()
	st.removeEngineInputs(func(engineInput) bool { return true })
}

// touchEngineInputs tells the pin cache which entries the engine used
// since the last touch, least recently used first (the cache's LRU order
// is what a lookup leaves; the engine's frames do not look up): before
// an insert, which may evict the least recently used entry, so that it
// is not one the engine runs on.
func (st *streamState) touchEngineInputs() {
	if st.engine.IsZero() || len(st.engineIns) == 0 {
		return
	}
	var order [maxEngineInputs]int
	n := 0
	for i := range st.engineIns {
		if u := st.engine.InputUsed(i); u > st.engineTouched {
			// Insertion by stamp: a few entries.
			j := n
			for ; j > 0 && st.engine.InputUsed(order[j-1]) > u; j-- {
				order[j] = order[j-1]
			}
			order[j] = i
			n++
		}
	}
	for _, i := range order[:n] {
		st.cache.Touch(st.engineIns[i].ent)
	}
	if n > 0 {
		st.engineTouched = st.engine.InputUsed(order[n-1])
	}
}

// engineIO returns the IoBindings of session input slot slot with each
// output slot of the ring (nil where it is converted: Go runs it).
func (st *streamState) engineIO(slot int) []unsafe.Pointer {
	io := make([]unsafe.Pointer, st.ring.c.Slots())
	for k := range io {
		io[k] = ortabi.Binding(st.sess, slot, k)
	}
	return io
}

// growEngineIO gives the table's inputs (and the pre-processed input)
// their IoBindings with output slots the ring grew, from output slot
// from on.
func (st *streamState) growEngineIO(from int) {
	if st.engine.IsZero() || st.sess == nil || st.ring == nil {
		return
	}
	n := st.ring.c.Slots()
	for i, in := range st.engineIns {
		if in.slot < 0 {
			continue
		}
		for k := from; k < n; k++ {
			st.engine.SetInputIO(i, k, ortabi.Binding(st.sess, in.slot, k))
		}
	}
	if st.pre != nil {
		for k := from; k < n; k++ {
			st.engine.SetPreprocessIO(k, ortabi.Binding(st.sess, preInputSlot, k))
		}
	}
}
