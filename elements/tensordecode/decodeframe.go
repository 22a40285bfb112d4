package tensordecode

// decodeframe.go: the Go side of decodeframe.[ch] — the frame's one call
// into Go (gstcGoTensorDecodeFrame, from before_transform) and the object
// list it fills for transform_ip, in C.

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-base-1.0 gstreamer-video-1.0
#cgo CFLAGS: -I${SRCDIR}/../internal/gstglue
#include <stdint.h>
#include "decodeframe.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-glib/glib"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// What frame returns (decodeframe.h).
const (
	tdecPass  = C.TDEC_PASS
	tdecEmpty = C.TDEC_EMPTY
	tdecWrite = C.TDEC_WRITE
	tdecError = C.TDEC_ERROR
	// tdecNotNegotiated: a buffer before caps.
	tdecNotNegotiated = C.TDEC_NOT_NEGOTIATED
)

// installFrame replaces klass's before_transform and transform_ip with
// decodeframe.c's: from ClassInit, after go-gst's InitClass (the element
// defines neither BeforeTransform nor TransformIP).
func installFrame(klass *glib.ObjectClass) { C.tdec_frame_install(C.gpointer(klass.Unsafe())) }

// attachFrame gives the instance at self its C frame state (once, from
// InstanceInit).
func attachFrame(self unsafe.Pointer) { C.tdec_frame_attach((*C.GstElement)(self)) }

// setPost makes the element at self post each frame's objects, or not.
func setPost(self unsafe.Pointer, on bool) {
	v := C.gboolean(0)
	if on {
		v = 1
	}
	C.tdec_frame_set_post((*C.GstElement)(self), v)
}

// takeAttachNs reads and clears the time the C frame spent adding
// objects.
func takeAttachNs(self unsafe.Pointer) uint64 {
	return uint64(C.tdec_frame_take_attach_ns((*C.GstElement)(self)))
}

//export gstcGoTensorDecodeFrame
func gstcGoTensorDecodeFrame(t *C.GstBaseTransform, h C.uintptr_t, buf *C.GstBuffer) (ret C.gint) {
	self := gstglue.RawElementOf(unsafe.Pointer(t))
	ret = tdecError
	defer gstglue.RecoverTrampoline(self, "decode", &ret, C.gint(tdecError))
	e, ok := gstglue.InstanceOf[*element](unsafe.Pointer(t), uintptr(h))
	if !ok {
		gstglue.PostErrorRaw(self, gstglue.CoreFailed, "tensordecode: an instance with no Go side", "")
		return tdecError
	}
	return C.gint(e.frame(gstglue.RawBufferOf(unsafe.Pointer(buf))))
}

// runFrameCopy runs the frame of the element at self on a copy of tmpl
// (borrowed), all in C but the one call into Go (for tests).
func runFrameCopy(self unsafe.Pointer, tmpl gstglue.RawBuffer) int {
	return int(C.tdec_frame_run_copy((*C.GstElement)(self), (*C.GstBuffer)(tmpl.Unsafe())))
}

// cStr points C at s's bytes (not NUL-terminated: C takes a length), or
// NULL for "".
func cStr(s string) *C.gchar {
	if s == "" {
		return nil
	}
	return (*C.gchar)(unsafe.Pointer(unsafe.StringData(s)))
}

// addObject adds o to the C frame's list as kind onto (or under) region
// regionID (-1: none), its label the labels file's C string kept since
// start when it is its class's, else copied by C.
func (st *streamState) addObject(self *C.GstElement, kind C.gint, regionID int, o *decode.Object, typ C.gint) {
	x, y, w, h := o.Box.Pixels()
	label, borrowed := cStr(o.Label), C.gboolean(0)
	// The decoders label an object with its class's line of the labels
	// file (or, ctc, with a text: class -1, no line).
	if c := st.cLabels.at(o.ClassID, o.Label); c != nil {
		label, borrowed = c, 1
	}
	C.tdec_frame_add(self, kind, C.gint(regionID), C.guint(x), C.guint(y), C.guint(w), C.guint(h), C.gint(o.ClassID),
		C.gdouble(o.Confidence), label, C.gsize(len(o.Label)), borrowed, typ)
}

// give hands the frame's objects to the C frame, which adds them in
// transform_ip: whole-frame and tensors-mode objects as regions of their
// own — the box rounded to whole pixels (edges to the nearest), roi_type
// the label ("class-N" without one; classify's whole-frame regions
// "classification"), a "detection" structure with label, class-id and
// confidence; ctc's whole-frame texts as "text" regions with a
// "classification" structure instead, as a region's text has (model:
// model); region results (st.regionObjs, made by the tensorinfer model)
// as a "classification" onto their region (classify, ctc) or a region
// whose parent is theirs (the box modes). A label from
// the labels file goes as the C string kept since start; others (ctc's
// texts) are copied by C. Returns how many.
func (e *element) give(st *streamState, objs []decode.Object, regions bool, model string) int {
	self := (*C.GstElement)(e.self)
	C.tdec_frame_reset(self, cStr(model), C.gsize(len(model)))
	if regions {
		onRegion := st.mode == decode.Classify || st.mode == decode.CTC
		for i := range st.regionObjs {
			r := &st.regionObjs[i]
			if onRegion {
				st.addObject(self, C.TDEC_CLASSIFICATION, r.id, &r.obj, C.TDEC_TYPE_LABEL)
			} else {
				st.addObject(self, C.TDEC_REGION, r.id, &r.obj, C.TDEC_TYPE_LABEL)
			}
		}
		return len(st.regionObjs)
	}
	typ := C.gint(C.TDEC_TYPE_LABEL)
	switch st.mode {
	case decode.Classify:
		typ = C.TDEC_TYPE_CLASSIFICATION
	case decode.CTC:
		typ = C.TDEC_TYPE_TEXT
	}
	for i := range objs {
		st.addObject(self, C.TDEC_REGION, -1, &objs[i], typ)
	}
	return len(objs)
}
