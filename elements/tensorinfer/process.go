package tensorinfer

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
)

// PrepareRaw implements gstc.RawPreparer: the whole frame, on the
// streaming thread, with no Go allocation once its input slot is bound.
// It finds the input's pinned slot (pin cache; copied into pinned memory
// if the input is not fd memory), binds it once, takes a free output
// slot (waiting while every slot is downstream), opens the output's write
// bracket and joins the input's read bracket, runs, leaves the input's
// bracket and tells upstream (GstTensorSync end) if the input was
// announced, and returns the output slot's memories as a new buffer with
// the input's PTS, DTS and duration, announced downstream by a begin
// event pushed right before it. in is borrowed. The wait for a free
// output slot ends when a slot comes back, or at once on a flush or the
// change to READY (waker).
func (e *element) PrepareRaw(self gstc.RawElement, in gstc.RawBuffer) (gst.FlowReturn, gstc.RawBuffer) {
	st := e.current()
	if st == nil {
		return gst.FlowFlushing, gstc.RawBuffer{}
	}
	if !st.haveFormat || st.sess == nil {
		gstc.PostErrorRaw(self, gstc.CoreNegotiation, "tensorinfer received a buffer before caps", "")
		return gst.FlowNotNegotiated, gstc.RawBuffer{}
	}
	var buf gstc.RawBuffer
	var err error
	if st.perFrame {
		buf, err = e.runPerFrame(self, st, in)
	} else {
		sl := st.ring.take()
		for waited := false; sl == nil; {
			// Armed before the checks: a flush or a stop that comes after
			// them closes this channel (see waker).
			wake, stop := e.wake.arm()
			if stop || gstc.TransformSinkFlushing(self) {
				return gst.FlowFlushing, gstc.RawBuffer{}
			}
			if !waited {
				waited = true
				e.stats.waits.Add(1)
			}
			// Taken again after the arm; a slot freed after this take
			// signals freed.
			if sl = st.ring.takeOrWait(); sl != nil {
				break
			}
			e.waiting.Store(true)
			select {
			case <-st.ring.freed:
			case <-wake:
			}
			e.waiting.Store(false)
		}
		if buf, err = e.run(self, st, in, sl); err != nil {
			st.ring.give(sl)
		}
	}
	// What this frame bound or evicted, the steady frame learns before
	// the next one.
	e.refreshSteady(st)
	if err != nil {
		if errors.Is(err, tensor.ErrFenceTimeout) && st.set.onSyncTimeout == onTimeoutDrop {
			e.stats.dropped.Add(1)
			return gstc.FlowDropped, gstc.RawBuffer{}
		}
		gstc.PostErrorRaw(self, gstc.CodeOf(err, gstc.StreamFailed), "tensorinfer: "+err.Error(), "")
		return gst.FlowError, gstc.RawBuffer{}
	}
	e.stats.frames.Add(1)
	return gst.FlowOK, buf
}

// frameInput is a frame's input from beginInput to endInput: its pinned
// entry (the lookup's reference), where the model's input is in it, the
// read bracket it is read in, and what names it to the producer's begin
// (matched by endInput).
type frameInput struct {
	ent     *pincache.Entry
	slot    int           // the session input slot bound to ent with layout (bound-once mode)
	layout  tensor.Layout // Offset: where the input starts in ent's memory
	bracket *tensor.Tensor
	view    *gstc.BufferView
	// The buffer at offset of the dma-buf (dev, ino), numbered bufOffset.
	dev, ino, offset, bufOffset uint64
}

