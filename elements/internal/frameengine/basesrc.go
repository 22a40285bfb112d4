package frameengine

// basesrc.go: GstBaseSrc and GstPushSrc subclassing — create and
// GstTensorSync end events through this package's own allocation-free
// trampolines, the parent-class chain-ups (event, query,
// decide_allocation, negotiate) go-gst v1.4.0 lacks. A live source paces
// itself with LivePacer (livepacer.go), not with GstBaseSrc's get_times.

/*
#cgo noescape gstc_install_push_src_create
#cgo nocallback gstc_install_push_src_create
#cgo noescape gstc_install_base_src_tensor_sync
#cgo nocallback gstc_install_base_src_tensor_sync
#include "basesrc.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// RawCreator is implemented by a Go GstPushSrc subclass that produces its
// own buffers from raw pointers (see InstallPushSrcCreate). CreateRaw
// runs on the streaming thread; self is borrowed for the call. On
// gst.FlowOK it must return a buffer whose reference it owns (from
// NewFrameBuffer, say): that reference is transferred to GStreamer. On
// any other flow return the buffer, if not nil, is dropped.
type RawCreator interface {
	CreateRaw(self gstglue.RawElement) (gst.FlowReturn, gstglue.RawBuffer)
}

// TensorSyncEndHandler is implemented by a Go GstBaseSrc subclass that
// receives the GstTensorSync phase=end events a sink sends upstream
// (GST_EVENT_CUSTOM_UPSTREAM) already parsed (see
// InstallBaseSrcTensorSync). Its return value is the event vfunc's.
type TensorSyncEndHandler interface {
	TensorSyncEnd(self gstglue.RawElement, ts tensorsync.Info) bool
}

// InstallPushSrcCreate makes GstPushSrcClass.create call the element's
// CreateRaw through this package's own trampoline, which allocates
// nothing per buffer. Call it from ClassInit of a type registered with
// base.ExtendsPushSrc, and do not also define go-gst's
// Create(*base.GstPushSrc) (gst.FlowReturn, *gst.Buffer): besides wrapping
// the element, a closure and the returned buffer on every call, go-gst
// v1.4.0's trampoline for it memcpy()s the returned GstBuffer struct into
// *buf, which is NULL in push mode (a crash) and is never a valid way to
// hand over a buffer. A panic in CreateRaw is posted as an error and
// returns GST_FLOW_ERROR.
func InstallPushSrcCreate(klass *glib.ObjectClass) {
	C.gstc_install_push_src_create(C.gpointer(klass.Unsafe()))
}

// InstallBaseSrcTensorSync makes GstBaseSrcClass.event hand GstTensorSync
// phase=end events travelling upstream (GST_EVENT_CUSTOM_UPSTREAM, as
// tensorsync.Parse accepts them) to the element's TensorSyncEnd, parsed
// in C (gsttensorsync.h) without allocating; every other event goes to
// the event function the class had when this was called — go-gst's
// trampoline to the element's Event, so call it from ClassInit (which
// go-glib runs after base.ExtendsBaseSrc/ExtendsPushSrc installed its
// vfuncs). The event stays borrowed (the base-src event vfunc is transfer
// none). A panic in TensorSyncEnd is posted as an error and the event is
// reported as not handled; so is an end event reaching an element that
// does not implement TensorSyncEnd.
func InstallBaseSrcTensorSync(klass *glib.ObjectClass) {
	C.gstc_install_base_src_tensor_sync(C.gpointer(klass.Unsafe()))
}

func srcC(src *base.GstBaseSrc) *C.GstBaseSrc { return (*C.GstBaseSrc)(src.Unsafe()) }

// BaseSrcParentEvent chains an event up to the parent class's
// GstBaseSrcClass.event (seek, flush, latency, QoS, reconfigure...), for
// an Event(*base.GstBaseSrc, *gst.Event) bool override that does not
// handle ev itself. ev is borrowed: the base-src event vfunc is
// transfer-none (the pad's event function unrefs it afterwards), unlike
// the base-sink one.
func BaseSrcParentEvent(src *base.GstBaseSrc, ev *gst.Event) bool {
	return gobool(C.gstc_base_src_parent_event(srcC(src), evC(ev)))
}

// BaseSrcParentQuery chains a query up to the parent GstBaseSrcClass.query
// (latency, position, duration, scheduling...). q is borrowed.
func BaseSrcParentQuery(src *base.GstBaseSrc, q *gst.Query) bool {
	return gobool(C.gstc_base_src_parent_query(srcC(src), querC(q)))
}

// BaseSrcParentDecideAllocation chains up to the parent
// GstBaseSrcClass.decide_allocation, which picks (or creates) the pool
// and allocator from the query. q is borrowed.
func BaseSrcParentDecideAllocation(src *base.GstBaseSrc, q *gst.Query) bool {
	return gobool(C.gstc_base_src_parent_decide_allocation(srcC(src), querC(q)))
}

// BaseSrcParentNegotiate chains up to the parent GstBaseSrcClass.negotiate
// (the default: query and intersect caps, fixate, set them), for a
// Negotiate override that checks something first.
func BaseSrcParentNegotiate(src *base.GstBaseSrc) bool {
	return gobool(C.gstc_base_src_parent_negotiate(srcC(src)))
}

//export gstcGoPushSrcCreateRaw
func gstcGoPushSrcCreateRaw(src *C.GstPushSrc, h C.uintptr_t, out **C.GstBuffer) (ret C.GstFlowReturn) {
	self := gstglue.RawElementOf(unsafe.Pointer(src))
	defer gstglue.RecoverTrampoline(self, "create", &ret, C.GST_FLOW_ERROR)
	c, ok := calleeOf(unsafe.Pointer(src), h, func(ie *instanceEntry) RawCreator { return ie.creator })
	if !ok {
		gstglue.PostErrorRaw(self, gstglue.CoreNotImplemented, "element does not implement CreateRaw", "")
		return C.GST_FLOW_ERROR
	}
	flow, buf := c.CreateRaw(self)
	switch {
	case flow == gst.FlowOK && buf.IsNil():
		gstglue.PostErrorRaw(self, gstglue.CoreFailed, "create returned no buffer", "CreateRaw returned FlowOK and a nil buffer")
		return C.GST_FLOW_ERROR
	case flow == gst.FlowOK:
		*out = bufP(buf)
		return C.GST_FLOW_OK
	default:
		gstglue.UnrefRawBuffer(buf)
		return C.GstFlowReturn(flow)
	}
}

//export gstcGoBaseSrcTensorSyncEnd
func gstcGoBaseSrcTensorSyncEnd(src *C.GstBaseSrc, h C.uintptr_t, c *C.GstTensorSyncInfo) C.gboolean {
	return tensorSyncTrampoline(unsafe.Pointer(src), h, unsafe.Pointer(c),
		func(ie *instanceEntry) TensorSyncEndHandler { return ie.srcEnd }, TensorSyncEndHandler.TensorSyncEnd)
}
