package gstc

/*
#include "gstc.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"
)

// PushSrcCreator is implemented by a Go GstPushSrc subclass that produces
// its own buffers (wrapping its own fd memory, say) instead of filling
// buffers allocated by the base class.
//
// CreateBuffer runs on the streaming thread. On gst.FlowOK it must return
// a buffer whose reference it owns (gst.NewEmptyBuffer, a buffer from its
// own pool, gst.FromGstBufferUnsafeFull/None, ...): that reference is
// transferred to GStreamer and the wrapper must not be used afterwards.
// On any other flow return the buffer, if any, is dropped. self is
// borrowed for the call.
type PushSrcCreator interface {
	CreateBuffer(self *base.GstPushSrc) (gst.FlowReturn, *gst.Buffer)
}

// InstallPushSrcCreate makes GstPushSrcClass.create call the element's
// CreateBuffer. Call it from ClassInit of a type registered with
// base.ExtendsPushSrc, and do not also define go-gst's
// Create(*base.GstPushSrc) (gst.FlowReturn, *gst.Buffer): go-gst v1.4.0's
// trampoline for it memcpy()s the returned GstBuffer struct into *buf,
// which is NULL in push mode (a crash) and is never a valid way to hand
// over a buffer.
func InstallPushSrcCreate(klass *glib.ObjectClass) {
	C.gstc_install_push_src_create(C.gpointer(klass.Unsafe()))
}

//export gstcGoPushSrcCreate
func gstcGoPushSrcCreate(src *C.GstPushSrc, out **C.GstBuffer) (ret C.GstFlowReturn) {
	ret = C.GST_FLOW_ERROR
	var self *base.GstPushSrc
	defer func() {
		if r := recover(); r != nil {
			ret = C.GST_FLOW_ERROR
			if self != nil {
				PostError(self.Element, CoreFailed, fmt.Sprintf("internal error: %v", r), string(debug.Stack()))
			} else {
				fmt.Fprintf(os.Stderr, "gstc: panic in create: %v\n", r)
			}
		}
	}()
	glib.WithPointerTransferOriginal(unsafe.Pointer(src), func(obj *glib.Object, sub glib.GoObjectSubclass) {
		self = base.ToGstPushSrc(obj)
		c, ok := sub.(PushSrcCreator)
		if !ok {
			PostError(self.Element, CoreNotImplemented, "element does not implement CreateBuffer", "")
			return
		}
		flow, buf := c.CreateBuffer(self)
		switch {
		case flow == gst.FlowOK && buf == nil:
			PostError(self.Element, CoreFailed, "create returned no buffer", "CreateBuffer returned FlowOK and a nil buffer")
		case flow == gst.FlowOK:
			*out = takeBuffer(buf)
			ret = C.GST_FLOW_OK
		default:
			if buf != nil {
				UnrefBuffer(buf)
			}
			ret = C.GstFlowReturn(flow)
		}
	})
	return ret
}

func querC(q *gst.Query) *C.GstQuery { return (*C.GstQuery)(unsafe.Pointer(q.Instance())) }

// BaseSrcParentEvent chains an event up to the parent class's
// GstBaseSrcClass.event (seek, flush, latency, QoS, reconfigure...), for
// an Event(*base.GstBaseSrc, *gst.Event) bool override that does not
// handle ev itself. ev is borrowed: the base-src event vfunc is
// transfer-none (the pad's event function unrefs it afterwards), unlike
// the base-sink one. go-gst v1.4.0 has no base-src chain-ups at all.
func BaseSrcParentEvent(src *base.GstBaseSrc, ev *gst.Event) bool {
	return gobool(C.gstc_base_src_parent_event((*C.GstBaseSrc)(src.Unsafe()), evC(ev)))
}

// BaseSrcParentQuery chains a query up to the parent GstBaseSrcClass.query
// (latency, position, duration, scheduling...). q is borrowed.
func BaseSrcParentQuery(src *base.GstBaseSrc, q *gst.Query) bool {
	return gobool(C.gstc_base_src_parent_query((*C.GstBaseSrc)(src.Unsafe()), querC(q)))
}

// BaseSrcParentDecideAllocation chains up to the parent
// GstBaseSrcClass.decide_allocation, which picks (or creates) the pool
// and allocator from the query. q is borrowed.
func BaseSrcParentDecideAllocation(src *base.GstBaseSrc, q *gst.Query) bool {
	return gobool(C.gstc_base_src_parent_decide_allocation((*C.GstBaseSrc)(src.Unsafe()), querC(q)))
}

// BaseSinkParentQuery chains a query up to the parent
// GstBaseSinkClass.query. q is borrowed. (For events, go-gst has
// base.GstBaseSink.ParentEvent, which consumes the event.)
func BaseSinkParentQuery(sink *base.GstBaseSink, q *gst.Query) bool {
	return gobool(C.gstc_base_sink_parent_query((*C.GstBaseSink)(sink.Unsafe()), querC(q)))
}
