// Package overlaytest is what tensoroverlay's tests need from C and
// go-gst does not give: pushing a buffer into an appsrc without keeping
// a reference.
package overlaytest

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-app-1.0
#include <gst/app/gstappsrc.h>
*/
import "C"

import (
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
