// Package overlaytest is what tensoroverlay's tests need from C and
// neither go-gst nor gstc gives: pushing a buffer into an appsrc without
// keeping a reference, and a region of interest without params (as
// facedetect adds them).
package overlaytest

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-app-1.0 gstreamer-video-1.0
#include <stdlib.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
)

// PushOwned moves the reference the wrapper buf owns into src
// (gst_app_src_push_buffer takes it) and disarms the wrapper's
// finalizer: the buffer travels downstream with that one reference, so
// it is writable there — go-gst's PushBuffer adds a reference instead,
// which the wrapper keeps until some garbage collection, and the buffer
// is writable downstream or not depending on when that runs. buf must
// own its reference (gst.NewBufferWithSize) and must not be used
// afterwards.
func PushOwned(src *app.Source, buf *gst.Buffer) gst.FlowReturn {
	runtime.SetFinalizer(buf, nil)
	return gst.FlowReturn(C.gst_app_src_push_buffer((*C.GstAppSrc)(src.Unsafe()),
		(*C.GstBuffer)(unsafe.Pointer(buf.Instance()))))
}

// AddPlainROI adds to buf (writable; borrowed) a
// GstVideoRegionOfInterestMeta of type typ with no params structure: no
// label, class or confidence, only its type and rectangle.
func AddPlainROI(buf *gst.Buffer, typ string, x, y, w, h uint) error {
	b := (*C.GstBuffer)(unsafe.Pointer(buf.Instance()))
	if C.gst_mini_object_is_writable((*C.GstMiniObject)(unsafe.Pointer(b))) == 0 {
		return errors.New("overlaytest: buffer is not writable")
	}
	ct := C.CString(typ)
	defer C.free(unsafe.Pointer(ct))
	C.gst_buffer_add_video_region_of_interest_meta(b, ct, C.guint(x), C.guint(y), C.guint(w), C.guint(h))
	return nil
}
