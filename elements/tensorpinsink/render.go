package tensorpinsink

import (
	"fmt"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pinread"
)

// Every frame is made by the frame engine in C (frameengine's sinkframe.h):
// the lease and its wait, the lookup of the buffer's memories by their
// qdata, the fences and brackets, begin matching, new-frame, the stats
// and the release. Go answers the engine's calls: sinkInput when a
// buffer's memories or layout are not in its table yet, sinkDeliver
// when a Go consumer (OnFrame) takes the frames.

// RenderRaw is GstBaseSinkClass.render for a sink with no engine, which
// is one not started: the engine renders every frame of a run.
func (s *sink) RenderRaw(self gstglue.RawElement, buf gstglue.RawBuffer) gst.FlowReturn {
	gstglue.PostErrorRaw(self, gstglue.CoreNegotiation, "tensorpinsink received a buffer before caps", "")
	return gst.FlowNotNegotiated
}

// sinkInputHook, when set, runs first in every sinkInput: the tests'
// seam for a panic in a call from the C frame. Production code never
// sets it.
var sinkInputHook func()

// sinkInput is the engine's call (gstcGoSinkInput): it pins what buf needs
// (importing its memories, or the lease's own memory a buffer that is
// not fd memory is copied into), puts it in the engine's table, works
// out the frame's planes and returns the engine's plan for buffers like
// buf. Errors are posted here.
func (s *sink) sinkInput(self gstglue.RawElement, buf gstglue.RawBuffer, lease int) int {
	if sinkInputHook != nil {
		sinkInputHook()
	}
	st := s.current()
	if st == nil || !st.haveFormat {
		return int(gst.FlowFlushing)
	}
	i, err := s.planFor(st, buf, lease)
	if err != nil {
		gstglue.PostErrorRaw(self, gstglue.CodeOf(err, gstglue.StreamFailed), err.Error(), "")
		return int(gst.FlowError)
	}
	return i
}

func (s *sink) planFor(st *streamState, buf gstglue.RawBuffer, lease int) (int, error) {
	v := &st.view
	gstglue.ReadBufferView(buf, st.qkey, v) // the one read of the buffer
	fp := &st.fp
	if err := fp.follow(&st.format, v); err != nil {
		return 0, gstglue.Fail(gstglue.StreamFormat, "%v", err)
	}
	if v.NMemory() < 1 {
		return 0, gstglue.Fail(gstglue.StreamFormat, "buffer with no memory")
	}
	nm := v.NMemory()
	allFd := nm <= maxPlanes
	for i := 0; i < nm && allFd; i++ {
		allFd = v.MemFD(i) >= 0
	}
	n := len(fp.planes)
	var spots [maxPlanes]planeSpot
	split, err := fp.locate(v, spots[:n])
	if err != nil {
		return 0, gstglue.Fail(gstglue.StreamFormat, "%v", err)
	}
	reason := copyNotFd
	if split {
		// A plane spread over memories (fd or not) has no one memory to
		// pin: the frame is copied whole, like system memory.
		allFd, reason = false, copySplit
	}
	if allFd {
		var done [maxPlanes]bool
		for p := 0; p < n; p++ {
			if mi := spots[p].mem; !done[mi] {
				done[mi] = true
				if err := s.tableInput(st, v, mi); err != nil {
					return 0, err
				}
			}
		}
		st.dropDeadInputs()
	} else if err := s.copyIn(st, lease, v.Size(), reason); err != nil {
		return 0, err
	}
	if i := st.engine.PlanOf(buf); i >= 0 {
		return i, nil
	}
	return st.engine.SetPlan(st.planOf(v, allFd, spots[:n])), nil
}