// beginInput finds the input's pinned entry (copied into pinned memory
// if it is not one fd memory), binds it once (bound-once mode), and
// joins or opens its read bracket. On error nothing is held.
func (e *element) beginInput(st *streamState, in gstc.RawBuffer) (fi frameInput, err error) {
	v := &st.view
	fi.view = v
	gstc.ReadBufferView(in, st.qkey, v) // the one read of the buffer
	l := st.inLayout
	if vm, ok := v.VideoMeta(); ok && vm.NPlanes > 0 && st.pre == nil {
		// (Pre-processing reads the memory whole and the meta itself.)
		l.Offset, l.RowStride = vm.Offsets[0], vm.Strides[0]
	}
	fi.layout = l
	g, err := st.inputGeometry(l)
	if err != nil {
		return fi, gstc.Fail(gstc.StreamFormat, "input layout %v: %v", l, err)
	}
	off := l.Offset
	if v.Size() < off+g.Extent {
		// The copy path would run the model on the bytes this buffer
		// has and a stale tail: refused, as tensorpinsink refuses it.
		return fi, gstc.Fail(gstc.StreamFormat, "input buffer of %d bytes is shorter than the frame its caps describe "+
			"(%d bytes from byte %d: %v %v, row stride %d)", v.Size(), g.Extent, off, l.DType, l.Shape, g.Stride)
	}
	fd := v.NMemory() == 1 && v.MemFD(0) >= 0 && off+g.Extent <= v.MemSize(0)
	if fd {
		fi.ent, err = e.entryForMemory(st, v, 0)
	} else {
		fi.ent, err = e.copyIn(st, in, v.Size())
	}
	if err != nil {
		return fi, err
	}
	// The lookup's reference is held for the frame (the run reads the
	// entry's memory) and dropped by endInput.
	ent := fi.ent
	if !st.perFrame && st.pre == nil {
		if fi.slot, err = e.bindOnce(st, ent, l); err != nil {
			ent.Release()
			return fi, err
		}
	}
	// The input's read bracket: joined when its producer's (tensorsrc)
	// is open, else opened here after a bounded wait for its fences.
	if fd {
		fi.bracket = ent.Tensor()
		_, waited, err := fi.bracket.BeginCPUAccessTimeout(tensor.AccessRead, time.Duration(st.set.syncTimeout)*time.Millisecond)
		if waited > 0 {
			e.stats.fences.Record(waited)
		}
		e.stats.inSyncs.Add(1)
		if err != nil {
			ent.Release()
			if errors.Is(err, tensor.ErrFenceTimeout) {
				e.stats.fences.Timeout()
				return fi, &gstc.CodedError{Code: gstc.ResourceSync,
					Err: fmt.Errorf("input: sync-timeout %d ms: %w", st.set.syncTimeout, err)}
			}
			return fi, gstc.Fail(gstc.ResourceSync, "cannot begin CPU access to the input: %v", err)
		}
	}
	id := ent.Tensor().Identity()
	fi.dev, fi.ino, fi.offset, fi.bufOffset = id.Dev, id.Ino, uint64(v.MemOffset(0)+off), v.Offset()
	return fi, nil
}

// inputGeometry is l's geometry (l: the caps' input layout with a
// frame's offset and row stride), remembered for the last offset and
// stride: frames of one stream share them, and computing it walks the
// shape, cold in the cache after a run.
func (st *streamState) inputGeometry(l tensor.Layout) (tensor.Geometry, error) {
	if st.geomOK && st.geomOffset == l.Offset && st.geomStride == l.RowStride {
		return st.geom, nil
	}
	g, err := l.Geometry()
	if err != nil {
		return g, err
	}
	st.geom, st.geomOffset, st.geomStride, st.geomOK = g, l.Offset, l.RowStride, true
	return g, nil
}

// endInput is called once the run no longer needs the input: it leaves
// the input's bracket, tells its producer if the frame was announced (its
// begin, pending in C since the event, matched and answered in one cgo
// call) and drops the entry's reference.
func (e *element) endInput(self gstc.RawElement, st *streamState, fi *frameInput) {
	e.endRead(fi.bracket)
	e.countEnd(gstc.TransformEndInput(self, st.begins, fi.dev, fi.ino, fi.offset, fi.bufOffset))
	fi.ent.Release()
}

