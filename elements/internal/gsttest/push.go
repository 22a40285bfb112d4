package gsttest

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-app-1.0
#include <gst/app/gstappsrc.h>
*/
import "C"

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// PushFD pushes into src a buffer of one fd memory wrapping size bytes of
// fd (borrowed: the memory does not close it), stamped pts. A failure to
// build the buffer is t.Error, not Fatal: pushers run on goroutines.
func PushFD(t testing.TB, src *app.Source, fd, size int, pts time.Duration) {
	mem, err := gstglue.NewFdMemory(fd, size, nil)
	if err != nil {
		t.Error(err)
		return
	}
	buf := gst.NewEmptyBuffer()
	if err := gstglue.AppendMemory(buf, mem); err != nil {
		t.Error(err)
		return
	}
	buf.SetPresentationTimestamp(gst.ClockTime(pts))
	// A refused push (the pipeline already failed or stopped) is the
	// pipeline's error to report, not the pusher's.
	src.PushBuffer(buf)
}

// PushOwned moves the reference the wrapper buf owns into src
// (gst_app_src_push_buffer takes it) and disarms the wrapper's
// finalizer: the buffer travels downstream with that one reference, so
// it is writable there. go-gst's PushBuffer adds a reference instead,
// which the caller keeps until it releases the wrapper (or a garbage
// collection does), so a frame the streaming thread takes at once is
// shared, and an element that writes into it copies it first, or not,
// depending on that race. buf must own its reference
// (gst.NewEmptyBuffer, gst.NewBufferWithSize) and must not be used
// afterwards.
func PushOwned(src *app.Source, buf *gst.Buffer) gst.FlowReturn {
	runtime.SetFinalizer(buf, nil)
	return gst.FlowReturn(C.gst_app_src_push_buffer((*C.GstAppSrc)(unsafe.Pointer(src.Unsafe())),
		(*C.GstBuffer)(unsafe.Pointer(buf.Instance()))))
}