// planOf is the engine's plan for buffers laid out as v (allFd: pinned,
// else copied; spots: where its planes are).
func (st *streamState) planOf(v *gstglue.BufferView, allFd bool, spots []planeSpot) sinkPlan {
	fp := &st.fp
	n, nm := len(spots), v.NMemory()
	plan := sinkPlan{Copy: !allFd, Video: st.format.Media == capslayout.MediaVideo, Size: v.Size()}
	if plan.Video {
		if m, ok := v.VideoMeta(); ok {
			plan.HasMeta, plan.MetaWidth, plan.MetaHeight = true, m.Width, m.Height
			plan.MetaOffsets, plan.MetaStrides = m.Offsets[:m.NPlanes], m.Strides[:m.NPlanes]
		}
	}
	for i := 0; i < min(nm, maxSinkMems); i++ {
		plan.MemSizes = append(plan.MemSizes, v.MemSize(i))
		if v.MemFD(i) >= 0 {
			plan.FdMask |= 1 << i
		}
	}
	if nm > maxSinkMems {
		plan.MemSizes = make([]int, nm) // only the count is compared
	}
	plan.Planes = make([]sinkPlane, n)
	for p := 0; p < n; p++ {
		plan.Planes[p] = sinkPlane{Mem: spots[p].mem, Skip: spots[p].skip, Extent: fp.extents[p], Stride: fp.strides[p]}
		if plan.Copy {
			plan.Planes[p].Mem, plan.Planes[p].Skip = 0, spots[p].bufOffset
		}
	}
	return plan
}

// keptEntry is what the engine's table keeps of a pin cache entry: a
// reference, released when the engine lets go of the region.
type keptEntry struct{ e *pincache.Entry }

func (k *keptEntry) freeSinkKeep() { k.e.Release() }

// tableInput puts memory i of the view in the engine's table (a pin
// cache import the first time).
func (s *sink) tableInput(st *streamState, v *gstglue.BufferView, i int) error {
	r := st.reader()
	e, isNew, err := r.EntryForMemory(v, i)
	s.countLookup(st, e, isNew)
	if err != nil {
		return err
	}
	defer e.Release() // the lookup's; the table takes its own
	for k := 0; k < st.engine.NumInputs(); k++ {
		if st.engine.Input(k).Keep().(*keptEntry).e == e {
			return nil
		}
	}
	if st.engine.NumInputs() >= maxSinkInputs {
		lru := 0
		for k := 1; k < st.engine.NumInputs(); k++ {
			if st.engine.Input(k).Used() < st.engine.Input(lru).Used() {
				lru = k
			}
		}
		st.removeInput(lru)
	}
	if !e.Acquire() {
		return gstglue.Fail(gstglue.ResourceRead, "the buffer's pinned memory was released")
	}
	key, id := e.Key(), e.Tensor().Identity()
	in := frameengine.Input{Tag: e.Tag(), MemOffset: uint64(key.Offset), MemSize: uint64(key.Size), Tensor: e.Tensor(),
		Dev: id.Dev, Ino: id.Ino, Host: unsafe.Pointer(unsafe.SliceData(e.Pin().Bytes()))}
	if _, ok := st.engine.AddInput(in, e.Slot(), &keptEntry{e}, isNew); !ok {
		e.Release()
		return gstglue.Fail(gstglue.CoreFailed, "the buffer's pinned memory cannot be bracketed from C (no shared bracket)")
	}
	return nil
}

// removeInput takes table input i out, releasing its entry unless a
// lease still holds it (the engine releases it then).
func (st *streamState) removeInput(i int) {
	if k := st.engine.RemoveInput(i); k != nil {
		k.(*keptEntry).freeSinkKeep()
	}
}

// dropDeadInputs takes out the inputs whose entries the cache evicted.
func (st *streamState) dropDeadInputs() {
	for i := st.engine.NumInputs() - 1; i >= 0; i-- {
		if !st.engine.Input(i).Keep().(*keptEntry).e.Live() {
			st.removeInput(i)
		}
	}
}