// countEnd counts what ending a frame's input did: its begin matched
// (announced), the end sent upstream, stale begins removed.
func (e *element) countEnd(announced, sent bool, stale int) {
	if announced {
		e.stats.beginsMatched.Add(1)
	}
	if sent {
		e.stats.endEventsSent.Add(1)
	}
	if stale > 0 {
		e.stats.beginsExpired.Add(uint64(stale))
	}
}

// run does one frame into output slot sl (taken); on error sl is the
// caller's to give back and nothing else is held.
func (e *element) run(self gstc.RawElement, st *streamState, in gstc.RawBuffer, sl *outSlot) (gstc.RawBuffer, error) {
	fi, err := e.beginInput(st, in)
	if err != nil {
		return gstc.RawBuffer{}, err
	}
	v := fi.view
	// The output's write bracket, open from before the run until its
	// memory comes back from downstream (C's ring leaves it then).
	r := st.ring
	if err := r.c.OpenWrites(sl.idx); err != nil {
		e.endInput(self, st, &fi)
		return gstc.RawBuffer{}, gstc.Fail(gstc.ResourceSync, "cannot begin CPU access to an output tensor: %v", err)
	}
	slot := fi.slot
	if st.pre != nil {
		b := fi.ent.Pin().Bytes()
		if err := e.preprocessFrame(st, v, b[fi.layout.Offset:]); err != nil {
			e.endInput(self, st, &fi)
			r.c.CloseWrites(sl.idx)
			return gstc.RawBuffer{}, err
		}
		slot = preInputSlot
	}
	if err := st.sess.Run(slot, sl.idx); err != nil {
		e.endInput(self, st, &fi)
		r.c.CloseWrites(sl.idx)
		return gstc.RawBuffer{}, gstc.Fail(gstc.LibraryFailed, "%v", err)
	}
	// The run no longer needs the input: leave its bracket; the same cgo
	// call tells its producer and makes the output buffer (the C frame's
	// own: gstc_transform_finish_frame).
	e.endRead(fi.bracket)
	buf, announced, sent, stale := gstc.TransformFinishFrame(self, st.begins, fi.dev, fi.ino, fi.offset, fi.bufOffset,
		r.c, sl.idx, in, st.steady.NextSeq())
	e.countEnd(announced, sent, stale)
	fi.ent.Release()
	return buf, nil
}

// runPerFrame does one frame the upstream way (TENSORPIN_INFER_MODE=
// per-frame, a benchmark aid): the input is found, pinned and bracketed
// as in bound-once mode, so that only what the two ways do with ONNX
// Runtime differs; then the engine's RunPerFrame (a new input value over
// the frame, a run without IoBinding, every output copied into new
// memory) and a new buffer of system memories holding a copy of each
// output, as GStreamer's onnxinference pushes. The output ring is not
// used.
func (e *element) runPerFrame(self gstc.RawElement, st *streamState, in gstc.RawBuffer) (gstc.RawBuffer, error) {
	fi, err := e.beginInput(st, in)
	if err != nil {
		return gstc.RawBuffer{}, err
	}
	v := fi.view
	l := fi.layout
	g, err := l.Geometry()
	if err != nil {
		e.endInput(self, st, &fi)
		return gstc.RawBuffer{}, gstc.Fail(gstc.StreamFormat, "input layout: %v", err)
	}
	p, err := fi.ent.Pin().Narrow(l.Offset, g.Extent)
	if err != nil {
		e.endInput(self, st, &fi)
		return gstc.RawBuffer{}, gstc.Fail(gstc.StreamFormat, "input at offset %d (%d bytes) does not fit its memory: %v", l.Offset, g.Extent, err)
	}
	l.Offset = 0
	outs, runErr := st.sess.RunPerFrame(infer.Input{Pin: &p, Layout: l, Transpose: st.transpose})
	p.Release()
	e.endInput(self, st, &fi)
	if runErr != nil {
		return gstc.RawBuffer{}, gstc.Fail(gstc.LibraryFailed, "%v", runErr)
	}
	buf, ok := gstc.NewCopiedBuffer(v.PTS(), v.DTS(), v.Duration(), outs...)
	if !ok {
		return gstc.RawBuffer{}, gstc.Fail(gstc.ResourceNoSpaceLeft, "cannot allocate the output buffer")
	}
	for _, o := range outs {
		e.stats.copies.Add(1)
		e.stats.bytesCopied.Add(uint64(len(o)))
	}
	return buf, nil
}

