package gsttest

import (
	"testing"
	"time"

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
