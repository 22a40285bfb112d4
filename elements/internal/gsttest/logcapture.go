package gsttest

/*
#cgo pkg-config: gstreamer-1.0
#include <stdlib.h>
#include <gst/gst.h>
*/
import "C"

import (
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// LogCapture records the messages logged in one GStreamer debug category
// while it is installed (CaptureLog).
type LogCapture struct {
	mu   sync.Mutex
	msgs []string
}

// CaptureLog records every message of debug category name (e.g.
// "GST_PERFORMANCE") at level or more severe until the test ends: it
// raises the category's threshold to level (GStreamer drops messages
// above a category's threshold before any log function sees them) and
// installs a log function, and undoes both at cleanup (the threshold
// back to the default, GStreamer's default log function back). Not for
// parallel tests: the log function is the process's.
func CaptureLog(t testing.TB, name string, level gst.DebugLevel) *LogCapture {
	t.Helper()
	c := &LogCapture{}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	C.gst_debug_set_threshold_for_name(cname, C.GstDebugLevel(level))
	gst.SetLogFunction(func(cat *gst.DebugCategory, l gst.DebugLevel, _, _ string, _ int, _ *gst.LoggedObject, msg *gst.DebugMessage) {
		if l > level || cat.GetName() != name {
			return
		}
		s := msg.Get()
		c.mu.Lock()
		c.msgs = append(c.msgs, s)
		c.mu.Unlock()
	})
	t.Cleanup(func() {
		gst.SetLogFunction(nil)
		cname := C.CString(name)
		defer C.free(unsafe.Pointer(cname))
		C.gst_debug_unset_threshold_for_name(cname)
	})
	return c
}

// Containing returns the captured messages that contain sub.
func (c *LogCapture) Containing(sub string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.msgs {
		if strings.Contains(m, sub) {
			out = append(out, m)
		}
	}
	return out
}
