package frameengine

// basesink.go: GstBaseSink subclassing — render and GstTensorSync begin
// events through this package's own allocation-free trampolines, the
// parent-class query chain-up, and waiting in preroll from render.

/*
#cgo noescape gstc_install_base_sink_render
#cgo nocallback gstc_install_base_sink_render
#cgo noescape gstc_install_base_sink_tensor_sync
#cgo nocallback gstc_install_base_sink_tensor_sync
#include "basesink.h"
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

// RawRenderer is implemented by a Go GstBaseSink subclass that renders
// from raw pointers (see InstallBaseSinkRender). RenderRaw runs on the
// streaming thread; self and buf are borrowed for the call (take a
// LeaseBuffer to keep the buffer).
type RawRenderer interface {
	RenderRaw(self gstglue.RawElement, buf gstglue.RawBuffer) gst.FlowReturn
}

// TensorSyncBeginHandler is implemented by a Go GstBaseSink subclass that
// receives GstTensorSync phase=begin events already parsed (see
// InstallBaseSinkTensorSync). Its return value is the event vfunc's.
type TensorSyncBeginHandler interface {
	TensorSyncBegin(self gstglue.RawElement, ts tensorsync.Info) bool
}

// TensorSyncBeginRejecter is implemented by a Go GstBaseSink subclass
// that counts the GstTensorSync begin events it refuses: those not
// serialized with the buffers (out-of-band custom events), which GStreamer
// hands to the event vfunc on the sender's thread, while the streaming
// thread may be rendering. Such an event cannot announce "the buffer that
// follows", so InstallBaseSinkTensorSync never passes it to
// TensorSyncBegin: it calls TensorSyncBeginRejected (on that other thread)
// and reports the event as not handled.
type TensorSyncBeginRejecter interface {
	TensorSyncBeginRejected(self gstglue.RawElement)
}

// InstallBaseSinkRender makes GstBaseSinkClass.render call the element's
// RenderRaw through this package's own trampoline, which, unlike go-gst's,
// allocates nothing per buffer (go-gst wraps the element, the buffer and
// a closure on every call). Call it from ClassInit of a type registered
// with base.ExtendsBaseSink; the type should not also define go-gst's
// Render (it would be installed, then replaced). A panic in RenderRaw is
// posted as an error and returns GST_FLOW_ERROR.
func InstallBaseSinkRender(klass *glib.ObjectClass) {
	C.gstc_install_base_sink_render(C.gpointer(klass.Unsafe()))
}

// InstallBaseSinkTensorSync makes GstBaseSinkClass.event hand GstTensorSync
// phase=begin events (any serialized custom event type that
// tensorsync.Parse accepts; out-of-band ones are refused, see
// TensorSyncBeginRejecter) to the element's TensorSyncBegin, parsed in C (gsttensorsync.h) without
// allocating, and consume them; every other event goes to the event
// function the class had when this was called — go-gst's trampoline to the
// element's Event, so call it from ClassInit (which go-glib runs after
// base.ExtendsBaseSink installed its vfuncs). A panic in TensorSyncBegin
// is posted as an error and the event is reported as not handled; so is a
// begin event reaching an element that does not implement TensorSyncBegin.
func InstallBaseSinkTensorSync(klass *glib.ObjectClass) {
	C.gstc_install_base_sink_tensor_sync(C.gpointer(klass.Unsafe()))
}

// BaseSinkParentQuery chains a query up to the parent
// GstBaseSinkClass.query. q is borrowed. (For events, go-gst has
// base.GstBaseSink.ParentEvent, which consumes the event.)
func BaseSinkParentQuery(sink *base.GstBaseSink, q *gst.Query) bool {
	return gobool(C.gstc_base_sink_parent_query((*C.GstBaseSink)(sink.Unsafe()), querC(q)))
}

// BaseSinkWaitPreroll is gst_base_sink_wait_preroll on the GstBaseSink
// self, for a render that was woken by the unlock vfunc: it waits (the
// sink counts as prerolled meanwhile) until the sink goes back to PLAYING
// — then FlowOK, and render may wait again — or flushes or stops —
// FlowFlushing. Call it only from render (GstBaseSink holds its preroll
// lock there). self is borrowed.
func BaseSinkWaitPreroll(self gstglue.RawElement) gst.FlowReturn {
	return gst.FlowReturn(C.gst_base_sink_wait_preroll((*C.GstBaseSink)(unsafe.Pointer(elemP(self)))))
}

//export gstcGoBaseSinkRender
func gstcGoBaseSinkRender(sink *C.GstBaseSink, h C.uintptr_t, buf *C.GstBuffer) (ret C.GstFlowReturn) {
	self := gstglue.RawElementOf(unsafe.Pointer(sink))
	defer gstglue.RecoverTrampoline(self, "render", &ret, C.GST_FLOW_ERROR)
	r, ok := calleeOf(unsafe.Pointer(sink), h, func(ie *instanceEntry) RawRenderer { return ie.renderer })
	if !ok {
		gstglue.PostErrorRaw(self, gstglue.CoreNotImplemented, "element does not implement RenderRaw", "")
		return C.GST_FLOW_ERROR
	}
	return C.GstFlowReturn(r.RenderRaw(self, gstglue.RawBufferOf(unsafe.Pointer(buf))))
}

//export gstcGoBaseSinkTensorSyncBegin
func gstcGoBaseSinkTensorSyncBegin(sink *C.GstBaseSink, h C.uintptr_t, c *C.GstTensorSyncInfo) C.gboolean {
	return tensorSyncTrampoline(unsafe.Pointer(sink), h, unsafe.Pointer(c),
		func(ie *instanceEntry) TensorSyncBeginHandler { return ie.sinkBegin }, TensorSyncBeginHandler.TensorSyncBegin)
}

//export gstcGoBaseSinkTensorSyncRejected
func gstcGoBaseSinkTensorSyncRejected(sink *C.GstBaseSink, h C.uintptr_t) {
	self := gstglue.RawElementOf(unsafe.Pointer(sink))
	var ret C.gboolean
	defer gstglue.RecoverTrampoline(self, "event", &ret, C.FALSE)
	if r, ok := instanceOf(unsafe.Pointer(sink), h).(TensorSyncBeginRejecter); ok {
		r.TensorSyncBeginRejected(self)
	}
}

// tensorSyncTrampoline is the Go side of the GstTensorSync event
// trampolines (gstcGoBaseSinkTensorSyncBegin, gstcGoBaseSrcTensorSyncEnd):
// elem's Go instance (calleeOf: pick of the entry bound to inst, else
// go-glib's) handles the GstTensorSyncInfo at info (parsed in C,
// borrowed) if it implements H; otherwise the event is not handled.
func tensorSyncTrampoline[H any](elem unsafe.Pointer, inst C.uintptr_t, info unsafe.Pointer, pick func(*instanceEntry) H, handle func(H, gstglue.RawElement, tensorsync.Info) bool) (ret C.gboolean) {
	self := gstglue.RawElementOf(elem)
	defer gstglue.RecoverTrampoline(self, "event", &ret, C.FALSE)
	h, ok := calleeOf(elem, inst, pick)
	if !ok {
		return C.FALSE
	}
	return cbool(handle(h, self, tensorsync.InfoFromC(info)))
}
