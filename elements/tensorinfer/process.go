package tensorinfer

import (
	"fmt"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pinread"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
)

// inferInputHook, when set, runs first in every inferInput: the tests'
// seam for a panic in a call from the C frame. Production code never
// sets it.
var inferInputHook func()

// inferInput is the engine's call (gstcGoInferInput) when a
// frame's memory is not in its table. It finds the input's pinned entry
// (importing it, or the element's own memory for an input that is not
// one fd memory, which the engine copies into), binds it once (the
// session input slot for its memory and layout), and puts it in the
// engine's table. Errors are posted here and named as the frame's.
func (e *element) inferInput(self gstglue.RawElement, in gstglue.RawBuffer) int {
	if inferInputHook != nil {
		inferInputHook()
	}
	st := e.current()
	if st == nil {
		return int(gst.FlowFlushing)
	}
	i, err := e.engineInputFor(st, in)
	if err != nil {
		gstglue.PostErrorRaw(self, gstglue.CodeOf(err, gstglue.StreamFailed), "tensorinfer: "+err.Error(), "")
		return int(gst.FlowError)
	}
	return i
}

func (e *element) engineInputFor(st *streamState, in gstglue.RawBuffer) (int, error) {
	v := &st.view
	gstglue.ReadBufferView(in, st.qkey, v) // the one read of the buffer
	l := st.inLayout
	vm, hasMeta := v.VideoMeta()
	if st.pre != nil {
		// Pre-processing reads the memory whole and the meta itself (a
		// frame without one is laid out as the caps say).
		strides, offsets := st.pre.capsStrides, st.pre.capsOffsets
		if hasMeta && vm.NPlanes > 0 {
			strides, offsets = vm.Strides[:vm.NPlanes], vm.Offsets[:vm.NPlanes]
		}
		if err := e.replanPreprocess(st, strides, offsets); err != nil {
			return 0, err
		}
	} else if hasMeta && vm.NPlanes > 0 {
		l.Offset, l.RowStride = vm.Offsets[0], vm.Strides[0]
	}
	g, err := st.inputGeometry(l)
	if err != nil {
		return 0, gstglue.Fail(gstglue.StreamFormat, "input layout %v: %v", l, err)
	}
	off := l.Offset
	if v.Size() < off+g.Extent {
		// A copy would run the model on the bytes this buffer has and a
		// stale tail: refused, as tensorpinsink refuses it.
		return 0, gstglue.Fail(gstglue.StreamFormat, "input buffer of %d bytes is shorter than the frame its caps describe "+
			"(%d bytes from byte %d: %v %v, row stride %d)", v.Size(), g.Extent, off, l.DType, l.Shape, g.Stride)
	}
	fd := v.NMemory() == 1 && v.MemFD(0) >= 0 && off+g.Extent <= v.MemSize(0)
	var ent *pincache.Entry
	if fd {
		ent, err = e.entryForMemory(st, v, 0)
	} else {
		ent, err = e.copyEntry(st, v.Size())
	}
	if err != nil {
		return 0, err
	}
	// The lookup's reference; the table takes its own.
	defer ent.Release()
	if fd && (st.set.output == outputVideo || st.set.regions()) {
		// A camera's dma-buf whose video goes on: its wrapper, made once
		// per memory, carries the frame downstream inside one bracket
		// (frameengine's foreignmem). Without one the frame goes on as it
		// came, each element bracketing its own access.
		if _, err := frameengine.WrapForeign(v.Memory(0)); err != nil {
			cat.LogWarning("the input goes on unwrapped: " + err.Error())
		}
	}
	kOff, kStride := l.Offset, l.RowStride
	if st.pre != nil {
		kOff, kStride = 0, 0 // the engine reads the memory whole
	}
	if i := st.findEngineInput(ent, kOff, kStride); i >= 0 {
		return i, nil
	}
	slot := -1
	if !st.perFrame && st.pre == nil {
		if slot, err = e.bindOnce(st, ent, l); err != nil {
			return 0, err
		}
	}
	key, id := ent.Key(), ent.Tensor().Identity()
	rec := engineRecord{
		Tag: ent.Tag(), MemOffset: uint64(key.Offset), MemSize: uint64(key.Size), Tensor: ent.Tensor(),
		Dev: id.Dev, Ino: id.Ino, Offset: uint64(kOff), Stride: kStride, Host: unsafe.Pointer(unsafe.SliceData(ent.Pin().Bytes())),
		Need: uint64(off + g.Extent), Slot: slot, Copy: !fd,
	}
	if !fd {
		rec.Tag, rec.MemOffset, rec.MemSize = 0, 0, uint64(st.own.Capacity())
	}
	if slot >= 0 {
		rec.IO = st.engineIO(slot)
	}
	i, ok := st.addEngineInput(ent, engineInput{offset: kOff, stride: kStride, slot: slot}, rec)
	if !ok {
		return 0, gstglue.Fail(gstglue.CoreFailed, "the input's pinned memory cannot be bracketed from C (no shared bracket)")
	}
	return i, nil
}

