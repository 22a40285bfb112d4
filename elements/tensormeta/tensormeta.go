// Package tensormeta is GstTensorPinMeta's one home: the meta tensorinfer
// output=video attaches to each video buffer it pushes — the frame's
// output tensors (a buffer of one memory per tensor, held by the meta:
// the output ring's slot returns when the last holder drops it), the
// other/tensors caps describing them, and how the frame was mapped into
// the model's input. Its registration and add are here in C
// (tensormeta.c, for the elements' C frames); C applications include the
// header-only gsttensorpinmeta.h beside it; Go code calls Read.
//
// Lifetime: Read returns the tensors with a reference of the caller's;
// Meta.Release drops it. A Meta may be copied: every copy shares the one
// reference, and the first Release of any of them drops it (the others'
// are no-ops). A Meta never released drops it when no copy is reachable
// any more (a safety net: the buffer's ring slot returns at some garbage
// collection, not when the application is done). The bytes are valid
// while it is held; the memory's CPU access is bracketed by whoever maps
// it (a gst_memory_map of the project's dma-bufs joins the process's
// bracket).
package tensormeta

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-video-1.0
#include <stdlib.h>
#include <string.h>
#include "tensormeta.h"
*/
import "C"

import (
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Transform is how a frame was mapped into the model's input: frame
// pixel (x, y) was read at model-input pixel (x*ScaleX+OffsetX,
// y*ScaleY+OffsetY) of a ModelWidth × ModelHeight image.
type Transform struct {
	ModelWidth, ModelHeight int
	ScaleX, ScaleY          float64
	OffsetX, OffsetY        float64
}

// Meta is a buffer's GstTensorPinMeta.
type Meta struct {
	// Tensors is the run's output frame, one memory per tensor (a
	// reference of the caller's until Release).
	Tensors *gst.Buffer
	// Caps describes Tensors: other/tensors with num_tensors,
	// dimensions (innermost first), types and names.
	Caps      string
	Transform Transform
	// Run numbers the model's runs: frames sharing a result (interval)
	// have the same one.
	Run uint64
	// Producer names the element that made the result; Index is its
	// place among the buffer's metas (the latest highest).
	Producer string
	Index    int
	// Regions: row i of every tensor is Regions[i]'s result (nil: the
	// whole frame's).
	Regions []Region
	lease   *lease
}

// lease is the reference Read took, shared by a Meta's copies.
type lease struct {
	released atomic.Bool
	raw      gstglue.Lease // the meta's tensors, a reference of the caller's
	tensors  *gst.Buffer   // Meta.Tensors: a wrapper with a reference of its own
	cleanup  runtime.Cleanup
}

// Read returns buf's latest GstTensorPinMeta (the result of the
// tensorinfer just before the reader), or false when it has none.
func Read(buf *gst.Buffer) (Meta, bool) {
	m, ok := ReadRaw(gstglue.BorrowBuffer(buf))
	if !ok {
		return Meta{}, false
	}
	out := Meta{Caps: m.Caps, Transform: m.Transform, Run: m.Run, Producer: m.Producer, Index: m.Index, Regions: m.Regions}
	if !m.Tensors.IsNil() {
		l := &lease{raw: gstglue.AdoptLease(m.Tensors)}
		l.tensors = l.raw.Buffer()
		// The safety net captures the raw reference alone (not l, which
		// would never become unreachable); the wrapper has go-gst's own.
		l.cleanup = runtime.AddCleanup(l, gstglue.Lease.Release, l.raw)
		out.lease, out.Tensors = l, l.tensors
	}
	return out, true
}

// FrameToModel maps a frame point into the model's input.
func (m Meta) FrameToModel(x, y float64) (float64, float64) {
	t := m.Transform
	return x*t.ScaleX + t.OffsetX, y*t.ScaleY + t.OffsetY
}

// ModelToFrame maps a model-input point back into the frame.
func (m Meta) ModelToFrame(x, y float64) (float64, float64) {
	t := m.Transform
	return (x - t.OffsetX) / t.ScaleX, (y - t.OffsetY) / t.ScaleY
}

// Release drops the reference Read took on the tensors, and clears m's
// Tensors. Only the first Release of a Meta and its copies drops it: the
// others, and a Release again, do nothing. Safe from any goroutine.
func (m *Meta) Release() {
	l := m.lease
	m.lease, m.Tensors = nil, nil
	if l == nil || !l.released.CompareAndSwap(false, true) {
		return
	}
	l.cleanup.Stop()
	l.raw.Release()
	gstglue.ReleaseBuffer(l.tensors)
}

// Region is a region result's row: the GstVideoRegionOfInterestMeta id
// of the region a row of the tensors is the result of, and how the
// region's frame pixels were mapped into that row's image (ModelWidth
// and ModelHeight unset: the meta's).
type Region struct {
	ID        int
	Transform Transform
}

// Raw is a copy of a buffer's GstTensorPinMeta for the elements: the
// tensors as a raw reference (the caller's: UnrefRawBuffer).
type Raw struct {
	// Tensors is the output frame (a reference the caller owns: unref it
	// with gstglue.UnrefRawBuffer), one memory per tensor.
	Tensors gstglue.RawBuffer
	// Caps describes Tensors (other/tensors), as a string.
	Caps      string
	Transform Transform
	Run       uint64
	// Producer names the element that made the result ("" unknown);
	// Index is its place among the buffer's metas (the latest highest).
	Producer string
	Index    int
	// Regions: row i of every tensor is Regions[i]'s result (nil: the
	// whole frame's).
	Regions []Region
}

// ReadRaw returns buf's GstTensorPinMeta (buf borrowed), with a reference
// of its tensors for the caller. It makes the caps string on every call
// (an allocation): a per-frame reader uses a Reader.
func ReadRaw(buf gstglue.RawBuffer) (Raw, bool) {
	var r Reader
	defer r.Close()
	return r.Read(buf)
}

// Reader reads the GstTensorPinMeta of buffer after buffer without
// allocating: a caps string is made only for caps other than the last
// few it read (region results alternate between a few batch shapes, each
// with its caps), and a region list is the reader's, reused: a Raw's
// Regions are valid until the reader's next read. A stream's metas share
// one GstCaps per shape (the element's, referenced by each meta) until
// its caps change; the reader keeps a reference of each caps it
// remembers, so that their address names them alone (no other caps can
// be made at it meanwhile) and they stay unchanged (a GstCaps referenced
// twice is not writable). The zero value is ready; Close drops the
// references. Not for concurrent use.
type Reader struct {
	caps [readerCaps]readCaps
	next int // the entry the next new caps replace
	// regions backs the Regions of what the reader returns.
	regions []Region
	// The producer Each was last asked for, and a C copy of it (freed by
	// Close), so that a stream's frames compare without allocating.
	producer  string
	producerC *C.gchar
	// names: the producers' names read, by their interned C string (the
	// meta's producer is g_intern_string's: one address a name), so a
	// name is made once, not every frame.
	names [readerCaps]readName
	// iter is Each's iteration state: a field, so that handing its
	// address to C does not move it to the heap every call.
	iter C.gpointer
}

type readName struct {
	c *C.gchar
	s string
}

// readerCaps is how many caps a Reader remembers.
const readerCaps = 8

type readCaps struct {
	caps *C.GstCaps // a reference the reader holds
	str  string
}

// Read returns buf's latest GstTensorPinMeta (buf borrowed) — the
// result of the tensorinfer just before the reader — with a reference of
// its tensors for the caller, or false when buf has none.
func (r *Reader) Read(buf gstglue.RawBuffer) (Raw, bool) {
	C.gst_tensor_pin_meta_get_info()
	return r.read(C.gst_buffer_get_tensor_pin_meta((*C.GstBuffer)(buf.Unsafe())))
}

// ReadFrom is Read for the latest result producer made.
func (r *Reader) ReadFrom(buf gstglue.RawBuffer, producer string) (Raw, bool) {
	C.gst_tensor_pin_meta_get_info()
	p := C.CString(producer)
	defer C.free(unsafe.Pointer(p))
	return r.read(C.gst_buffer_get_tensor_pin_meta_from((*C.GstBuffer)(buf.Unsafe()), p))
}

// Each calls f with each GstTensorPinMeta of buf (buf borrowed) made by
// producer ("": by any element), in the order they were added (index),
// each with a reference of its tensors for f to drop; it stops when f
// returns false. A region run's results are one meta per batch.
func (r *Reader) Each(buf gstglue.RawBuffer, producer string, f func(Raw) bool) {
	C.gst_tensor_pin_meta_get_info()
	if producer != "" && (r.producerC == nil || producer != r.producer) {
		r.closeProducer()
		r.producer, r.producerC = producer, C.CString(producer)
	}
	var metas [64]*C.GstTensorPinMeta
	all := metas[:0]
	r.iter = nil
	for {
		m := C.gst_buffer_iterate_meta_filtered((*C.GstBuffer)(buf.Unsafe()), &r.iter, C.gst_tensor_pin_meta_api_get_type())
		if m == nil {
			break
		}
		t := (*C.GstTensorPinMeta)(unsafe.Pointer(m))
		if producer != "" && (t.producer == nil || C.strcmp(t.producer, r.producerC) != 0) {
			continue
		}
		all = append(all, t)
	}
	slices.SortFunc(all, func(a, b *C.GstTensorPinMeta) int { return int(a.index) - int(b.index) })
	for _, m := range all {
		raw, _ := r.read(m)
		if !f(raw) {
			return
		}
	}
}

func (r *Reader) read(m *C.GstTensorPinMeta) (Raw, bool) {
	if m == nil {
		return Raw{}, false
	}
	out := Raw{
		Transform: Transform{ModelWidth: int(m.model_width), ModelHeight: int(m.model_height),
			ScaleX: float64(m.scale_x), ScaleY: float64(m.scale_y), OffsetX: float64(m.offset_x), OffsetY: float64(m.offset_y)},
		Run: uint64(m.run), Index: int(m.index),
	}
	if m.producer != nil {
		out.Producer = r.name(m.producer)
	}
	if n := int(m.n_regions); n > 0 && m.region_ids != nil && m.region_transforms != nil {
		ids := unsafe.Slice(m.region_ids, n)
		trs := unsafe.Slice(m.region_transforms, 4*n)
		if cap(r.regions) < n {
			r.regions = make([]Region, n)
		}
		out.Regions = r.regions[:n:n]
		for i := range n {
			out.Regions[i] = Region{ID: int(ids[i]), Transform: Transform{ScaleX: float64(trs[4*i]), ScaleY: float64(trs[4*i+1]),
				OffsetX: float64(trs[4*i+2]), OffsetY: float64(trs[4*i+3])}}
		}
	}
	if m.tensors != nil {
		out.Tensors = gstglue.RawBufferOf(unsafe.Pointer(C.gst_buffer_ref(m.tensors)))
	}
	if m.caps != nil {
		out.Caps = r.capsString(m.caps)
	}
	return out, true
}

// name returns the interned C string c as a Go string: remembered, or
// made and remembered in place of another (names are a line's few
// elements).
func (r *Reader) name(c *C.gchar) string {
	for i := range r.names {
		if r.names[i].c == c {
			return r.names[i].s
		}
	}
	e := &r.names[int(uintptr(unsafe.Pointer(c))>>4)%readerCaps]
	*e = readName{c: c, s: C.GoString(c)}
	return e.s
}

// capsString returns caps as a string: remembered, or made and
// remembered in place of the oldest.
func (r *Reader) capsString(caps *C.GstCaps) string {
	for i := range r.caps {
		if r.caps[i].caps == caps {
			return r.caps[i].str
		}
	}
	e := &r.caps[r.next]
	r.next = (r.next + 1) % readerCaps
	if e.caps != nil {
		C.gst_caps_unref(e.caps)
	}
	s := C.gst_caps_to_string(caps)
	e.str = C.GoString(s)
	C.g_free(C.gpointer(s))
	e.caps = C.gst_caps_ref(caps)
	return e.str
}

// Close drops the reference of the last caps read (the reader stays
// usable: the next caps are read anew).
func (r *Reader) Close() {
	for i := range r.caps {
		if r.caps[i].caps != nil {
			C.gst_caps_unref(r.caps[i].caps)
		}
		r.caps[i] = readCaps{}
	}
	r.next = 0
	r.closeProducer()
}

func (r *Reader) closeProducer() {
	if r.producerC != nil {
		C.free(unsafe.Pointer(r.producerC))
		r.producer, r.producerC = "", nil
	}
}

// Add attaches a GstTensorPinMeta to buf (writable, borrowed) as
// tensorinfer output=video does: tensors (a reference of the caller's,
// taken over; nil for none), caps (borrowed: the meta takes a reference;
// nil for none), the transform and the run; no producer, no regions.
func Add(buf gstglue.RawBuffer, tensors gstglue.RawBuffer, caps *gst.Caps, t Transform, run uint64) {
	AddResult(buf, tensors, caps, Raw{Transform: t, Run: run})
}

// AddResult is Add with r's Transform, Run, Producer and Regions (its
// Tensors, Caps and Index are not read: the index is one more than the
// highest on buf).
func AddResult(buf gstglue.RawBuffer, tensors gstglue.RawBuffer, caps *gst.Caps, r Raw) {
	t := r.Transform
	from := C.GstTensorPinMeta{
		model_width: C.guint(t.ModelWidth), model_height: C.guint(t.ModelHeight),
		scale_x: C.gdouble(t.ScaleX), scale_y: C.gdouble(t.ScaleY),
		offset_x: C.gdouble(t.OffsetX), offset_y: C.gdouble(t.OffsetY),
		run: C.guint64(r.Run),
	}
	if caps != nil {
		from.caps = (*C.GstCaps)(caps.Unsafe())
	}
	if r.Producer != "" {
		p := C.CString(r.Producer)
		defer C.free(unsafe.Pointer(p))
		from.producer = p
	}
	if n := len(r.Regions); n > 0 {
		ids := (*C.gint)(C.malloc(C.size_t(n) * C.sizeof_gint))
		trs := (*C.gdouble)(C.malloc(C.size_t(4*n) * C.sizeof_gdouble))
		defer C.free(unsafe.Pointer(ids))
		defer C.free(unsafe.Pointer(trs))
		is, ts := unsafe.Slice(ids, n), unsafe.Slice(trs, 4*n)
		for i, g := range r.Regions {
			is[i] = C.gint(g.ID)
			ts[4*i], ts[4*i+1] = C.gdouble(g.Transform.ScaleX), C.gdouble(g.Transform.ScaleY)
			ts[4*i+2], ts[4*i+3] = C.gdouble(g.Transform.OffsetX), C.gdouble(g.Transform.OffsetY)
		}
		from.n_regions, from.region_ids, from.region_transforms = C.guint(n), ids, trs
	}
	C.gst_tensor_pin_meta_add((*C.GstBuffer)(buf.Unsafe()), &from, (*C.GstBuffer)(tensors.Unsafe()))
}