// clearInputs empties the table.
func (st *streamState) clearInputs() {
	for i := st.engine.NumInputs() - 1; i >= 0; i-- {
		st.removeInput(i)
	}
}

// touchInputs tells the pin cache which entries the engine used since
// the last touch, least recently used first (the engine's frames do not
// look up): before an insert, which may evict the least recently used.
func (st *streamState) touchInputs() {
	n := st.engine.NumInputs()
	var order [maxSinkInputs]int
	k := 0
	for i := 0; i < n; i++ {
		if u := st.engine.Input(i).Used(); u > st.touched {
			j := k
			for ; j > 0 && st.engine.Input(order[j-1]).Used() > u; j-- {
				order[j] = order[j-1]
			}
			order[j] = i
			k++
		}
	}
	for _, i := range order[:k] {
		st.cache.Touch(st.engine.Input(i).Keep().(*keptEntry).e)
	}
	if k > 0 {
		st.touched = st.engine.Input(order[k-1]).Used()
	}
}

// reader is the run's pin-cache reading (package pinread, shared with
// tensorinfer): an insert, which may evict, first tells the cache what
// the engine used and then takes evicted entries out of its table.
func (st *streamState) reader() pinread.Reader {
	return pinread.Reader{Cache: st.cache, Qkey: st.qkey, Noun: "buffer", Hooks: st}
}

// BeforeInsert and AfterInsert are st's pinread.InsertHooks.
func (st *streamState) BeforeInsert() { st.touchInputs() }
func (st *streamState) AfterInsert()  { st.dropDeadInputs() }

// countLookup counts a pin-cache lookup.
func (s *sink) countLookup(st *streamState, e *pincache.Entry, isNew bool) {
	switch {
	case e == nil:
	case isNew:
		s.stats.misses.Add(1)
		s.stats.mmaps.Add(1)
		s.noteCacheGrowth(st)
	default:
		s.stats.hits.Add(1)
	}
}

// Why a frame was copied (each is logged once per stream).
const (
	copyNotFd = iota // some memory is not fd memory
	copySplit        // a plane spans memories, or too many memories
	copyReasons
)

var copyWhy = [copyReasons]string{
	copyNotFd: "that are not fd memory",
	copySplit: "whose planes are split across memories (or that have more memories than planes)",
}

// copyIn makes lease i's own memfd tensor (at least size bytes) the
// engine's copy memory for that lease, which the engine copies a buffer
// that is not fd memory, or whose planes do not each lie in one memory,
// into. The first copy for each reason in a stream is logged in
// GST_PERFORMANCE; the engine counts every copy.
func (s *sink) copyIn(st *streamState, i int, size int, reason int) error {
	r := st.reader()
	e, isNew, err := r.OwnEntry(&st.own[i], size, "tensorpinsink-copy")
	s.countLookup(st, e, isNew)
	if err != nil {
		return err
	}
	own := st.own[i]
	if k, _ := st.engine.LeaseCopy(i).(*keptEntry); k != nil && k.e == e {
		e.Release()
	} else {
		id := own.Identity()
		in := frameengine.Input{MemSize: uint64(e.Key().Size), Tensor: e.Tensor(), Dev: id.Dev, Ino: id.Ino,
			Host: unsafe.Pointer(unsafe.SliceData(e.Pin().Bytes()))}
		if !st.engine.SetLeaseCopy(i, in, e.Slot(), &keptEntry{e}) {
			e.Release()
			return gstglue.Fail(gstglue.CoreFailed, "the sink's own memory cannot be bracketed from C (no shared bracket)")
		}
	}
	if !st.copyLogged[reason] {
		st.copyLogged[reason] = true
		perf.LogInfo(fmt.Sprintf("tensorpinsink: copying buffers (%d bytes each) %s into pinned memory; "+
			"the stats property counts every copy (copies, bytes-copied)", size, copyWhy[reason]))
	}
	return nil
}

