package tensorpublish

// cgo.go: the Go side of publish.h — the instance's C state given at
// instance init, the streaming state's handle pushed into it at start
// and stop, the counters read back, the one call per frame and the EOS
// flush.

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-allocators-1.0 gstreamer-base-1.0 gstreamer-video-1.0
#cgo CFLAGS: -I${SRCDIR}/../internal/gstglue -I${SRCDIR}/../tensorsync -I${SRCDIR}/../tensormeta
#include <stdlib.h>
#include "publish.h"
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/go-gst/go-glib/glib"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// installClass replaces the per-frame vfuncs of klass with publish.c's:
// from ClassInit, after go-gst's InitClass.
func installClass(klass *glib.ObjectClass) {
	C.tensor_publish_install(C.gpointer(klass.Unsafe()))
}

// attachState gives the GstElement at self its C state (once, from
// InstanceInit); the element owns it.
func attachState(self unsafe.Pointer) { C.tensor_publish_attach((*C.GstElement)(self)) }

// setHandle hands the frames to come to the streaming state behind
// handle (0: none; frames pass untouched).
func setHandle(self unsafe.Pointer, handle uintptr, addEmpty bool) {
	C.tensor_publish_set_handle((*C.GstElement)(self), C.uintptr_t(handle), cbool(addEmpty))
}

// cStats are the counters the C frame keeps.
type cStats struct {
	frames, objects uint64
	frameTime       time.Duration
}

func readCStats(self unsafe.Pointer) cStats {
	var s C.TensorPublishStats
	C.tensor_publish_read_stats((*C.GstElement)(self), &s)
	return cStats{frames: uint64(s.frames), objects: uint64(s.objects), frameTime: time.Duration(s.frame_ns)}
}

// messageKind is a bus message tensorpublish posts besides errors.
type messageKind int

const (
	kindWarning messageKind = iota
	kindInfo
)

// post posts a warning or an info from the element at self with a
// resource error code (gstglue.ResourceError's values) and text.
func post(self unsafe.Pointer, kind messageKind, code gstglue.ResourceError, text string) {
	typ := C.GstMessageType(C.GST_MESSAGE_WARNING)
	if kind == kindInfo {
		typ = C.GST_MESSAGE_INFO
	}
	ct := C.CString(text)
	defer C.free(unsafe.Pointer(ct))
	C.tensor_publish_post((*C.GstElement)(self), typ, C.gint(code.Code()), ct)
}

//export goTensorPublishFrame
func goTensorPublishFrame(self *C.GstElement, handle C.uintptr_t, f *C.TensorPublishFrame) (ret C.GstFlowReturn) {
	defer gstglue.RecoverTrampoline(gstglue.RawElementOf(unsafe.Pointer(self)), "transform_ip", &ret, C.GST_FLOW_ERROR)
	v, ok := gstglue.LookupHandle(uintptr(handle))
	if !ok {
		return C.GST_FLOW_OK
	}
	p := v.(*publisher)
	p.publish(uint64(f.pts), int(f.width), int(f.height),
		unsafe.Pointer(f.rois), int(f.n_rois), unsafe.Pointer(f.classes), int(f.n_classes))
	return C.GST_FLOW_OK
}

//export goTensorPublishEOS
func goTensorPublishEOS(self *C.GstElement, handle C.uintptr_t) {
	var none struct{}
	defer gstglue.RecoverTrampoline(gstglue.RawElementOf(unsafe.Pointer(self)), "sink_event", &none, struct{}{})
	if v, ok := gstglue.LookupHandle(uintptr(handle)); ok {
		v.(*publisher).flush()
	}
}

// elementName is the name of the element at self.
func elementName(self unsafe.Pointer) string {
	n := C.gst_object_get_name((*C.GstObject)(self))
	defer C.g_free(C.gpointer(n))
	return C.GoString(n)
}

func cbool(b bool) C.gboolean { return gstglue.CBool[C.gboolean](b) }

// resourceOpenWrite is GST_RESOURCE_ERROR_OPEN_WRITE, which package
// gstglue does not name.
const resourceOpenWrite = gstglue.ResourceError(C.GST_RESOURCE_ERROR_OPEN_WRITE)
