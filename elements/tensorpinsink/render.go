package tensorpinsink

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// RenderRaw is GstBaseSinkClass.render, installed by gstc's trampoline
// (gstc.InstallBaseSinkRender) instead of go-gst's, which allocates
// wrappers for the element and the buffer on every frame. self and buf are
// borrowed for the call; go-gst wrappers are built only on the paths that
// need them (the new-frame signal, logging an error).
func (s *sink) RenderRaw(self gstc.RawElement, buf gstc.RawBuffer) gst.FlowReturn {
	st := s.current()
	if st == nil || !st.haveFormat {
		gstc.PostErrorRaw(self, gstc.CoreNegotiation, "tensorpinsink received a buffer before caps", "")
		return gst.FlowNotNegotiated
	}
	set := s.readSettings()
	var rec *frameRecord
	for rec == nil {
		r, flow, interrupted := st.leases.take(set.drop)
		if r != nil {
			rec = r
			break
		}
		if !interrupted {
			return flow
		}
		// unlock woke us while every lease is held. A flush or stop
		// ends the wait (FLUSHING); a pause must not — as GstBaseSink
		// asks of a blocked render, wait in preroll (the sink counts as
		// prerolled) and, back in PLAYING, wait for a lease again.
		if ret := gstc.BaseSinkWaitPreroll(self); ret != gst.FlowOK {
			return ret
		}
	}
	if err := s.fill(st, rec, buf, set); err != nil {
		st.leases.abandon(rec)
		if errors.Is(err, tensor.ErrFenceTimeout) && set.onSyncTimeout == onTimeoutDrop {
			// fill gave everything back; the frame is skipped, the stream
			// goes on (the next frame may well be ready).
			s.stats.dropped.Add(1)
			return gst.FlowOK
		}
		gstc.PostErrorRaw(self, gstc.CodeOf(err, gstc.StreamFailed), err.Error(), "")
		return gst.FlowError
	}
	s.stats.frames.Add(1)
	s.deliver(self, st.leases.hand(rec), buf, set)
	return gst.FlowOK
}