// inferRun is the engine's call (gstcGoInferRun) for the run of an input slot
// package infer converts before each run (a frame laid out otherwise
// than the model takes it), which is Go's.
func (e *element) inferRun(self gstglue.RawElement, inSlot, outSlot int) gst.FlowReturn {
	st := e.current()
	if st == nil {
		return gst.FlowFlushing
	}
	if inSlot < 0 {
		inSlot = preInputSlot
	}
	if err := st.sess.Run(inSlot, outSlot); err != nil {
		gstglue.PostErrorRaw(self, gstglue.LibraryFailed, "tensorinfer: "+err.Error(), "")
		return gst.FlowError
	}
	return gst.FlowOK
}

// inferPerFrame is the engine's call (gstcGoInferPerFrame): the run of a frame the
// upstream way (TENSORPIN_INFER_MODE=per-frame, a benchmark aid) on its
// input (the engine's table input i, found, pinned and bracketed as in
// the element's way, so that only what the two ways do with ONNX Runtime
// differs): the engine's RunPerFrame (a new input value over the frame,
// a run without IoBinding, every output copied into new memory) and a
// new buffer of system memories holding a copy of each output, as
// GStreamer's onnxinference pushes. The output ring is not used.
func (e *element) inferPerFrame(self gstglue.RawElement, in gstglue.RawBuffer, i int) (gst.FlowReturn, gstglue.RawBuffer) {
	st := e.current()
	if st == nil || i < 0 || i >= len(st.engineIns) {
		return gst.FlowFlushing, gstglue.RawBuffer{}
	}
	buf, err := e.runPerFrame(st, in, st.engineIns[i])
	if err != nil {
		gstglue.PostErrorRaw(self, gstglue.CodeOf(err, gstglue.StreamFailed), "tensorinfer: "+err.Error(), "")
		return gst.FlowError, gstglue.RawBuffer{}
	}
	return gst.FlowOK, buf
}

func (e *element) runPerFrame(st *streamState, in gstglue.RawBuffer, ei engineInput) (gstglue.RawBuffer, error) {
	v := &st.view
	gstglue.ReadBufferView(in, st.qkey, v)
	l := st.inLayout
	l.Offset, l.RowStride = ei.offset, ei.stride
	g, err := l.Geometry()
	if err != nil {
		return gstglue.RawBuffer{}, gstglue.Fail(gstglue.StreamFormat, "input layout: %v", err)
	}
	p, err := ei.ent.Pin().Narrow(l.Offset, g.Extent)
	if err != nil {
		return gstglue.RawBuffer{}, gstglue.Fail(gstglue.StreamFormat, "input at offset %d (%d bytes) does not fit its memory: %v", l.Offset, g.Extent, err)
	}
	l.Offset = 0
	outs, runErr := st.sess.RunPerFrame(infer.Input{Pin: &p, Layout: l, Transpose: st.transpose})
	p.Release()
	if runErr != nil {
		return gstglue.RawBuffer{}, gstglue.Fail(gstglue.LibraryFailed, "%v", runErr)
	}
	buf, ok := newCopiedBuffer(v.PTS(), v.DTS(), v.Duration(), outs...)
	if !ok {
		return gstglue.RawBuffer{}, gstglue.Fail(gstglue.ResourceNoSpaceLeft, "cannot allocate the output buffer")
	}
	for _, o := range outs {
		e.stats.copies.Add(1)
		e.stats.bytesCopied.Add(uint64(len(o)))
	}
	return buf, nil
}

// inputGeometry is l's geometry (l: the caps' input layout with a
// frame's offset and row stride), remembered for the last offset and
// stride: frames of one stream share them.
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
		return 0, gstglue.Fail(gstglue.StreamFormat, "input layout: %v", err)
	}
	p, err := ent.Pin().Narrow(l.Offset, g.Extent)
	if err != nil {
		return 0, gstglue.Fail(gstglue.StreamFormat, "input at offset %d (%d bytes) does not fit its memory: %v", l.Offset, g.Extent, err)
	}
	defer p.Release()
	bl := l
	bl.Offset = 0
	slot := st.binds.take()
	if err := st.sess.BindInput(slot, infer.Input{Pin: &p, Layout: bl, Transpose: st.transpose}); err != nil {
		return 0, gstglue.Fail(gstglue.CoreNegotiation, "%v", err)
	}
	st.binds.add(slot, k)
	e.stats.inputsBound.Store(uint64(st.binds.count()))
	if b, ok := st.sess.InputBinding(slot); ok && b.Conversion != "" {
		cat.LogInfo(fmt.Sprintf("input slot %d is converted on every run: %s", slot, b.Conversion))
	}
	return slot, nil
}

