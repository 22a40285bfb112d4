package tensorsrc

// basesrc.go: the source's per-frame vfuncs in C (basesrc.c) installed
// over go-gst's, which allocate wrappers every call — create makes every
// frame in the element's frame (srcframe.c), and GstTensorSync end events
// are counted in C — and the parent-class chain-ups go-gst v1.4.0 lacks
// (event, query, negotiate). A live source paces itself with its
// livePacer (livepacer.go), not with GstBaseSrc's get_times.

/*
#cgo noescape gstc_install_push_src
#cgo nocallback gstc_install_push_src
#include "basesrc.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"
)

// installClass installs basesrc.c's create and event vfuncs on klass:
// from ClassInit, after go-gst's InitClass (go-glib runs it first), so
// that the event vfunc it replaces is go-gst's trampoline to Event.
func installClass(klass *glib.ObjectClass) {
	C.gstc_install_push_src(C.gpointer(klass.Unsafe()))
}

func srcC(src *base.GstBaseSrc) *C.GstBaseSrc { return (*C.GstBaseSrc)(src.Unsafe()) }

// parentEvent chains an event up to the parent class's
// GstBaseSrcClass.event (seek, flush, latency, QoS, reconfigure...), for
// Event's events it does not handle itself. ev is borrowed: the base-src
// event vfunc is transfer-none (the pad's event function unrefs it
// afterwards), unlike the base-sink one.
func parentEvent(src *base.GstBaseSrc, ev *gst.Event) bool {
	return C.gstc_base_src_parent_event(srcC(src), (*C.GstEvent)(unsafe.Pointer(ev.Instance()))) != 0
}

// parentQuery chains a query up to the parent GstBaseSrcClass.query
// (latency, position, duration, scheduling...). q is borrowed.
func parentQuery(src *base.GstBaseSrc, q *gst.Query) bool {
	return C.gstc_base_src_parent_query(srcC(src), (*C.GstQuery)(unsafe.Pointer(q.Instance()))) != 0
}

// parentNegotiate chains up to the parent GstBaseSrcClass.negotiate (the
// default: query and intersect caps, fixate, set them), for a Negotiate
// override that checks something first.
func parentNegotiate(src *base.GstBaseSrc) bool {
	return C.gstc_base_src_parent_negotiate(srcC(src)) != 0
}
