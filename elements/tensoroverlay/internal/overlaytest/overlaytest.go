// Package overlaytest is what tensoroverlay's tests need from C and
// neither go-gst nor gstglue gives (besides gsttest.PushOwned): a region
// of interest without params (as facedetect adds them).
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
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

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