// unbind destroys session input slot slot's binding (its ONNX Runtime
// value, IoBindings and pin clone: the entry's mapping and slot number
// go when nothing else holds them) and forgets it. The engine's inputs
// that run it (they hold its IoBindings) leave its table first.
func (e *element) unbind(st *streamState, slot int) {
	st.removeEngineInputs(func(in engineInput) bool { return in.slot == slot })
	if err := st.sess.UnbindInput(slot); err != nil {
		cat.LogWarning(fmt.Sprintf("unbinding input slot %d: %v", slot, err))
	}
	st.binds.remove(slot)
	e.stats.inputUnbinds.Add(1)
	e.stats.inputsBound.Store(uint64(st.binds.count()))
}

// unbindEvicted unbinds the slots bound over entries the pin cache no
// longer holds, and takes the engine's inputs over them out of its
// table: after an insert (which may evict) and a clear.
func (e *element) unbindEvicted(st *streamState) {
	st.removeEngineInputs(func(in engineInput) bool { return !in.ent.Live() })
	slots := st.binds.evicted(st.unbindScratch[:0])
	for _, slot := range slots {
		e.unbind(st, slot)
	}
	st.unbindScratch = slots[:0]
}

// reader is the run's pin-cache reading (package pinread, shared with
// tensorpinsink): an insert, which may evict, first tells the cache what
// the engine ran on and then takes the engine's inputs over evicted
// entries out of its table.
func (e *element) reader(st *streamState) pinread.Reader {
	if st.hooks.st != st { // made once a run: a call into Go allocates nothing
		st.hooks = insertHooks{e, st}
	}
	return pinread.Reader{Cache: st.cache, Qkey: st.qkey, Noun: "input", Hooks: &st.hooks}
}

// insertHooks are tensorinfer's pinread.InsertHooks.
type insertHooks struct {
	e  *element
	st *streamState
}

func (h *insertHooks) BeforeInsert() { h.st.touchEngineInputs() }
func (h *insertHooks) AfterInsert()  { h.e.unbindEvicted(h.st) }

// entryForMemory finds the pinned entry of memory i of the view
// (pinread.Reader.EntryForMemory), counted.
func (e *element) entryForMemory(st *streamState, v *gstglue.BufferView, i int) (*pincache.Entry, error) {
	r := e.reader(st)
	ent, isNew, err := r.EntryForMemory(v, i)
	e.countLookup(ent, isNew)
	return ent, err
}

func (e *element) countLookup(ent *pincache.Entry, isNew bool) {
	switch {
	case ent == nil:
	case isNew:
		e.stats.misses.Add(1)
		e.stats.mmaps.Add(1)
	default:
		e.stats.hits.Add(1)
	}
}

// copyEntry returns the pinned entry of the element's own memfd tensor
// (one: the run is done before the next frame), at least size bytes,
// which the engine copies an input that is not one fd memory into —
// counted in copies and bytes-copied, the first such input logged in
// GST_PERFORMANCE.
func (e *element) copyEntry(st *streamState, size int) (*pincache.Entry, error) {
	r := e.reader(st)
	ent, isNew, err := r.OwnEntry(&st.own, size, "tensorinfer-copy")
	e.countLookup(ent, isNew)
	if err != nil {
		return nil, err
	}
	if !st.copyLogged {
		st.copyLogged = true
		perf.LogInfo(fmt.Sprintf("tensorinfer: copying input buffers (%d bytes each) that are not one fd memory into pinned memory; "+
			"the stats property counts every copy (copies, bytes-copied)", size))
	}
	return ent, nil
}

// sinkEOS posts the counters as the element message tensorinfer-stats,
// before EOS goes downstream.
func (e *element) sinkEOS(self gstglue.RawElement) {
	if st := e.current(); st != nil {
		e.stats.beginsExpired.Add(uint64(st.begins.Clear()))
	}
	gstglue.PostElementMessageRaw(self, e.statsStructure())
}

// sinkFlushStop forgets the pending begins (their buffers were
// flushed) and the last result output=video reuses. (The flush flag
// that ends the engine's waits is C's: frameengine's wake.)
func (e *element) sinkFlushStop(self gstglue.RawElement) {
	if st := e.current(); st != nil {
		e.stats.beginsExpired.Add(uint64(st.begins.Clear()))
		st.video.Reset()
	}
}