// sinkDeliver is the engine's call (gstcGoSinkDeliver): the frame of lease i
// (generation cgen), filled and inside its brackets, goes to the Go
// handler, which owns it from then on (once per frame).
func (s *sink) sinkDeliver(self gstglue.RawElement, buf gstglue.RawBuffer, i int, cgen uint64) gst.FlowReturn {
	st := s.current()
	h := s.handler.Load()
	if st == nil || h == nil {
		if st != nil {
			st.engine.Release(i, cgen)
		}
		return gst.FlowOK
	}
	l := st.leases
	r := &l.frames[i]
	// Until the handler has the frame, it is this call's: an error or a
	// panic on the way (recovered by the trampoline) releases it.
	handed := false
	defer func() {
		if !handed {
			r.nplanes = 0
			r.releasePlanes()
			st.engine.Release(i, cgen)
		}
	}()
	lf := &st.lease
	st.engine.ReadLease(i, lf)
	fp := &st.fp
	n := len(lf.Planes)
	var offs [maxPlanes]int
	r.nmem = len(lf.Keeps)
	for k, keep := range lf.Keeps {
		r.mems[k] = keep.(*keptEntry).e
		r.newSlot[k] = lf.NewMask&(1<<k) != 0
	}
	for p := 0; p < n; p++ {
		r.planes[p].entry = lf.Planes[p].Mem
		offs[p] = lf.Planes[p].Offset
	}
	for k := 0; k < r.nmem; k++ {
		vs, err := planeViews(fp, r.mems[k], k, r.planes[:n], offs[:n])
		if err != nil {
			gstglue.PostErrorRaw(self, gstglue.StreamFormat, fmt.Sprintf("a plane does not fit its buffer memory: %v", err), "")
			return gst.FlowError
		}
		r.views[k] = vs
	}
	for p := 0; p < n; p++ {
		r.planes[p].view = r.views[r.planes[p].entry].Views[p]
	}
	r.nplanes = n
	r.pts, r.dur, r.caps, r.copied = lf.PTS, lf.Dur, st.caps, lf.Copied
	f := l.hand(r, cgen)
	handed = true
	s.callHandler(*h, f)
	return gst.FlowOK
}

// planeViews returns, with a frame's reference taken, entry e's views
// (mems index k) of the planes that lie in it, at offsets offs of its
// storage, for the current layout: found among the sets the entry keeps
// (no allocation per frame, also for a layout that alternates), else made
// once and kept by the entry (pincache.ViewSet bounds them).
func planeViews(fp *framePlanes, e *pincache.Entry, k int, planes []framePlane, offs []int) (*pincache.ViewSet, error) {
sets:
	for _, vs := range e.ViewSets() {
		if vs.Gen != fp.gen || len(vs.Views) != len(planes) {
			continue
		}
		for p := range planes {
			if planes[p].entry == k && (vs.Views[p] == nil || vs.Views[p].Tensor.Offset() != offs[p]) {
				continue sets
			}
		}
		e.UseViews(vs)
		return vs, nil
	}
	views := make([]*pincache.PlaneView, len(planes))
	for p := range planes {
		if planes[p].entry != k {
			continue
		}
		v, err := e.NewPlaneView(fp.planeLayout(p, offs[p]))
		if err != nil {
			for _, v := range views {
				if v != nil {
					v.Close()
				}
			}
			return nil, fmt.Errorf("plane %d: %w", p, err)
		}
		views[p] = v
	}
	return e.AddViews(fp.gen, views), nil
}

// callHandler runs the application's handler. A panic in it releases the
// frame (unless the handler did before panicking), is counted, and goes
// on up to the engine's call, which posts it as the element's error.
func (s *sink) callHandler(h func(Frame), f Frame) {
	defer func() {
		if r := recover(); r != nil {
			s.stats.handlerPanics.Add(1)
			f.Release() // ErrStaleFrame if the handler had released it
			panic(r)
		}
	}()
	h(f)
}
