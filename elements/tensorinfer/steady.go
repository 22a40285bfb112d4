package tensorinfer

import (
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/internal/ortabi"
)

// The steady frame (gstc's steady.h) runs a frame in C, with no call
// into Go, when its input is a memory of an input slot bound once with
// the frame's layout, a free output slot exists, and the input's bracket
// can be joined (or opened without an ioctl): the run of the shipped
// model's frames from tensorsrc, and of frames from the pool this
// element proposes. Every other frame comes to PrepareRaw, which runs it
// with what Go has (waits, errors, first binds) and afterwards tells the
// steady frame what changed (refreshSteady). docs/design-notes.md ("The
// steady frame in C") has why and what it saves.

// refreshSteady rebuilds the steady frame's table after a frame Go ran,
// when something it holds changed: an input slot bound, the ring grown,
// the session or the caps replaced (steadyDirty), or an entry it holds
// evicted from the pin cache. On the streaming thread, the only thread
// that reads the table.
func (e *element) refreshSteady(st *streamState) {
	if st.steady.IsZero() {
		return
	}
	if !st.steadyDirty {
		for _, ent := range st.steadyEnts {
			if !ent.Live() {
				st.steadyDirty = true
				break
			}
		}
		if !st.steadyDirty {
			return
		}
	}
	st.forgetSteady()
	st.steadyDirty = false // after forgetSteady, which marks the table dirty
	if st.sess == nil || st.ring == nil || !st.haveFormat {
		return
	}
	run, ok := ortabi.RunnerOf(st.sess)
	if !ok {
		return
	}
	s := st.steady
	s.SetSession(run.Session, run.Run, run.ReleaseStatus)
	s.SetSampling(run.SamplePeriod, run.SampleMax)
	s.SetRing(st.ring.c)
	s.SetStream(st.qkey, st.begins, st.inLayout.Offset, st.inLayout.RowStride)
	nOut := st.ring.c.Slots()
	for slot, b := range st.binds.bySlot {
		ent := b.ent
		if ent == nil || ent.Tag() == 0 || !ent.Acquire() {
			continue
		}
		io := make([]unsafe.Pointer, nOut)
		bound := false
		for k := range io {
			io[k] = ortabi.Binding(st.sess, slot, k)
			bound = bound || io[k] != nil
		}
		if !bound { // converted on every run: Go's
			ent.Release()
			continue
		}
		key, id := ent.Key(), ent.Tensor().Identity()
		if !s.AddInput(gstc.SteadyInput{
			Tag: ent.Tag(), MemOffset: uint64(key.Offset), MemSize: uint64(key.Size), Tensor: ent.Tensor(),
			Dev: id.Dev, Ino: id.Ino, Offset: uint64(b.offset), Stride: b.stride, IO: io,
		}) {
			ent.Release()
			continue
		}
		st.steadyEnts = append(st.steadyEnts, ent)
	}
	s.SetEnabled(len(st.steadyEnts) > 0)
}

// touchSteady tells the pin cache which entries the steady frame used
// since the last touch, least recently used first (the cache's LRU order
// is what a frame that asks it leaves; the steady frame does not ask):
// before an insert, which may evict the least recently used entry, so
// that it is not one the steady frame runs on.
func (st *streamState) touchSteady() {
	if st.steady.IsZero() || len(st.steadyEnts) == 0 {
		return
	}
	var order [gstc.MaxSteadyInputs]int
	n := 0
	for i := range st.steadyEnts {
		if u := st.steady.InputUsed(i); u > st.steadyTouched {
			// Insertion by stamp: a few entries.
			j := n
			for ; j > 0 && st.steady.InputUsed(order[j-1]) > u; j-- {
				order[j] = order[j-1]
			}
			order[j] = i
			n++
		}
	}
	for _, i := range order[:n] {
		st.cache.Touch(st.steadyEnts[i])
	}
	if n > 0 {
		st.steadyTouched = st.steady.InputUsed(order[n-1])
	}
}

// forgetSteady empties the steady frame's table and drops the entries it
// held: before anything it points at (a session, a ring, an entry) goes.
func (st *streamState) forgetSteady() {
	if st.steady.IsZero() {
		return
	}
	st.touchSteady() // the uses the table's stamps hold are lost with it
	st.steady.SetEnabled(false)
	st.steady.ClearInputs()
	for _, ent := range st.steadyEnts {
		ent.Release()
	}
	clear(st.steadyEnts)
	st.steadyEnts = st.steadyEnts[:0]
	st.steadyDirty = true
}
