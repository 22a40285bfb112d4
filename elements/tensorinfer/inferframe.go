package tensorinfer

// inferframe.go: the element's frame engine (see inferframe.h) — the C
// state Go builds at start and changes on the streaming thread, and the
// calls through which the engine asks Go for what only Go can do.

/*
#include <stdlib.h>
#include "inferframe.h"
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/preprocess"
)

// inferEngine is an element's frame engine: C memory made at start, freed
// at stop, changed by Go on the streaming thread only (or while nothing
// streams). The zero value is no engine.
type inferEngine struct{ p *C.GstcInferFrame }

// newInferEngine returns an engine for self counting into c; not ready
// until SetReady.
func newInferEngine(self gstglue.RawElement, c frameengine.Counters) inferEngine {
	return inferEngine{C.gstc_infer_frame_new(elemP(self), (*C.GstcCounters)(c.Unsafe()))}
}

// IsZero reports whether s is no engine.
func (s inferEngine) IsZero() bool { return s.p == nil }

// Install makes s the engine of self; uninstallInferEngine before Free.
func (s inferEngine) Install(self gstglue.RawElement) { C.gstc_infer_frame_set(elemP(self), s.p) }

// uninstallInferEngine leaves self with no engine (a frame then goes to
// the element's PrepareRaw, if it has one).
func uninstallInferEngine(self gstglue.RawElement) { C.gstc_infer_frame_set(elemP(self), nil) }

// Free releases the engine (uninstalled, no frame running).
func (s inferEngine) Free() { C.gstc_infer_frame_free(s.p) }

// SetReady says whether frames can run: caps set, a session and a ring.
func (s inferEngine) SetReady(on bool) { s.p.ready = cbool(on) }

// SetPerFrame makes every run Go's InferPerFrame (a benchmark mode).
func (s inferEngine) SetPerFrame(on bool) { s.p.per_frame = cbool(on) }

// SetSession sets ONNX Runtime's session, the C functions that run a
// binding, release a status and read its message (package infer's
// ortabi.Runner), the run clock's sampling, and the model's name for
// error texts.
func (s inferEngine) SetSession(session, run, releaseStatus, errorMessage unsafe.Pointer, period time.Duration, sampleMax int, model string) {
	s.p.session = session
	s.p.run = C.GstcRunFunc(run)
	s.p.release_status = C.GstcReleaseFunc(releaseStatus)
	s.p.error_message = C.GstcErrorMessageFunc(errorMessage)
	s.p.sample_period_ns = C.guint64(period)
	s.p.sample_max = C.int(sampleMax)
	C.g_free(C.gpointer(s.p.model))
	s.p.model = C.CString(model)
}

// SetRing replaces the output ring (the engine takes a reference; the
// ring's frees wake the engine's wait for a slot). nil: none.
func (s inferEngine) SetRing(r *frameengine.OutRing) {
	C.gstc_infer_frame_set_ring(s.p, (*C.GstcOutRing)(r.Unsafe()))
}

// SetStream sets the pin cache's qdata key and where the input starts
// and its row stride in a buffer without a GstVideoMeta.
func (s inferEngine) SetStream(q gstglue.QdataKey, offset, stride int) {
	s.p.qkey = C.GQuark(q.Quark())
	s.p.default_offset = C.guint64(offset)
	s.p.default_stride = C.gint(stride)
}

// SetSync sets the bound of the wait for an input's fences (0: none)
// and what its timeout does (drop the frame, or fail).
func (s inferEngine) SetSync(timeout time.Duration, drop bool) {
	s.p.sync_timeout_ms = -1
	if timeout > 0 {
		s.p.sync_timeout_ms = C.int(max(timeout/time.Millisecond, 1))
	}
	s.p.drop_on_timeout = cbool(drop)
}

// Preprocess is the fused pre-processing the engine runs before each
// run: Run (gstpp_run) with Plan, from a frame laid out as Strides and
// Offsets (a frame whose video meta differs goes to Go), into Dst
// (pinned, the session's bound input), run on IO[k] with output slot k.
// The caller keeps the plan and Dst alive while they are set.
type enginePreprocess struct {
	Plan, Run        unsafe.Pointer
	Dst              unsafe.Pointer
	DstLen           int
	Strides, Offsets []int
	// CapsStrides and CapsOffsets: the caps' layout, which a frame
	// without a video meta has.
	CapsStrides, CapsOffsets []int
	IO                       []unsafe.Pointer
}

// The element's counters (inferframe.h's enum, after the shared
// engine's: frameengine.Counters).
const (
	ctrFrames         = C.GSTC_INFER_FRAMES
	ctrHits           = C.GSTC_INFER_HITS
	ctrInSyncs        = C.GSTC_INFER_IN_SYNCS
	ctrBeginsMatched  = C.GSTC_INFER_BEGINS_MATCHED
	ctrBeginsExpired  = C.GSTC_INFER_BEGINS_EXPIRED
	ctrEndEventsSent  = C.GSTC_INFER_END_EVENTS_SENT
	ctrRuns           = C.GSTC_INFER_RUNS
	ctrRunNs          = C.GSTC_INFER_RUN_NS
	ctrRunCPUNs       = C.GSTC_INFER_RUN_CPU_NS
	ctrRunWallSampled = C.GSTC_INFER_RUN_WALL_SAMPLED
	ctrRunsCPUSampled = C.GSTC_INFER_RUNS_CPU_SAMPLED
	ctrDropped        = C.GSTC_INFER_DROPPED
	ctrFenceWaits     = C.GSTC_INFER_FENCE_WAITS
	ctrFenceTimeouts  = C.GSTC_INFER_FENCE_TIMEOUTS
	ctrCopies         = C.GSTC_INFER_COPIES
	ctrBytesCopied    = C.GSTC_INFER_BYTES_COPIED
	ctrPreprocessed   = C.GSTC_INFER_PREPROCESSED
	ctrPreprocessNs   = C.GSTC_INFER_PREPROCESS_NS
	ctrGoFrames       = C.GSTC_INFER_GO_FRAMES
	ctrRegions        = C.GSTC_INFER_REGIONS
	ctrRegionsSmall   = C.GSTC_INFER_REGIONS_SMALL
	ctrRegionsDropped = C.GSTC_INFER_REGIONS_DROPPED
	ctrRegionsReused  = C.GSTC_INFER_REGIONS_REUSED
	ctrWrapped        = C.GSTC_INFER_WRAPPED
	ctrEnd            = C.GSTC_INFER_COUNTERS_END
)

// MaxPreprocessPlanes bounds Preprocess's planes.
const MaxPreprocessPlanes = C.GSTC_INFER_MAX_PLANES

// SetPreprocess sets (p.Plan non-nil) or clears the pre-processing.
func (s inferEngine) SetPreprocess(p enginePreprocess) {
	s.p.pre_plan = p.Plan
	s.p.pre_run = C.GstcPreRunFunc(p.Run)
	s.p.pre_dst = p.Dst
	s.p.pre_dst_len = C.size_t(p.DstLen)
	n := min(len(p.Strides), len(p.Offsets), MaxPreprocessPlanes)
	s.p.pre_n_planes = C.int(n)
	for i := range n {
		s.p.pre_strides[i] = C.gint(p.Strides[i])
		s.p.pre_offsets[i] = C.guint64(p.Offsets[i])
	}
	n = min(len(p.CapsStrides), len(p.CapsOffsets), MaxPreprocessPlanes)
	s.p.pre_caps_n_planes = C.int(n)
	for i := range n {
		s.p.pre_caps_strides[i] = C.gint(p.CapsStrides[i])
		s.p.pre_caps_offsets[i] = C.guint64(p.CapsOffsets[i])
	}
	s.p.pre_io = [frameengine.MaxOutSlots]unsafe.Pointer{}
	copy(s.p.pre_io[:], p.IO)
}

// SetPreprocessIO sets the pre-processed input's IoBinding with output
// slot k (a slot the ring grew).
func (s inferEngine) SetPreprocessIO(k int, io unsafe.Pointer) { s.p.pre_io[k] = io }

// InferInput is one input of the engine's table (inferframe.h's
// GstcInferInput). Tensor (a *tensor.Tensor) is the pin cache entry's,
// kept open by the caller while the input is in the table; nil for the
// copy input, which has no bracket. Host is the pinned first byte of the
// memory region [MemOffset, MemOffset+MemSize). IO[k] is the
// OrtIoBinding of Slot and output slot k (nil: converted, Go runs it).
type engineRecord struct {
	Tag                uintptr
	MemOffset, MemSize uint64
	Tensor             any
	Dev, Ino           uint64
	Offset             uint64
	Stride             int
	Host               unsafe.Pointer
	Need               uint64
	Slot               int
	Copy               bool
	IO                 []unsafe.Pointer
}

// maxEngineInputs bounds the engine's table.
const maxEngineInputs = C.GSTC_INFER_MAX_INPUTS

// NumInputs returns the table's inputs.
func (s inferEngine) NumInputs() int { return int(s.p.n_in) }

// AddInput adds in to the table and returns its index; false if the
// table is full or in.Tensor has no shared bracket.
func (s inferEngine) AddInput(in engineRecord) (int, bool) {
	n := int(s.p.n_in)
	if n >= maxEngineInputs || len(in.IO) > frameengine.MaxOutSlots {
		return 0, false
	}
	r := &s.p.in[n]
	*r = C.GstcInferInput{}
	region := frameengine.Input{Tag: in.Tag, MemOffset: in.MemOffset, MemSize: in.MemSize, Tensor: in.Tensor,
		Dev: in.Dev, Ino: in.Ino, Host: in.Host, Copy: in.Copy}
	if !region.FillC(unsafe.Pointer(&r.in)) {
		return 0, false
	}
	r.offset, r.stride = C.guint64(in.Offset), C.gint(in.Stride)
	r.need = C.guint64(in.Need)
	r.slot = C.int(in.Slot)
	copy(r.io[:], in.IO)
	s.p.n_in = C.int(n + 1)
	return n, true
}

// SetInputIO sets input i's IoBinding with output slot k (a slot the
// ring grew).
func (s inferEngine) SetInputIO(i, k int, io unsafe.Pointer) { s.p.in[i].io[k] = io }

// RemoveInput removes input i; the last input takes its index.
func (s inferEngine) RemoveInput(i int) { C.gstc_infer_frame_remove_input(s.p, C.int(i)) }

// InputUsed returns the use stamp of input i: the engine's frame count
// at its last frame, 0 if none. Stamps order the inputs by last use.
func (s inferEngine) InputUsed(i int) uint64 { return uint64(s.p.in[i].used) }

// SetRegions turns region mode on (the pass set by SetPreprocess must be
// a region plan) with set's region settings, g's geometry, frames of
// frameW × frameH and the batch input at dst (dstLen bytes, pinned: the
// caller keeps it while it is set).
func (s inferEngine) SetRegions(set settings, g regionGeometry, frameW, frameH int, dst unsafe.Pointer, dstLen int) {
	C.gstc_infer_frame_set_regions(s.p, C.int(set.maxRegions))
	C.gstc_infer_frame_set_reclassify(s.p, C.guint(set.reclassifyInterval))
	s.p.pre_region = C.GstppRegionFunc(preprocess.CRegionFunc())
	s.p.batch_dst, s.p.batch_dst_len = (*C.guint8)(dst), C.size_t(dstLen)
	s.p.elem_size = C.size_t(g.dtype.Size())
	s.p.batch_max = C.int(g.batch)
	s.p.min_size = C.int(set.minRegionSize)
	s.p.frame_w, s.p.frame_h = C.int(frameW), C.int(frameH)
	s.p.fixed_w, s.p.fixed_h = C.int(g.fixedW), C.int(g.fixedH)
	s.p.free_max = C.int(max(g.capW, g.capH))
	if g.fixedW != 0 && g.fixedH == 0 {
		s.p.free_max = C.int(g.capH)
	} else if g.fixedW == 0 {
		s.p.free_max = C.int(g.capW)
	}
	s.p.free_step = freeSideStep
	s.p.letterbox = cbool(set.resize == "letterbox")
	classes := regionClasses(set.objectClass)
	s.p.n_classes = C.int(min(len(classes), C.GSTC_INFER_MAX_CLASSES))
	for i, c := range classes[:int(s.p.n_classes)] {
		cs := C.CString(c)
		s.p.classes[i] = C.g_quark_from_string(cs)
		C.free(unsafe.Pointer(cs))
	}
}

// NumVariants returns the region shapes in the C table.
func (s inferEngine) NumVariants() int { return int(s.p.n_var) }

// AddVariant adds a region shape — rows images of w × h, its outputs'
// caps (the table takes a reference), its IoBinding with each output
// slot — and returns its index.
func (s inferEngine) AddVariant(rows, w, h int, caps *gst.Caps, io []unsafe.Pointer) int {
	i := int(s.p.n_var)
	v := &s.p._var[i]
	*v = C.GstcInferVariant{rows: C.int(rows), dst_w: C.int(w), dst_h: C.int(h)}
	v.caps = C.gst_caps_ref((*C.GstCaps)(caps.Unsafe()))
	copy(v.io[:], io)
	s.p.n_var = C.int(i + 1)
	return i
}

// SetVariantIO sets region shape i's IoBinding with output slot k (a
// slot the ring grew).
func (s inferEngine) SetVariantIO(i, k int, io unsafe.Pointer) { s.p._var[i].io[k] = io }

// ClearVariants empties the region shapes' table (their sessions go).
func (s inferEngine) ClearVariants() { C.gstc_infer_frame_clear_variants(s.p) }

// hostOf returns the Go side of the element at t for a call from its C
// frame, or posts why not.
func hostOf(t *C.GstBaseTransform, h C.uintptr_t) (*element, bool) {
	e, ok := gstglue.InstanceOf[*element](unsafe.Pointer(t), uintptr(h))
	if !ok {
		gstglue.PostErrorRaw(gstglue.RawElementOf(unsafe.Pointer(t)), gstglue.CoreFailed, "tensorinfer: the element's Go side is gone", "")
	}
	return e, ok
}

//export gstcGoInferInput
func gstcGoInferInput(t *C.GstBaseTransform, h C.uintptr_t, in *C.GstBuffer) (ret C.int) {
	self := gstglue.RawElementOf(unsafe.Pointer(t))
	defer gstglue.RecoverTrampoline(self, "tensorinfer input", &ret, C.int(C.GST_FLOW_ERROR))
	e, ok := hostOf(t, h)
	if !ok {
		return C.GST_FLOW_ERROR
	}
	return C.int(e.inferInput(self, gstglue.RawBufferOf(unsafe.Pointer(in))))
}

//export gstcGoInferRun
func gstcGoInferRun(t *C.GstBaseTransform, h C.uintptr_t, inSlot, outSlot C.int) (ret C.GstFlowReturn) {
	self := gstglue.RawElementOf(unsafe.Pointer(t))
	defer gstglue.RecoverTrampoline(self, "tensorinfer run", &ret, C.GST_FLOW_ERROR)
	e, ok := hostOf(t, h)
	if !ok {
		return C.GST_FLOW_ERROR
	}
	return C.GstFlowReturn(e.inferRun(self, int(inSlot), int(outSlot)))
}

//export gstcGoInferPerFrame
func gstcGoInferPerFrame(t *C.GstBaseTransform, h C.uintptr_t, in *C.GstBuffer, i C.int, out **C.GstBuffer) (ret C.GstFlowReturn) {
	self := gstglue.RawElementOf(unsafe.Pointer(t))
	defer gstglue.RecoverTrampoline(self, "tensorinfer per-frame run", &ret, C.GST_FLOW_ERROR)
	e, ok := hostOf(t, h)
	if !ok {
		return C.GST_FLOW_ERROR
	}
	flow, buf := e.inferPerFrame(self, gstglue.RawBufferOf(unsafe.Pointer(in)), int(i))
	*out = bufP(buf)
	return C.GstFlowReturn(flow)
}

//export gstcGoInferVariant
func gstcGoInferVariant(t *C.GstBaseTransform, h C.uintptr_t, rows, free C.int) (ret C.int) {
	self := gstglue.RawElementOf(unsafe.Pointer(t))
	defer gstglue.RecoverTrampoline(self, "tensorinfer region shape", &ret, C.int(C.GST_FLOW_ERROR))
	e, ok := hostOf(t, h)
	if !ok {
		return C.GST_FLOW_ERROR
	}
	return C.int(e.regionVariantCall(self, int(rows), int(free)))
}

//export gstcGoInferGrow
func gstcGoInferGrow(t *C.GstBaseTransform, h C.uintptr_t) (ret C.gboolean) {
	self := gstglue.RawElementOf(unsafe.Pointer(t))
	defer gstglue.RecoverTrampoline(self, "tensorinfer region slot", &ret, C.FALSE)
	e, ok := hostOf(t, h)
	if !ok {
		return C.FALSE
	}
	return cbool(e.regionGrowCall(self))
}
