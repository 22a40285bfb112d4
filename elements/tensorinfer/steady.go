package tensorinfer

import (
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
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
	st.steadyDirty = false
	st.forgetSteady()
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
	for slot, b := range st.bound {
		ent := b.ent
		if !b.ok || ent == nil || ent.Tag() == 0 || !ent.Acquire() {
			continue
		}
		io := make([]unsafe.Pointer, nOut)
		for k := range io {
			io[k] = ortabi.Binding(st.sess, slot, k)
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

// forgetSteady empties the steady frame's table and drops the entries it
// held: before anything it points at (a session, a ring, an entry) goes.
func (st *streamState) forgetSteady() {
	if st.steady.IsZero() {
		return
	}
	st.steady.SetEnabled(false)
	st.steady.ClearInputs()
	for _, ent := range st.steadyEnts {
		ent.Release()
	}
	clear(st.steadyEnts)
	st.steadyEnts = st.steadyEnts[:0]
	st.steadyDirty = true
}

// steadyEntry is what boundInput remembers of the entry a slot was bound
// for (no reference: the table takes its own).
type steadyEntry = *pincache.Entry