// fill makes record f describe buf: per memory the pinned entry (or the
// sink's copy), per plane its tensor (a view kept by the entry) and pin,
// the begin event that announced the buffer (if any) and, per memory, the
// CPU-access bracket — opened here or joined (the buffer's bracket is
// already open: its producer's, or another reader's behind a tee). On an
// error everything taken is given back.
//
// Each bracket first waits at most set.syncTimeout ms for the dma-buf's
// fences (not when it joins an open bracket: the opener waited); a
// timeout is an error wrapping tensor.ErrFenceTimeout, counted here.
func (s *sink) fill(st *streamState, f *frameRecord, buf gstc.RawBuffer, set settings) error {
	v := &st.view
	gstc.ReadBufferView(buf, st.qkey, v) // the one read of the buffer
	fp := &st.fp
	if err := fp.follow(&st.format, v); err != nil {
		return gstc.Fail(gstc.StreamFormat, "%v", err)
	}
	if v.NMemory() < 1 {
		return gstc.Fail(gstc.StreamFormat, "buffer with no memory")
	}
	nm := v.Memories()
	allFd := v.NMemory() <= maxPlanes
	for i := 0; i < nm && allFd; i++ {
		allFd = v.MemFD(i) >= 0
	}
	n := len(fp.planes)
	var spots [maxPlanes]planeSpot
	split, err := fp.locate(v, spots[:n])
	if err != nil {
		return gstc.Fail(gstc.StreamFormat, "%v", err)
	}
	reason := copyNotFd
	if split {
		// A plane spread over memories (fd or not) has no one memory to
		// pin: the frame is copied whole, like system memory.
		allFd, reason = false, copySplit
	}
	var offs [maxPlanes]int // each plane's offset in its entry's storage
	if allFd {
		f.copied = false
		var memOf [maxPlanes]int // mem index -> f.mems index + 1
		for p := 0; p < n; p++ {
			mi := spots[p].mem
			if memOf[mi] == 0 {
				e, isNew, err := s.entryForMemory(st, v, mi)
				if err != nil {
					f.releasePlanes()
					return err
				}
				f.mems[f.nmem], f.newSlot[f.nmem] = e, isNew
				f.nmem++
				memOf[mi] = f.nmem
			}
			f.planes[p].entry = memOf[mi] - 1
			offs[p] = v.MemOffset(mi) + spots[p].skip
		}
	} else {
		f.copied = true
		e, isNew, err := s.copyIn(st, f.index, buf, v.Size(), reason)
		if err != nil {
			return err
		}
		f.mems[0], f.newSlot[0], f.nmem = e, isNew, 1
		for p := 0; p < n; p++ {
			f.planes[p].entry = 0
			offs[p] = spots[p].bufOffset
		}
	}
	for k := 0; k < f.nmem; k++ {
		vs, err := planeViews(fp, f.mems[k], k, f.planes[:n], offs[:n])
		if err != nil {
			f.releasePlanes()
			return gstc.Fail(gstc.StreamFormat, "a plane does not fit its buffer memory: %v", err)
		}
		f.views[k] = vs
	}
	for p := 0; p < n; p++ {
		f.planes[p].view = f.views[f.planes[p].entry].Views[p]
	}
	f.nplanes = n
	f.pts, f.dur, f.caps = v.PTS(), v.Duration(), st.caps
	f.access = tensor.AccessRead
	t0 := f.planes[0].view.Tensor
	id := t0.Identity()
	var stale int
	if f.sync, f.announced, stale = st.begins.Match(id.Dev, id.Ino, uint64(t0.Offset()), v.Offset()); f.announced {
		s.stats.beginsMatched.Add(1)
	}
	if stale > 0 {
		s.stats.beginsExpired.Add(uint64(stale))
	}
	timeout := time.Duration(set.syncTimeout) * time.Millisecond
	for k := 0; k < f.nmem; k++ {
		joined, waited, err := f.mems[k].Tensor().BeginCPUAccessTimeout(f.access, timeout)
		if waited > 0 {
			s.stats.fences.Record(waited)
		}
		s.stats.syncs.Add(1)
		if joined {
			s.stats.joined.Add(1)
		}
		if err != nil {
			for j := 0; j < k; j++ {
				f.mems[j].Tensor().SyncForDevice(f.access)
			}
			f.releasePlanes()
			if errors.Is(err, tensor.ErrFenceTimeout) {
				s.stats.fences.Timeout()
				return &gstc.CodedError{Code: gstc.ResourceSync,
					Err: fmt.Errorf("buffer memory %d: sync-timeout %d ms: %w", k, set.syncTimeout, err)}
			}
			return gstc.Fail(gstc.ResourceSync, "cannot begin CPU access to the frame: %v", err)
		}
	}
	f.lease = gstc.LeaseBuffer(buf)
	return nil
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

// entryForMemory finds the pinned entry of memory i of the view: through
// its qdata (read with the view: no syscall), else by the fd's identity,
// else by importing it. Either way the memory then carries the entry's
// qdata value, made once per entry: a producer that wraps its dma-bufs in
// new GstMemory every frame costs an fstat per frame, no allocation.
func (s *sink) entryForMemory(st *streamState, v *gstc.BufferView, i int) (*pincache.Entry, bool, error) {
	off, size := v.MemOffset(i), v.MemSize(i)
	if q, ok := v.MemQdata(i); ok {
		if e, _ := q.(*pincache.Entry); e != nil && e.Key().Offset == off && e.Key().Size == size && st.cache.Hit(e) {
			s.stats.hits.Add(1)
			return e, false, nil
		}
	}
	fd := v.MemFD(i)
	if fd < 0 {
		return nil, false, gstc.Fail(gstc.ResourceRead, "buffer memory has no usable fd (fd %d)", fd)
	}
	id, err := tensor.IdentityOf(fd)
	if err != nil {
		return nil, false, gstc.Fail(gstc.ResourceRead, "buffer memory has no usable fd: %v", err)
	}
	key := pincache.Key{ID: id, Offset: off, Size: size}
	if e := st.cache.Lookup(key); e != nil {
		s.stats.hits.Add(1)
		st.qkey.SetShared(v.Memory(i), qdataValue(e))
		return e, false, nil
	}
	e, err := st.cache.Insert(fd, key)
	if err != nil {
		return nil, false, gstc.Fail(gstc.ResourceRead, "cannot import and pin the buffer's fd %d: %v", fd, err)
	}
	s.stats.misses.Add(1)
	s.stats.mmaps.Add(1)
	st.qkey.SetShared(v.Memory(i), qdataValue(e))
	s.noteCacheGrowth(st)
	return e, true, nil
}

// qdataValue returns e's qdata value, registering it on first use; it is
// unregistered when the entry is freed.
func qdataValue(e *pincache.Entry) gstc.QdataValue {
	if t := e.Tag(); t != 0 {
		return gstc.QdataValue(t)
	}
	v := gstc.NewQdataValue(e)
	e.SetTag(uintptr(v), freeQdataValue)
	return v
}

func freeQdataValue(t uintptr) { gstc.QdataValue(t).Free() }

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

// copyIn copies a buffer that is not fd memory, or whose planes do not
// each lie in one memory, into the sink's own memfd tensor for this
// frame index and returns that tensor's entry. The first copy for each
// reason in a stream is logged in GST_PERFORMANCE; every copy is counted.
func (s *sink) copyIn(st *streamState, i int, buf gstc.RawBuffer, size int, reason int) (*pincache.Entry, bool, error) {
	own := st.own[i]
	if own == nil || own.Capacity() < size {
		if own != nil {
			own.Close()
		}
		var err error
		own, err = tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{size}},
			tensor.AllocOptions{Source: tensor.SourceMemfd, Name: "tensorpinsink-copy"})
		if err != nil {
			st.own[i] = nil
			return nil, false, gstc.Fail(gstc.ResourceNoSpaceLeft, "cannot allocate pinned memory for a copied frame: %v", err)
		}
		st.own[i] = own
	}
	key := pincache.Key{ID: own.Identity(), Size: own.Capacity()}
	newSlot := false
	e := st.cache.Lookup(key)
	if e == nil {
		var err error
		if e, err = st.cache.Insert(own.FD(), key); err != nil {
			return nil, false, gstc.Fail(gstc.ResourceRead, "cannot pin the sink's own memory: %v", err)
		}
		newSlot = true
		s.stats.misses.Add(1)
		s.stats.mmaps.Add(1)
	} else {
		s.stats.hits.Add(1)
	}
	n := gstc.ExtractBuffer(buf, e.Pin().Bytes()[:size])
	s.stats.copies.Add(1)
	s.stats.bytesCopied.Add(uint64(n))
	if !st.copyLogged[reason] {
		st.copyLogged[reason] = true
		perf.LogInfo(fmt.Sprintf("tensorpinsink: copying buffers (%d bytes each) %s into pinned memory; "+
			"the stats property counts every copy (copies, bytes-copied)", size, copyWhy[reason]))
	}
	return e, newSlot, nil
}

