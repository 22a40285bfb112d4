package frameengine

// basetransform.go: GstBaseTransform subclassing for an element that
// makes its own output buffers (tensorinfer): the per-frame vfunc
// (prepare_output_buffer) and GstTensorSync begin events through this
// package's allocation-free trampolines; the transform vfunc does nothing
// (the frame's work is done while its output buffer is prepared).

/*
#cgo noescape gstc_install_base_transform
#cgo nocallback gstc_install_base_transform
#include <string.h>
#include "basetransform.h"

static inline gboolean
gstc_transform_sink_flushing (GstBaseTransform * t)
{
  return GST_PAD_IS_FLUSHING (GST_BASE_TRANSFORM_SINK_PAD (t));
}

// gstc_append_copy appends to buf a new system memory holding a copy of
// the n bytes at data.
static inline gboolean
gstc_append_copy (GstBuffer * buf, const void *data, gsize n)
{
  GstMemory *mem = gst_allocator_alloc (NULL, n, NULL);
  GstMapInfo map;
  if (mem == NULL)
    return FALSE;
  if (!gst_memory_map (mem, &map, GST_MAP_WRITE)) {
    gst_memory_unref (mem);
    return FALSE;
  }
  memcpy (map.data, data, n);
  gst_memory_unmap (mem, &map);
  gst_buffer_append_memory (buf, mem);
  return TRUE;
}

*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// FlowDropped is GST_BASE_TRANSFORM_FLOW_DROPPED: a prepared frame that
// produces no output buffer (the input is dropped, the stream goes on).
const FlowDropped = gst.FlowReturn(C.GST_FLOW_CUSTOM_SUCCESS)

// RawPreparer is implemented by a Go GstBaseTransform subclass whose
// output buffers are its own (see InstallBaseTransform). PrepareRaw runs
// on the streaming thread with the input buffer borrowed; on FlowOK it
// returns an output buffer it owns a reference of (moved to GStreamer),
// with its timestamps set: GstBaseTransform copies no metadata onto it.
type RawPreparer interface {
	PrepareRaw(self gstglue.RawElement, in gstglue.RawBuffer) (gst.FlowReturn, gstglue.RawBuffer)
}

// TransformSerializedEventHandler hears of EOS and FLUSH_STOP on the
// sink pad before they go on to the class's sink_event.
type TransformSerializedEventHandler interface {
	SinkEOS(self gstglue.RawElement)
	SinkFlushStop(self gstglue.RawElement)
}

// TransformFlushStartHandler hears of FLUSH_START on the sink pad (on
// the thread that flushes, with the pad already flushing) before it goes
// on to the class's sink_event: the moment to wake a streaming thread
// that waits inside the element. It must not block.
type TransformFlushStartHandler interface {
	SinkFlushStart(self gstglue.RawElement)
}

// InstallBaseTransform installs the trampolines: call it from ClassInit of
// a type registered with base.ExtendsBaseTransform that defines neither
// go-gst's PrepareOutputBuffer nor Transform. Serialized GstTensorSync
// begins are recorded in the element's PendingBegins (attached on the
// first one if the element has not yet) and consumed; other events go on
// to the sink_event the class had (go-gst's trampoline to SinkEvent, or
// GstBaseTransform's default).
func InstallBaseTransform(klass *glib.ObjectClass) {
	C.gstc_install_base_transform(C.gpointer(klass.Unsafe()))
}

// InstallTransformSinkCaps makes the sink pad's CAPS query of the type's
// instances answer what their TransformCaps gives from the src pad's
// template (for an element whose input caps follow from what it is — a
// model — not from downstream), without GstBaseTransform's default of
// putting downstream's untransformed caps first whenever they intersect
// the sink template: an upstream that can produce those would otherwise
// negotiate the element's own output caps as its input. Call from
// ClassInit, after go-gst's InitClass.
func InstallTransformSinkCaps(klass *glib.ObjectClass) {
	C.gstc_install_transform_sink_caps(C.gpointer(klass.Unsafe()))
}

// TransformSinkFlushing reports whether the sink pad of self (a
// GstBaseTransform) is flushing: a flush or a deactivation (state change
// to READY) is under way, and a streaming thread waiting for resources
// must return.
func TransformSinkFlushing(self gstglue.RawElement) bool {
	return gobool(C.gstc_transform_sink_flushing((*C.GstBaseTransform)(unsafe.Pointer(elemP(self)))))
}

// TransformEndInput is called once a frame no longer needs its input
// (the buffer at offset of the dma-buf (dev, ino) whose GST_BUFFER_OFFSET
// is bufOffset): it matches the input to its pending begin in b and, if
// the input was announced, sends the GstTensorSync end upstream from the
// sink pad of self (a GstBaseTransform), with the begin's access and
// seqnum. One cgo call, no allocation. expired counts the stale begins
// the match removed (see PendingBegins.Match).
func TransformEndInput(self gstglue.RawElement, b PendingBegins, dev, ino, offset, bufOffset uint64) (announced, sent bool, expired int) {
	r := C.gstc_transform_end_input((*C.GstBaseTransform)(unsafe.Pointer(elemP(self))), b.p,
		C.guint64(dev), C.guint64(ino), C.guint64(offset), C.guint64(bufOffset))
	return r&1 != 0, r&2 != 0, int(r >> 2)
}

// TransformFinishFrame ends a frame's input (TransformEndInput's
// arguments) and makes its output from output slot slot of r, in one cgo
// call (gstc_transform_finish_frame): the slot's memories pushed into a
// frame buffer with in's PTS, DTS and duration and offset seq, announced
// downstream by its GstTensorSync begin (seqnum seq) — or, with
// output=video (VideoOut on), in's video with those tensors in a
// GstTensorPinMeta. The end goes upstream before the buffer is made; buf
// is the caller's to return from prepare_output_buffer. in is borrowed.
func TransformFinishFrame(self gstglue.RawElement, b PendingBegins, dev, ino, offset, bufOffset uint64,
	r *OutRing, slot int, in gstglue.RawBuffer, seq uint64) (buf gstglue.RawBuffer, announced, sent bool, expired int) {
	f := C.gstc_transform_finish_frame((*C.GstBaseTransform)(unsafe.Pointer(elemP(self))), b.p,
		C.guint64(dev), C.guint64(ino), C.guint64(offset), C.guint64(bufOffset),
		r.p, C.int(slot), bufP(in), C.guint64(seq))
	return gstglue.RawBufferOf(unsafe.Pointer(f.buf)), f.end&1 != 0, f.end&2 != 0, int(f.end >> 2)
}

// AppendRawMemory moves the caller's reference of m into buf (a buffer the
// caller owns and that is writable: one from NewFrameBuffer).
func AppendRawMemory(buf gstglue.RawBuffer, m gstglue.RawMemory) {
	C.gst_buffer_append_memory(bufP(buf), memP(m))
}

// NewCopiedBuffer returns a new buffer (the caller owns its reference)
// with one newly allocated system memory per part, each a copy of the
// part, and the given PTS, DTS and duration: what an element that copies
// its outputs pushes (tensorinfer's per-frame benchmark mode, as
// GStreamer's onnxinference does). ok is false when a memory could not be
// allocated or mapped (nothing is returned then). Every part must be
// non-empty.
func NewCopiedBuffer(pts, dts, duration uint64, parts ...[]byte) (buf gstglue.RawBuffer, ok bool) {
	b := C.gst_buffer_new()
	for _, p := range parts {
		if len(p) == 0 || !gobool(C.gstc_append_copy(b, unsafe.Pointer(&p[0]), C.gsize(len(p)))) {
			gstglue.UnrefRawBuffer(gstglue.RawBufferOf(unsafe.Pointer(b)))
			return gstglue.RawBuffer{}, false
		}
	}
	b.pts, b.dts, b.duration = C.guint64(pts), C.guint64(dts), C.guint64(duration)
	return gstglue.RawBufferOf(unsafe.Pointer(b)), true
}

//export gstcGoTransformPrepare
func gstcGoTransformPrepare(t *C.GstBaseTransform, h C.uintptr_t, in *C.GstBuffer, out **C.GstBuffer) (ret C.GstFlowReturn) {
	self := gstglue.RawElementOf(unsafe.Pointer(t))
	defer gstglue.RecoverTrampoline(self, "prepare-output-buffer", &ret, C.GST_FLOW_ERROR)
	p, ok := calleeOf(unsafe.Pointer(t), h, func(ie *instanceEntry) RawPreparer { return ie.preparer })
	if !ok {
		gstglue.PostErrorRaw(self, gstglue.CoreNotImplemented, "element does not implement PrepareRaw", "")
		return C.GST_FLOW_ERROR
	}
	flow, buf := p.PrepareRaw(self, gstglue.RawBufferOf(unsafe.Pointer(in)))
	*out = bufP(buf)
	return C.GstFlowReturn(flow)
}

//export gstcGoTransformSerializedEvent
func gstcGoTransformSerializedEvent(t *C.GstBaseTransform, inst C.uintptr_t, typ C.GstEventType) {
	self := gstglue.RawElementOf(unsafe.Pointer(t))
	var ret struct{}
	defer gstglue.RecoverTrampoline(self, "sink-event", &ret, struct{}{})
	obj := instanceOf(unsafe.Pointer(t), inst)
	if typ == C.GST_EVENT_FLUSH_START {
		if h, ok := obj.(TransformFlushStartHandler); ok {
			h.SinkFlushStart(self)
		}
		return
	}
	h, ok := obj.(TransformSerializedEventHandler)
	if !ok {
		return
	}
	switch typ {
	case C.GST_EVENT_EOS:
		h.SinkEOS(self)
	case C.GST_EVENT_FLUSH_STOP:
		h.SinkFlushStop(self)
	}
}