func (e *element) endRead(t *tensor.Tensor) {
	if t == nil {
		return
	}
	if _, err := t.EndCPUAccess(tensor.AccessRead); err != nil {
		cat.LogWarning("ending CPU access to the input: " + err.Error())
	}
	e.stats.inSyncs.Add(1)
}

// bindOnce returns the session input slot bound to ent's memory with
// layout l (l.Offset: where the input starts in it), binding one first
// if there is none: once per memory and layout, at most layoutsPerEntry
// layouts per memory (a third replaces the least recently used).
func (e *element) bindOnce(st *streamState, ent *pincache.Entry, l tensor.Layout) (int, error) {
	k := bindKey{ent: ent, offset: l.Offset, stride: l.RowStride}
	if slot, ok := st.binds.find(k); ok {
		return slot, nil
	}
	if old := st.binds.replaced(ent); old >= 0 {
		e.unbind(st, old)
	}
	g, err := l.Geometry()
	if err != nil {
		return 0, gstc.Fail(gstc.StreamFormat, "input layout: %v", err)
	}
	p, err := ent.Pin().Narrow(l.Offset, g.Extent)
	if err != nil {
		return 0, gstc.Fail(gstc.StreamFormat, "input at offset %d (%d bytes) does not fit its memory: %v", l.Offset, g.Extent, err)
	}
	defer p.Release()
	bl := l
	bl.Offset = 0
	slot := st.binds.take()
	if err := st.sess.BindInput(slot, infer.Input{Pin: &p, Layout: bl, Transpose: st.transpose}); err != nil {
		return 0, gstc.Fail(gstc.CoreNegotiation, "%v", err)
	}
	st.binds.add(slot, k)
	e.stats.inputsBound.Store(uint64(st.binds.count()))
	st.steadyDirty = true
	if b, ok := st.sess.InputBinding(slot); ok && b.Conversion != "" {
		cat.LogInfo(fmt.Sprintf("input slot %d is converted on every run: %s", slot, b.Conversion))
	}
	return slot, nil
}

// unbind destroys session input slot slot's binding (its ONNX Runtime
// value, IoBindings and pin clone: the entry's mapping and slot number
// go when nothing else holds them) and forgets it. The steady frame's
// table, which holds the slot's IoBindings, is emptied first (rebuilt
// after the frame).
func (e *element) unbind(st *streamState, slot int) {
	st.forgetSteady()
	if err := st.sess.UnbindInput(slot); err != nil {
		cat.LogWarning(fmt.Sprintf("unbinding input slot %d: %v", slot, err))
	}
	st.binds.remove(slot)
	e.stats.inputUnbinds.Add(1)
	e.stats.inputsBound.Store(uint64(st.binds.count()))
}

// unbindEvicted unbinds the slots bound over entries the pin cache no
// longer holds: after an insert (which may evict) and a clear.
func (e *element) unbindEvicted(st *streamState) {
	slots := st.binds.evicted(st.unbindScratch[:0])
	for _, slot := range slots {
		e.unbind(st, slot)
	}
	st.unbindScratch = slots[:0]
}

