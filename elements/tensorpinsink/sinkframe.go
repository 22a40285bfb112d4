package tensorpinsink

// sinkframe.go: the sink's frame engine (see sinkframe.h) — the C state
// Go builds at start, the table and plans Go fills when the engine asks,
// the leases C keeps, and the calls through which the engine asks Go for
// what only Go can do.

/*
#include "sinkframe.h"
*/
import "C"

import (
	"runtime/cgo"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// The element's counters (sinkframe.h's enum, after the shared engine's:
// frameengine.Counters, attached to the element for its lifetime).
const (
	ctrFrames         = C.GSTC_SINK_FRAMES
	ctrHits           = C.GSTC_SINK_HITS
	ctrMisses         = C.GSTC_SINK_MISSES
	ctrEvictions      = C.GSTC_SINK_EVICTIONS
	ctrMmaps          = C.GSTC_SINK_MMAPS
	ctrSyncs          = C.GSTC_SINK_SYNCS
	ctrJoined         = C.GSTC_SINK_JOINED
	ctrBeginsMatched  = C.GSTC_SINK_BEGINS_MATCHED
	ctrBeginsExpired  = C.GSTC_SINK_BEGINS_EXPIRED
	ctrBeginsRejected = C.GSTC_SINK_BEGINS_REJECTED
	ctrCopies         = C.GSTC_SINK_COPIES
	ctrBytesCopied    = C.GSTC_SINK_BYTES_COPIED
	ctrDropped        = C.GSTC_SINK_DROPPED
	ctrClosedAtStop   = C.GSTC_SINK_CLOSED_AT_STOP
	ctrWaitsForLease  = C.GSTC_SINK_WAITS_FOR_LEASE
	ctrPoolsProposed  = C.GSTC_SINK_POOLS_PROPOSED
	ctrHandlerPanics  = C.GSTC_SINK_HANDLER_PANICS
	ctrCacheCapacity  = C.GSTC_SINK_CACHE_CAPACITY
	ctrFenceWaits     = C.GSTC_SINK_FENCE_WAITS
	ctrFenceWaitNanos = C.GSTC_SINK_FENCE_WAIT_NS
	ctrFenceWaitMax   = C.GSTC_SINK_FENCE_WAIT_MAX_NS
	ctrFenceTimeouts  = C.GSTC_SINK_FENCE_TIMEOUTS
	ctrLeases         = C.GSTC_SINK_LEASES
)

// sinkFrame is a sink's frame engine for one run and the frames that
// outlive it (sinkframe.h). The zero value is none.
type sinkFrame struct{ p *C.GstcSinkFrame }

// newSinkFrame returns an engine for self with maxLeases leases; not
// ready until SetReady, not installed until Install.
func newSinkFrame(self gstglue.RawElement, maxLeases int) sinkFrame {
	return sinkFrame{C.gstc_sink_frame_new(elemP(self), C.int(maxLeases))}
}

// IsZero reports whether s is no engine.
func (s sinkFrame) IsZero() bool { return s.p == nil }

// Install makes s the engine of self's renders.
func (s sinkFrame) Install(self gstglue.RawElement) { C.gstc_sink_frame_set(elemP(self), s.p) }

// uninstallSinkFrame leaves self with no engine.
func uninstallSinkFrame(self gstglue.RawElement) { C.gstc_sink_frame_set(elemP(self), nil) }

// SetReady says whether frames can be made (caps set).
func (s sinkFrame) SetReady(on bool) { C.g_atomic_int_set(&s.p.ready, C.gint(cbool(on))) }

// SetSettings sets the properties the engine reads per frame: drop,
// emit-signals, post-sync-messages, sync-timeout (0: no bound — the
// wait for the fences ends when they signal, or at unlock, a flush or a
// stop) and on-sync-timeout=drop.
func (s sinkFrame) SetSettings(drop, emitSignals, postSync bool, syncTimeout time.Duration, dropOnTimeout bool) {
	C.g_atomic_int_set(&s.p.drop, C.gint(cbool(drop)))
	C.g_atomic_int_set(&s.p.emit_signals, C.gint(cbool(emitSignals)))
	C.g_atomic_int_set(&s.p.post_sync, C.gint(cbool(postSync)))
	ms := -1
	if syncTimeout > 0 {
		ms = max(int(syncTimeout/time.Millisecond), 1)
	}
	C.g_atomic_int_set(&s.p.sync_timeout_ms, C.gint(ms))
	C.g_atomic_int_set(&s.p.drop_on_timeout, C.gint(cbool(dropOnTimeout)))
}

// SetGoConsumer says whether a Go consumer takes every frame
// (sinkDeliver).
func (s sinkFrame) SetGoConsumer(on bool) { C.g_atomic_int_set(&s.p.go_consumer, C.gint(cbool(on))) }

// SetQdataKey sets the pin cache's qdata key.
func (s sinkFrame) SetQdataKey(q gstglue.QdataKey) { s.p.qkey = C.GQuark(q.Quark()) }

// tableInput is a region in the engine's table.
type tableInput struct{ p *C.GstcSinkInput }

// AddInput adds region in (pin cache slot slot) to the table, holding
// keep (released by gstcGoSinkInputFree when the engine lets go of the
// region after RemoveInput, or by the caller when RemoveInput says so);
// fresh: its first frame is to come. False if the table is full or
// in.Tensor has no shared bracket.
func (s sinkFrame) AddInput(in frameengine.Input, slot int, keep any, fresh bool) (tableInput, bool) {
	var r C.GstcInput
	if !in.FillC(unsafe.Pointer(&r)) {
		return tableInput{}, false
	}
	h := cgo.NewHandle(keep)
	p := C.gstc_sink_frame_add_input(s.p, &r, C.int(slot), C.uintptr_t(h), cbool(fresh))
	if p == nil {
		h.Delete()
		return tableInput{}, false
	}
	return tableInput{p}, true
}

// NumInputs returns the table's regions.
func (s sinkFrame) NumInputs() int { return int(s.p.n_in) }

// Input returns table region i.
func (s sinkFrame) Input(i int) tableInput { return tableInput{s.p.in[i]} }

// Keep returns what the region holds (AddInput's keep).
func (r tableInput) Keep() any { return cgo.Handle(r.p.keep).Value() }

// Used returns the region's use stamp (the engine's count at its last
// frame).
func (r tableInput) Used() uint64 { return uint64(r.p.used) }

// RemoveInput takes region i out of the table (the last takes its
// index) and returns its keep if the engine let go of it now (the
// caller releases it); nil if a lease still holds the region (the
// engine releases it through gstcGoSinkInputFree).
func (s sinkFrame) RemoveInput(i int) any {
	r := s.p.in[i]
	h := cgo.Handle(r.keep)
	if C.gstc_sink_frame_remove_input(s.p, C.int(i)) == 0 {
		return nil
	}
	v := h.Value()
	h.Delete()
	return v
}

// keepFreer releases what a region kept (AddInput's keep) once the
// engine lets go of it after its table did.
type keepFreer interface{ freeSinkKeep() }

//export gstcGoSinkInputFree
func gstcGoSinkInputFree(h C.uintptr_t) {
	v := cgo.Handle(h).Value()
	cgo.Handle(h).Delete()
	if f, ok := v.(keepFreer); ok {
		f.freeSinkKeep()
	}
}

// SetLeaseCopy makes in lease i's copy memory (replacing and releasing
// the one before). The engine takes in's reference.
func (s sinkFrame) SetLeaseCopy(i int, in frameengine.Input, slot int, keep any) bool {
	var r C.GstcInput
	in.Copy = false // bracketed like any region: only the lookup tells it apart
	if !in.FillC(unsafe.Pointer(&r)) {
		return false
	}
	C.gstc_sink_frame_set_lease_copy(s.p, C.int(i), &r, C.int(slot), C.uintptr_t(cgo.NewHandle(keep)))
	return true
}

// LeaseCopy returns lease i's copy memory's keep, or nil.
func (s sinkFrame) LeaseCopy(i int) any {
	if p := s.leases()[i].copy_in; p != nil {
		return cgo.Handle(p.keep).Value()
	}
	return nil
}

func (s sinkFrame) leases() []C.GstcSinkLease {
	return unsafe.Slice(s.p.l, int(s.p.max))
}

// sinkPlane is where a frame plane lies: in memory Mem of the buffer at
// Skip (or at Skip of the buffer, copied), Extent bytes with row stride
// Stride.
type sinkPlane struct {
	Mem          int
	Skip, Extent int
	Stride       int
}

// sinkPlan is a frame layout (sinkframe.h's GstcSinkPlan): for buffers
// whose video meta (Video: read it; HasMeta and its fields) and memories
// (MemSizes, FdMask; Size for a copy of more memories than
// GSTC_SINK_MAX_MEMS) are these.
type sinkPlan struct {
	Copy, Video, HasMeta  bool
	MetaWidth, MetaHeight int
	MetaOffsets           []int
	MetaStrides           []int
	MemSizes              []int
	FdMask                uint
	Size                  int
	Planes                []sinkPlane
}

// maxSinkInputs bounds the engine's table.
const maxSinkInputs = C.GSTC_SINK_MAX_INPUTS

// maxSinkMems bounds a plan's memories (beyond: Size only, copied).
const maxSinkMems = C.GSTC_SINK_MAX_MEMS

// SetPlan adds plan p (replacing the oldest when full) and returns its
// index.
func (s sinkFrame) SetPlan(p sinkPlan) int {
	var c C.GstcSinkPlan
	c.copy, c.video, c.has_meta = cbool(p.Copy), cbool(p.Video), cbool(p.HasMeta)
	c.meta_width, c.meta_height = C.guint(p.MetaWidth), C.guint(p.MetaHeight)
	c.meta_n = C.guint(len(p.MetaOffsets))
	for i := range min(len(p.MetaOffsets), C.GST_VIDEO_MAX_PLANES) {
		c.meta_offset[i] = C.gsize(p.MetaOffsets[i])
		c.meta_stride[i] = C.gint(p.MetaStrides[i])
	}
	c.n_mem = C.guint(len(p.MemSizes))
	for i := range min(len(p.MemSizes), maxSinkMems) {
		c.mem_size[i] = C.gsize(p.MemSizes[i])
	}
	c.fd_mask = C.guint(p.FdMask)
	c.size = C.gsize(p.Size)
	c.n_planes = C.int(len(p.Planes))
	for i, pl := range p.Planes {
		c.p[i].mem = C.int(pl.Mem)
		c.p[i].skip, c.p[i].extent = C.guint64(pl.Skip), C.guint64(pl.Extent)
		c.p[i].stride = C.guint(pl.Stride)
	}
	return int(C.gstc_sink_frame_set_plan(s.p, &c))
}

// PlanOf returns the index of the plan that lays out buf, or -1.
func (s sinkFrame) PlanOf(buf gstglue.RawBuffer) int {
	return int(C.gstc_sink_frame_plan_of(s.p, bufP(buf)))
}

// ClearPlans forgets the plans (caps changed).
func (s sinkFrame) ClearPlans() { C.gstc_sink_frame_clear_plans(s.p) }

// Retire ends the run: no more frames; the brackets of held frames are
// left now (their Release finishes them). Returns how many.
func (s sinkFrame) Retire() int { return int(C.gstc_sink_frame_retire(s.p)) }

// Unref drops the caller's reference (at stop, after Retire and the
// table emptied).
func (s sinkFrame) Unref() { C.gstc_sink_frame_unref(s.p) }

// Ref takes a reference.
func (s sinkFrame) Ref() { C.g_atomic_int_inc(&s.p.refs) }

// Release releases lease i of generation gen; false if stale.
func (s sinkFrame) Release(i int, gen uint64) bool {
	return C.gstc_sink_frame_release(s.p, C.int(i), C.guint64(gen)) != 0
}

// LeaseBuffer returns a new reference of lease i's buffer if it is held
// in generation gen.
func (s sinkFrame) LeaseBuffer(i int, gen uint64) gstglue.Lease {
	return gstglue.AdoptLease(gstglue.RawBufferOf(unsafe.Pointer(C.gstc_sink_frame_lease_buffer(s.p, C.int(i), C.guint64(gen)))))
}

// leaseFrame is what Go reads of a held lease for its consumer: each
// distinct region's keep and whether it is new, and each plane's region
// index and offset from the region's storage start (its tensor offset).
type leaseFrame struct {
	Keeps    []any
	NewMask  uint
	Planes   []leasePlane
	Copied   bool
	PTS, Dur uint64
}

// leasePlane is one plane of a held lease.
type leasePlane struct {
	Mem    int
	Offset int
}

// ReadLease fills f from lease i (held by the caller's delivery: the
// streaming thread, inside sinkDeliver).
func (s sinkFrame) ReadLease(i int, f *leaseFrame) {
	l := &s.leases()[i]
	f.Keeps = f.Keeps[:0]
	for k := 0; k < int(l.nmem); k++ {
		f.Keeps = append(f.Keeps, cgo.Handle(l.mem[k].keep).Value())
	}
	f.NewMask = uint(l.new_mask)
	f.Planes = f.Planes[:0]
	for p := 0; p < int(l.nplanes); p++ {
		f.Planes = append(f.Planes, leasePlane{Mem: int(l.plane[p].m), Offset: int(l.plane[p].offset)})
	}
	f.Copied = l.copied != 0
	f.PTS = uint64(l.pts)
	f.Dur = uint64(l.buf.duration)
}

//export gstcGoSinkInput
func gstcGoSinkInput(s *C.GstBaseSink, h C.uintptr_t, buf *C.GstBuffer, lease C.int) (ret C.int) {
	self := gstglue.RawElementOf(unsafe.Pointer(s))
	defer gstglue.RecoverTrampoline(self, "render", &ret, C.int(C.GST_FLOW_ERROR))
	host, ok := gstglue.InstanceOf[*sink](unsafe.Pointer(s), uintptr(h))
	if !ok {
		gstglue.PostErrorRaw(self, gstglue.CoreFailed, "tensorpinsink: the element's Go side is gone", "")
		return C.GST_FLOW_ERROR
	}
	return C.int(host.sinkInput(self, gstglue.RawBufferOf(unsafe.Pointer(buf)), int(lease)))
}

//export gstcGoSinkDeliver
func gstcGoSinkDeliver(s *C.GstBaseSink, h C.uintptr_t, buf *C.GstBuffer, lease C.int, gen C.guint64) (ret C.GstFlowReturn) {
	self := gstglue.RawElementOf(unsafe.Pointer(s))
	defer gstglue.RecoverTrampoline(self, "render", &ret, C.GST_FLOW_ERROR)
	host, ok := gstglue.InstanceOf[*sink](unsafe.Pointer(s), uintptr(h))
	if !ok {
		gstglue.PostErrorRaw(self, gstglue.CoreFailed, "tensorpinsink: the element's Go side is gone", "")
		return C.GST_FLOW_ERROR
	}
	return C.GstFlowReturn(host.sinkDeliver(self, gstglue.RawBufferOf(unsafe.Pointer(buf)), int(lease), uint64(gen)))
}

// sinkFrameRender makes the frame of buf as the render vfunc does (for
// a test standing in for the streaming thread); false when self has no
// engine.
func sinkFrameRender(self gstglue.RawElement, buf gstglue.RawBuffer) (gst.FlowReturn, bool) {
	r := C.gstc_sink_frame_render_flow((*C.GstBaseSink)(unsafe.Pointer(elemP(self))), bufP(buf))
	return gst.FlowReturn(r), r != C.G_MININT
}
