package frameengine

// sinkframe.go: tensorpinsink's frame engine (see sinkframe.h) — the C
// state Go builds at start, the table and plans Go fills when the engine
// asks, the leases C keeps, and the calls through which the engine asks
// Go for what only Go can do.

/*
#include "sinkframe.h"
*/
import "C"

import (
	"runtime/cgo"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// SinkFrameHost is implemented by a sink whose frames the engine makes.
type SinkFrameHost interface {
	// SinkInput puts what buf needs into the engine's table and plans —
	// importing and pinning its memories, laying out its planes, the
	// copy memory of lease — and returns the plan's index; or posts the
	// error and returns a negative flow.
	SinkInput(self gstglue.RawElement, buf gstglue.RawBuffer, lease int) int
	// SinkDeliver hands the frame of lease (generation gen) to the Go
	// consumer, which releases it (SinkFrame.Release).
	SinkDeliver(self gstglue.RawElement, buf gstglue.RawBuffer, lease int, gen uint64) gst.FlowReturn
}

// SinkCounters are a sink's counters (sinkframe.h's enum), attached to
// the element for its lifetime.
type SinkCounters struct{ p *C.guint64 }

// The counters' indices.
const (
	SinkFrames         = C.GSTC_SINK_FRAMES
	SinkHits           = C.GSTC_SINK_HITS
	SinkMisses         = C.GSTC_SINK_MISSES
	SinkEvictions      = C.GSTC_SINK_EVICTIONS
	SinkMmaps          = C.GSTC_SINK_MMAPS
	SinkSyncs          = C.GSTC_SINK_SYNCS
	SinkJoined         = C.GSTC_SINK_JOINED
	SinkBeginsMatched  = C.GSTC_SINK_BEGINS_MATCHED
	SinkBeginsExpired  = C.GSTC_SINK_BEGINS_EXPIRED
	SinkBeginsRejected = C.GSTC_SINK_BEGINS_REJECTED
	SinkCopies         = C.GSTC_SINK_COPIES
	SinkBytesCopied    = C.GSTC_SINK_BYTES_COPIED
	SinkDropped        = C.GSTC_SINK_DROPPED
	SinkClosedAtStop   = C.GSTC_SINK_CLOSED_AT_STOP
	SinkWaitsForLease  = C.GSTC_SINK_WAITS_FOR_LEASE
	SinkPoolsProposed  = C.GSTC_SINK_POOLS_PROPOSED
	SinkHandlerPanics  = C.GSTC_SINK_HANDLER_PANICS
	SinkCacheCapacity  = C.GSTC_SINK_CACHE_CAPACITY
	SinkFenceWaits     = C.GSTC_SINK_FENCE_WAITS
	SinkFenceWaitNanos = C.GSTC_SINK_FENCE_WAIT_NS
	SinkFenceWaitMax   = C.GSTC_SINK_FENCE_WAIT_MAX_NS
	SinkFenceTimeouts  = C.GSTC_SINK_FENCE_TIMEOUTS
	SinkLeases         = C.GSTC_SINK_LEASES
	SinkCounterCount   = C.GSTC_SINK_N
)

// SinkCountersOf returns self's counters, attaching them on first use,
// with a reference of the caller's (the counters outlive the element
// while it is held): Unref it, or let a cleanup do it.
func SinkCountersOf(self gstglue.RawElement) SinkCounters {
	return SinkCounters{C.gstc_sink_counters_ref(C.gstc_sink_counters_of(elemP(self)))}
}

// Unref drops the reference SinkCountersOf gave.
func (c SinkCounters) Unref() { C.gstc_sink_counters_unref(c.p) }

// Add adds n (may be negative) to counter i.
func (c SinkCounters) Add(i int, n int64) { C.gstc_sink_count(c.p, C.int(i), C.gint64(n)) }

// Load reads counter i.
func (c SinkCounters) Load(i int) uint64 {
	return uint64(C.gstc_sink_load(c.p, C.int(i)))
}

// Store sets counter i.
func (c SinkCounters) Store(i int, v uint64) { C.gstc_sink_store(c.p, C.int(i), C.guint64(v)) }

// Reset zeroes every counter but the outstanding leases.
func (c SinkCounters) Reset() {
	for i := 0; i < SinkCounterCount; i++ {
		if i != SinkLeases {
			c.Store(i, 0)
		}
	}
}

// SinkFrame is a sink's frame engine for one run and the frames that
// outlive it (sinkframe.h). The zero value is none.
type SinkFrame struct{ p *C.GstcSinkFrame }

// NewSinkFrame returns an engine for self with maxLeases leases; not
// ready until SetReady, not installed until Install.
func NewSinkFrame(self gstglue.RawElement, maxLeases int) SinkFrame {
	return SinkFrame{C.gstc_sink_frame_new(elemP(self), C.int(maxLeases))}
}

// IsZero reports whether s is no engine.
func (s SinkFrame) IsZero() bool { return s.p == nil }

// Install makes s the engine of self's renders.
func (s SinkFrame) Install(self gstglue.RawElement) { C.gstc_sink_frame_set(elemP(self), s.p) }

// UninstallSinkFrame leaves self with no engine.
func UninstallSinkFrame(self gstglue.RawElement) { C.gstc_sink_frame_set(elemP(self), nil) }

// SetReady says whether frames can be made (caps set).
func (s SinkFrame) SetReady(on bool) { C.g_atomic_int_set(&s.p.ready, C.gint(cbool(on))) }

// SetSettings sets the properties the engine reads per frame: drop,
// emit-signals, post-sync-messages, sync-timeout (0: no bound — the
// wait for the fences ends when they signal, or at unlock, a flush or a
// stop) and on-sync-timeout=drop.
func (s SinkFrame) SetSettings(drop, emitSignals, postSync bool, syncTimeout time.Duration, dropOnTimeout bool) {
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
// (SinkDeliver).
func (s SinkFrame) SetGoConsumer(on bool) { C.g_atomic_int_set(&s.p.go_consumer, C.gint(cbool(on))) }

// SetQdataKey sets the pin cache's qdata key.
func (s SinkFrame) SetQdataKey(q gstglue.QdataKey) { s.p.qkey = C.GQuark(q.Quark()) }

// SinkInput is a region in the engine's table.
type SinkInput struct{ p *C.GstcSinkInput }

// AddInput adds region in (pin cache slot slot) to the table, holding
// keep (released by ReleaseSinkInputKeep when the engine lets go of the
// region after RemoveInput, or by the caller when RemoveInput says so);
// fresh: its first frame is to come. False if the table is full or
// in.Tensor has no shared bracket.
func (s SinkFrame) AddInput(in Input, slot int, keep any, fresh bool) (SinkInput, bool) {
	var r C.GstcInput
	if !in.fill(&r) {
		return SinkInput{}, false
	}
	h := cgo.NewHandle(keep)
	p := C.gstc_sink_frame_add_input(s.p, &r, C.int(slot), C.uintptr_t(h), cbool(fresh))
	if p == nil {
		h.Delete()
		return SinkInput{}, false
	}
	return SinkInput{p}, true
}

// NumInputs returns the table's regions.
func (s SinkFrame) NumInputs() int { return int(s.p.n_in) }

// Input returns table region i.
func (s SinkFrame) Input(i int) SinkInput { return SinkInput{s.p.in[i]} }

// Keep returns what the region holds (AddInput's keep).
func (r SinkInput) Keep() any { return cgo.Handle(r.p.keep).Value() }

// Used returns the region's use stamp (the engine's count at its last
// frame).
func (r SinkInput) Used() uint64 { return uint64(r.p.used) }

// RemoveInput takes region i out of the table (the last takes its
// index) and returns its keep if the engine let go of it now (the
// caller releases it); nil if a lease still holds the region (the
// engine releases it through ReleaseSinkInputKeep's callback).
func (s SinkFrame) RemoveInput(i int) any {
	r := s.p.in[i]
	h := cgo.Handle(r.keep)
	if C.gstc_sink_frame_remove_input(s.p, C.int(i)) == 0 {
		return nil
	}
	v := h.Value()
	h.Delete()
	return v
}

// SinkFreer releases what a region kept (AddInput's keep) once the
// engine lets go of it after its table did.
type SinkFreer interface{ FreeSinkKeep() }

//export gstcGoSinkInputFree
func gstcGoSinkInputFree(h C.uintptr_t) {
	v := cgo.Handle(h).Value()
	cgo.Handle(h).Delete()
	if f, ok := v.(SinkFreer); ok {
		f.FreeSinkKeep()
	}
}

// SetLeaseCopy makes in lease i's copy memory (replacing and releasing
// the one before). The engine takes in's reference.
func (s SinkFrame) SetLeaseCopy(i int, in Input, slot int, keep any) bool {
	var r C.GstcInput
	in.Copy = false // bracketed like any region: only the lookup tells it apart
	if !in.fill(&r) {
		return false
	}
	C.gstc_sink_frame_set_lease_copy(s.p, C.int(i), &r, C.int(slot), C.uintptr_t(cgo.NewHandle(keep)))
	return true
}

// LeaseCopy returns lease i's copy memory's keep, or nil.
func (s SinkFrame) LeaseCopy(i int) any {
	if p := s.leases()[i].copy_in; p != nil {
		return cgo.Handle(p.keep).Value()
	}
	return nil
}

func (s SinkFrame) leases() []C.GstcSinkLease {
	return unsafe.Slice(s.p.l, int(s.p.max))
}

// SinkPlane is where a frame plane lies: in memory Mem of the buffer at
// Skip (or at Skip of the buffer, copied), Extent bytes with row stride
// Stride.
type SinkPlane struct {
	Mem          int
	Skip, Extent int
	Stride       int
}

// SinkPlan is a frame layout (sinkframe.h's GstcSinkPlan): for buffers
// whose video meta (Video: read it; HasMeta and its fields) and memories
// (MemSizes, FdMask; Size for a copy of more memories than
// GSTC_SINK_MAX_MEMS) are these.
type SinkPlan struct {
	Copy, Video, HasMeta  bool
	MetaWidth, MetaHeight int
	MetaOffsets           []int
	MetaStrides           []int
	MemSizes              []int
	FdMask                uint
	Size                  int
	Planes                []SinkPlane
}

// MaxSinkInputs bounds the engine's table.
const MaxSinkInputs = C.GSTC_SINK_MAX_INPUTS

// MaxSinkMems bounds a plan's memories (beyond: Size only, copied).
const MaxSinkMems = C.GSTC_SINK_MAX_MEMS

// SetPlan adds plan p (replacing the oldest when full) and returns its
// index.
func (s SinkFrame) SetPlan(p SinkPlan) int {
	var c C.GstcSinkPlan
	c.copy, c.video, c.has_meta = cbool(p.Copy), cbool(p.Video), cbool(p.HasMeta)
	c.meta_width, c.meta_height = C.guint(p.MetaWidth), C.guint(p.MetaHeight)
	c.meta_n = C.guint(len(p.MetaOffsets))
	for i := range min(len(p.MetaOffsets), C.GST_VIDEO_MAX_PLANES) {
		c.meta_offset[i] = C.gsize(p.MetaOffsets[i])
		c.meta_stride[i] = C.gint(p.MetaStrides[i])
	}
	c.n_mem = C.guint(len(p.MemSizes))
	for i := range min(len(p.MemSizes), MaxSinkMems) {
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
func (s SinkFrame) PlanOf(buf gstglue.RawBuffer) int {
	return int(C.gstc_sink_frame_plan_of(s.p, bufP(buf)))
}

// ClearPlans forgets the plans (caps changed).
func (s SinkFrame) ClearPlans() { C.gstc_sink_frame_clear_plans(s.p) }

// Retire ends the run: no more frames; the brackets of held frames are
// left now (their Release finishes them). Returns how many.
func (s SinkFrame) Retire() int { return int(C.gstc_sink_frame_retire(s.p)) }

// Unref drops the caller's reference (at stop, after Retire and the
// table emptied).
func (s SinkFrame) Unref() { C.gstc_sink_frame_unref(s.p) }

// Ref takes a reference.
func (s SinkFrame) Ref() { C.g_atomic_int_inc(&s.p.refs) }

// Release releases lease i of generation gen; false if stale.
func (s SinkFrame) Release(i int, gen uint64) bool {
	return gobool(C.gstc_sink_frame_release(s.p, C.int(i), C.guint64(gen)))
}

// LeaseBuffer returns a new reference of lease i's buffer if it is held
// in generation gen.
func (s SinkFrame) LeaseBuffer(i int, gen uint64) gstglue.Lease {
	return gstglue.AdoptLease(gstglue.RawBufferOf(unsafe.Pointer(C.gstc_sink_frame_lease_buffer(s.p, C.int(i), C.guint64(gen)))))
}

// LeaseFrame is what Go reads of a held lease for its consumer: each
// distinct region's keep and whether it is new, and each plane's region
// index and offset from the region's storage start (its tensor offset).
type LeaseFrame struct {
	Keeps    []any
	NewMask  uint
	Planes   []LeasePlane
	Copied   bool
	PTS, Dur uint64
}

// LeasePlane is one plane of a held lease.
type LeasePlane struct {
	Mem    int
	Offset int
}

// ReadLease fills f from lease i (held by the caller's delivery: the
// streaming thread, inside SinkDeliver).
func (s SinkFrame) ReadLease(i int, f *LeaseFrame) {
	l := &s.leases()[i]
	f.Keeps = f.Keeps[:0]
	for k := 0; k < int(l.nmem); k++ {
		f.Keeps = append(f.Keeps, cgo.Handle(l.mem[k].keep).Value())
	}
	f.NewMask = uint(l.new_mask)
	f.Planes = f.Planes[:0]
	for p := 0; p < int(l.nplanes); p++ {
		f.Planes = append(f.Planes, LeasePlane{Mem: int(l.plane[p].m), Offset: int(l.plane[p].offset)})
	}
	f.Copied = gobool(l.copied)
	f.PTS = uint64(l.pts)
	f.Dur = uint64(l.buf.duration)
}

//export gstcGoSinkInput
func gstcGoSinkInput(sink *C.GstBaseSink, h C.uintptr_t, buf *C.GstBuffer, lease C.int) (ret C.int) {
	self := gstglue.RawElementOf(unsafe.Pointer(sink))
	defer gstglue.RecoverTrampoline(self, "render", &ret, C.int(C.GST_FLOW_ERROR))
	host, ok := instanceOf(unsafe.Pointer(sink), h).(SinkFrameHost)
	if !ok {
		gstglue.PostErrorRaw(self, gstglue.CoreNotImplemented, "element does not implement SinkFrameHost", "")
		return C.GST_FLOW_ERROR
	}
	return C.int(host.SinkInput(self, gstglue.RawBufferOf(unsafe.Pointer(buf)), int(lease)))
}

//export gstcGoSinkDeliver
func gstcGoSinkDeliver(sink *C.GstBaseSink, h C.uintptr_t, buf *C.GstBuffer, lease C.int, gen C.guint64) (ret C.GstFlowReturn) {
	self := gstglue.RawElementOf(unsafe.Pointer(sink))
	defer gstglue.RecoverTrampoline(self, "render", &ret, C.GST_FLOW_ERROR)
	host, ok := instanceOf(unsafe.Pointer(sink), h).(SinkFrameHost)
	if !ok {
		gstglue.PostErrorRaw(self, gstglue.CoreNotImplemented, "element does not implement SinkFrameHost", "")
		return C.GST_FLOW_ERROR
	}
	return C.GstFlowReturn(host.SinkDeliver(self, gstglue.RawBufferOf(unsafe.Pointer(buf)), int(lease), uint64(gen)))
}

// SinkFrameRender makes the frame of buf as the render vfunc does (for
// a test standing in for the streaming thread); false when self has no
// engine.
func SinkFrameRender(self gstglue.RawElement, buf gstglue.RawBuffer) (gst.FlowReturn, bool) {
	r := C.gstc_sink_frame_render_flow((*C.GstBaseSink)(unsafe.Pointer(elemP(self))), bufP(buf))
	return gst.FlowReturn(r), r != C.G_MININT
}
