package gstc

/*
#include "srcext.h"
*/
import "C"

import (
	"strings"
	"unsafe"
)

// LeaksTracerLiveObjects asks GStreamer's leaks tracer (active when
// GST_TRACERS=leaks was set before gst.Init) which tracked objects are
// alive now: their number and one "type (ref-count n)" line each. ok is
// false when the tracer is not active. Call it at the end of a test run,
// after the garbage collector has let go-gst drop its references. The
// tracer's "get-live-objects" answer holds the live objects without
// references of its own, so it is never freed (freeing it would dispose
// them): each call leaks a small structure, which is fine at exit.
func LeaksTracerLiveObjects() (n int, desc []string, ok bool) {
	var cn C.guint
	s := C.gstc_leaks_live_objects(&cn)
	if s == nil {
		return 0, nil, false
	}
	defer C.g_free(C.gpointer(unsafe.Pointer(s)))
	for _, line := range strings.Split(strings.TrimSpace(C.GoString(s)), "\n") {
		if line != "" {
			desc = append(desc, line)
		}
	}
	return int(cn), desc, true
}
