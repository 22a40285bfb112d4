package gsttest

/*
#cgo pkg-config: gstreamer-1.0
#include "leaks.h"
*/
import "C"

import (
	"strings"
	"unsafe"
)

// LiveObjects lists the GStreamer objects the leaks tracer (active when
// GST_TRACERS=leaks was set before gst.Init) sees alive now, one
// "type (ref-count n): description" line each; ok is false when the
// tracer is not active. It is safe while other threads free objects (see
// leaks.c for why the tracer's get-live-objects signal is not).
func LiveObjects() (desc []string, ok bool) {
	var n C.guint
	s := C.gsttest_leaks_live_objects(&n)
	if s == nil {
		return nil, false
	}
	defer C.g_free(C.gpointer(unsafe.Pointer(s)))
	for _, line := range strings.Split(strings.TrimSpace(C.GoString(s)), "\n") {
		if line != "" {
			desc = append(desc, line)
		}
	}
	return desc, true
}
