package frameengine

// videoout.go: tensorinfer's output=video — the input video pushed on
// with the frame's output tensors in a GstTensorPinMeta
// (elements/tensormeta/gsttensorpinmeta.h) — as state on the element that
// both of its frame paths read in C (gstc_transform_finish_frame), and
// interval's reuse of the last result, decided in C before any frame
// path runs.

/*
#include "videoout.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// VideoOut is an element's output=video state (C memory on the element,
// freed with it). The zero value is none.
type VideoOut struct{ p *C.GstcVideoOut }

// VideoOutOf returns self's state, attaching it on the first call.
func VideoOutOf(self gstglue.RawElement) VideoOut {
	return VideoOut{C.gstc_video_out_attach(elemP(self))}
}

// Transform is how a frame was mapped into the model's input: frame pixel
// (x, y) was read at model-input pixel (x*ScaleX+OffsetX, y*ScaleY+OffsetY).
type Transform struct {
	ModelWidth, ModelHeight int
	ScaleX, ScaleY          float64
	OffsetX, OffsetY        float64
}

// Set switches output=video on or off, with interval (≥ 1: run every
// interval-th frame, the others get the last result), the tensors' caps
// (other/tensors, describing the output frame's memories; nil: none) and
// the transform. It forgets the last result. Any thread.
func (v VideoOut) Set(on bool, interval int, tensorCaps *gst.Caps, t Transform) {
	var caps *C.GstCaps
	if tensorCaps != nil && tensorCaps.Unsafe() != nil {
		caps = C.gst_caps_ref((*C.GstCaps)(tensorCaps.Unsafe()))
	}
	C.g_mutex_lock(&v.p.lock)
	old := v.p.caps
	v.p.on = cbool(on)
	v.p.interval = C.gint(max(interval, 1))
	v.p.caps = caps
	v.p.model_width, v.p.model_height = C.guint(t.ModelWidth), C.guint(t.ModelHeight)
	v.p.scale_x, v.p.scale_y = C.gdouble(t.ScaleX), C.gdouble(t.ScaleY)
	v.p.offset_x, v.p.offset_y = C.gdouble(t.OffsetX), C.gdouble(t.OffsetY)
	C.g_mutex_unlock(&v.p.lock)
	if old != nil {
		C.gst_mini_object_unref((*C.GstMiniObject)(unsafe.Pointer(old)))
	}
	v.Reset()
}

// Reset forgets the last result (its ring slot returns when its other
// holders drop it) and the frame count: flush, stop, new caps.
func (v VideoOut) Reset() { C.gstc_video_out_reset(v.p) }

// Reused counts the frames given an earlier run's result (interval).
func (v VideoOut) Reused() uint64 {
	C.g_mutex_lock(&v.p.lock)
	defer C.g_mutex_unlock(&v.p.lock)
	return uint64(v.p.reused)
}

// ClearReused zeroes Reused (a new run's count).
func (v VideoOut) ClearReused() {
	C.g_mutex_lock(&v.p.lock)
	v.p.reused = 0
	C.g_mutex_unlock(&v.p.lock)
}

// TensorPinMeta is a copy of a buffer's GstTensorPinMeta.
type TensorPinMeta struct {
	// Tensors is the output frame (a reference the caller owns: unref it
	// with UnrefRawBuffer), one memory per tensor.
	Tensors gstglue.RawBuffer
	// Caps describes Tensors (other/tensors), as a string.
	Caps      string
	Transform Transform
	Run       uint64
}

// ReadTensorPinMeta returns buf's GstTensorPinMeta (buf borrowed), with a
// reference of its tensors for the caller. It makes the caps string on
// every call (an allocation): a per-frame reader uses a
// TensorPinMetaReader.
func ReadTensorPinMeta(buf gstglue.RawBuffer) (TensorPinMeta, bool) {
	var r TensorPinMetaReader
	defer r.Close()
	return r.Read(buf)
}

// TensorPinMetaReader reads the GstTensorPinMeta of buffer after buffer
// without allocating: the caps string is made only for caps other than
// the last ones it read. A stream's metas share one GstCaps (the
// element's, referenced by each meta) until its caps change; the reader
// keeps a reference of the last caps, so that their address names them
// alone (no other caps can be made at it meanwhile) and they stay
// unchanged (a GstCaps referenced twice is not writable). The zero value
// is ready; Close drops the reference. Not for concurrent use.
type TensorPinMetaReader struct {
	caps *C.GstCaps
	str  string
}

// Read returns buf's GstTensorPinMeta (buf borrowed), with a reference of
// its tensors for the caller, or false when buf has none.
func (r *TensorPinMetaReader) Read(buf gstglue.RawBuffer) (TensorPinMeta, bool) {
	C.gstc_tensor_pin_meta_get_info()
	m := C.gst_buffer_get_tensor_pin_meta(bufP(buf))
	if m == nil {
		return TensorPinMeta{}, false
	}
	out := TensorPinMeta{
		Transform: Transform{ModelWidth: int(m.model_width), ModelHeight: int(m.model_height),
			ScaleX: float64(m.scale_x), ScaleY: float64(m.scale_y), OffsetX: float64(m.offset_x), OffsetY: float64(m.offset_y)},
		Run: uint64(m.run),
	}
	if m.tensors != nil {
		out.Tensors = gstglue.RawBufferOf(unsafe.Pointer(C.gst_buffer_ref(m.tensors)))
	}
	if m.caps != nil {
		if m.caps != r.caps {
			r.Close()
			s := C.gst_caps_to_string(m.caps)
			r.str = C.GoString(s)
			C.g_free(C.gpointer(s))
			r.caps = C.gst_caps_ref(m.caps)
		}
		out.Caps = r.str
	}
	return out, true
}

// Close drops the reference of the last caps read (the reader stays
// usable: the next caps are read anew).
func (r *TensorPinMetaReader) Close() {
	if r.caps != nil {
		C.gst_caps_unref(r.caps)
		r.caps, r.str = nil, ""
	}
}

// AddTensorPinMeta attaches a GstTensorPinMeta to buf (writable, borrowed)
// as tensorinfer output=video does: tensors (a reference of the caller's,
// taken over; nil for none), caps (borrowed: the meta takes a reference;
// nil for none), the transform and the run. For tests of the readers.
func AddTensorPinMeta(buf gstglue.RawBuffer, tensors gstglue.RawBuffer, caps *gst.Caps, t Transform, run uint64) {
	m := (*C.GstTensorPinMeta)(unsafe.Pointer(C.gst_buffer_add_meta(bufP(buf), C.gstc_tensor_pin_meta_get_info(), nil)))
	m.tensors = bufP(tensors)
	if caps != nil && caps.Unsafe() != nil {
		m.caps = C.gst_caps_ref((*C.GstCaps)(caps.Unsafe()))
	}
	m.model_width, m.model_height = C.guint(t.ModelWidth), C.guint(t.ModelHeight)
	m.scale_x, m.scale_y = C.gdouble(t.ScaleX), C.gdouble(t.ScaleY)
	m.offset_x, m.offset_y = C.gdouble(t.OffsetX), C.gdouble(t.OffsetY)
	m.run = C.guint64(run)
}

// BufferRefCount returns b's reference count (for tests of the readers'
// references).
func BufferRefCount(b gstglue.RawBuffer) int { return int(bufP(b).mini_object.refcount) }