// entryForMemory finds the pinned entry of memory i of the view: its
// qdata (no syscall), else its fd's identity, else a new import (one
// mmap). As tensorpinsink's.
func (e *element) entryForMemory(st *streamState, v *gstc.BufferView, i int) (*pincache.Entry, error) {
	off, size := v.MemOffset(i), v.MemSize(i)
	if q, ok := v.MemQdata(i); ok {
		if ent, _ := q.(*pincache.Entry); ent != nil && ent.Key().Offset == off && ent.Key().Size == size && st.cache.Hit(ent) {
			e.stats.hits.Add(1)
			return ent, nil
		}
	}
	fd := v.MemFD(i)
	id, err := tensor.IdentityOf(fd)
	if err != nil {
		return nil, gstc.Fail(gstc.ResourceRead, "input memory has no usable fd: %v", err)
	}
	key := pincache.Key{ID: id, Offset: off, Size: size}
	if ent := st.cache.Lookup(key); ent != nil {
		e.stats.hits.Add(1)
		st.qkey.SetShared(v.Memory(i), qdataValue(ent))
		return ent, nil
	}
	st.touchSteady() // the insert may evict: not an entry C runs on
	ent, err := st.cache.Insert(fd, key)
	e.unbindEvicted(st)
	if err != nil {
		return nil, gstc.Fail(gstc.ResourceRead, "cannot import and pin the input's fd %d: %v", fd, err)
	}
	e.stats.misses.Add(1)
	e.stats.mmaps.Add(1)
	st.qkey.SetShared(v.Memory(i), qdataValue(ent))
	return ent, nil
}

func qdataValue(ent *pincache.Entry) gstc.QdataValue {
	if t := ent.Tag(); t != 0 {
		return gstc.QdataValue(t)
	}
	v := gstc.NewQdataValue(ent)
	ent.SetTag(uintptr(v), freeQdataValue)
	return v
}

func freeQdataValue(t uintptr) { gstc.QdataValue(t).Free() }

// copyIn copies an input that is not one fd memory into the element's
// own pinned memfd tensor (one: the run is done before the next frame),
// bound as one input slot; counted in copies and bytes-copied, the first
// logged in GST_PERFORMANCE.
func (e *element) copyIn(st *streamState, in gstc.RawBuffer, size int) (*pincache.Entry, error) {
	own := st.own
	if own == nil || own.Capacity() < size {
		if own != nil {
			own.Close()
			st.own = nil
		}
		var err error
		own, err = tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{size}},
			tensor.AllocOptions{Source: tensor.SourceMemfd, Name: "tensorinfer-copy"})
		if err != nil {
			return nil, gstc.Fail(gstc.ResourceNoSpaceLeft, "cannot allocate pinned memory for a copied input: %v", err)
		}
		st.own = own
	}
	key := pincache.Key{ID: own.Identity(), Size: own.Capacity()}
	ent := st.cache.Lookup(key)
	if ent == nil {
		var err error
		st.touchSteady()
		ent, err = st.cache.Insert(own.FD(), key)
		e.unbindEvicted(st)
		if err != nil {
			return nil, gstc.Fail(gstc.ResourceRead, "cannot pin the element's own memory: %v", err)
		}
		e.stats.misses.Add(1)
		e.stats.mmaps.Add(1)
	} else {
		e.stats.hits.Add(1)
	}
	n := gstc.ExtractBuffer(in, ent.Pin().Bytes()[:size])
	e.stats.copies.Add(1)
	e.stats.bytesCopied.Add(uint64(n))
	if !st.copyLogged {
		st.copyLogged = true
		perf.LogInfo(fmt.Sprintf("tensorinfer: copying input buffers (%d bytes each) that are not one fd memory into pinned memory; "+
			"the stats property counts every copy (copies, bytes-copied)", size))
	}
	return ent, nil
}

// SinkEOS posts the counters as the element message tensorinfer-stats,
// before EOS goes downstream.
func (e *element) SinkEOS(self gstc.RawElement) {
	if st := e.current(); st != nil {
		e.stats.beginsExpired.Add(uint64(st.begins.Clear()))
	}
	gstc.PostElementMessageRaw(self, e.statsStructure())
}

// SinkFlushStop forgets the pending begins (their buffers were
// flushed) and the last result output=video reuses, and lets the
// streaming thread wait for a free slot again.
func (e *element) SinkFlushStop(self gstc.RawElement) {
	e.wake.setFlushing(false)
	if st := e.current(); st != nil {
		e.stats.beginsExpired.Add(uint64(st.begins.Clear()))
		st.video.Reset()
	}
}