// deliver hands the frame to the application: the Go handler owns it from
// then on; with only signal handlers (or none) it is released here.
func (s *sink) deliver(self gstc.RawElement, f Frame, buf gstc.RawBuffer, set settings) {
	if set.postSyncMessages {
		f.r.lessor.postPhase(tensorsync.PhaseBegin, f.r)
	}
	if set.emitSignals {
		s.emitNewFrame(self, f, buf)
	}
	if h := s.handler.Load(); h != nil {
		s.callHandler(*h, f)
		return
	}
	f.Release()
}

// callHandler runs the application's handler. A panic in it releases the
// frame (unless the handler did before panicking), is counted, and goes
// on up to the render trampoline, which posts it as the element's error.
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

// emitNewFrame emits new-frame (emit-signals=true) with borrowed go-gst
// wrappers of the element and the buffer (no references taken, so nothing
// waits for a garbage collection) and a "tensorpinsink-planes" structure
// with every plane's address, size, stride, slot and offset, freed when
// the handlers return.
func (s *sink) emitNewFrame(self gstc.RawElement, f Frame, buf gstc.RawBuffer) {
	glib.WithPointerTransferOriginal(self.Unsafe(), func(obj *glib.Object, _ glib.GoObjectSubclass) {
		sink := base.ToGstBaseSink(obj)
		planes := make([]gstc.PlaneInfo, f.Planes())
		for i := range planes {
			t := f.PlaneTensor(i)
			planes[i] = gstc.PlaneInfo{Address: uint64(f.PlanePin(i).Addr()), Size: uint64(f.PlanePin(i).Len()),
				Stride: uint32(t.RowStride()), Slot: uint32(f.PlaneSlot(i)), Offset: uint64(t.Offset())}
		}
		info := gstc.NewPlanesStructure("tensorpinsink-planes", planes)
		defer info.Free()
		if err := newFrame.Emit(sink.Element, gst.ToGstBuffer(buf.Unsafe()), uint64(f.Pin().Addr()),
			uint64(f.Pin().Len()), uint(f.Slot()), info); err != nil {
			cat.LogWarning("new-frame: "+err.Error(), sink.Object)
		}
	})
}
