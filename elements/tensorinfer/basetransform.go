package tensorinfer

// basetransform.go: the element's per-frame vfuncs in C (basetransform.c)
// installed over go-gst's, which allocate wrappers every call:
// prepare_output_buffer makes every frame in the frame engine
// (inferframe.c), transform does nothing, GstTensorSync begins are kept
// in C for the frame to match, and the sink pad's CAPS query follows from
// the model; EOS and FLUSH_STOP reach Go once each.

/*
#cgo noescape gstc_install_base_transform
#cgo nocallback gstc_install_base_transform
#include <string.h>
#include "basetransform.h"

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

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// installBaseTransform installs basetransform.c's vfuncs on klass: from
// ClassInit, after go-gst's InitClass, for a class that defines neither
// go-gst's PrepareOutputBuffer nor Transform. Serialized GstTensorSync
// begins are recorded in the element's pending begins and consumed;
// other events go on to the sink_event the class had (go-gst's
// trampoline to SinkEvent, or GstBaseTransform's default).
func installBaseTransform(klass *glib.ObjectClass) {
	C.gstc_install_base_transform(C.gpointer(klass.Unsafe()))
}

// installTransformSinkCaps makes the sink pad's CAPS query answer what
// TransformCaps gives from the src pad's template (the element's input
// caps follow from the model, not from downstream), without
// GstBaseTransform's default of putting downstream's untransformed caps
// first whenever they intersect the sink template: an upstream that can
// produce those would otherwise negotiate the element's own output caps
// as its input. From ClassInit, after go-gst's InitClass.
func installTransformSinkCaps(klass *glib.ObjectClass) {
	C.gstc_install_transform_sink_caps(C.gpointer(klass.Unsafe()))
}

// newCopiedBuffer returns a new buffer (the caller owns its reference)
// with one newly allocated system memory per part, each a copy of the
// part, and the given PTS, DTS and duration: what an element that copies
// its outputs pushes (the per-frame benchmark mode, as GStreamer's
// onnxinference does). ok is false when a memory could not be allocated
// or mapped (nothing is returned then). Every part must be non-empty.
func newCopiedBuffer(pts, dts, duration uint64, parts ...[]byte) (buf gstglue.RawBuffer, ok bool) {
	b := C.gst_buffer_new()
	for _, p := range parts {
		if len(p) == 0 || C.gstc_append_copy(b, unsafe.Pointer(&p[0]), C.gsize(len(p))) == 0 {
			gstglue.UnrefRawBuffer(gstglue.RawBufferOf(unsafe.Pointer(b)))
			return gstglue.RawBuffer{}, false
		}
	}
	b.pts, b.dts, b.duration = C.guint64(pts), C.guint64(dts), C.guint64(duration)
	return gstglue.RawBufferOf(unsafe.Pointer(b)), true
}

//export gstcGoInferSinkEvent
func gstcGoInferSinkEvent(t *C.GstBaseTransform, h C.uintptr_t, typ C.GstEventType) {
	self := gstglue.RawElementOf(unsafe.Pointer(t))
	var ret struct{}
	defer gstglue.RecoverTrampoline(self, "sink-event", &ret, struct{}{})
	e, ok := gstglue.InstanceOf[*element](unsafe.Pointer(t), uintptr(h))
	if !ok {
		return
	}
	switch typ {
	case C.GST_EVENT_EOS:
		e.sinkEOS(self)
	case C.GST_EVENT_FLUSH_STOP:
		e.sinkFlushStop(self)
	}
}
