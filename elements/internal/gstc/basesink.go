package gstc

/*
#cgo noescape gstc_install_base_sink_render
#cgo nocallback gstc_install_base_sink_render
#cgo noescape gstc_install_base_sink_tensor_sync
#cgo nocallback gstc_install_base_sink_tensor_sync
#include "sinkext.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// RawElement is a borrowed GstElement pointer (here: the element whose
// vfunc is running). It holds no reference and has no finalizer, so
// making and using one allocates nothing; it is valid for the duration of
// the call it was handed to. The zero RawElement is nil.
type RawElement struct{ p *C.GstElement }

// IsNil reports whether e points at no element.
func (e RawElement) IsNil() bool { return e.p == nil }

// Unsafe returns the GstElement pointer, for go-gst's wrapping functions
// (glib.WithPointerTransferOriginal for a borrowed wrapper) on rare paths.
func (e RawElement) Unsafe() unsafe.Pointer { return unsafe.Pointer(e.p) }

// RawBuffer is a borrowed GstBuffer pointer, e.g. the buffer handed to a
// render vfunc: no reference, no finalizer, no allocation. It is valid
// only while its owner holds the buffer (for render: until the call
// returns); LeaseRawBuffer keeps it longer. The zero RawBuffer is nil.
type RawBuffer struct{ p *C.GstBuffer }

// IsNil reports whether b points at no buffer.
func (b RawBuffer) IsNil() bool { return b.p == nil }

// Unsafe returns the GstBuffer pointer, for gst.ToGstBuffer (a borrowed
// wrapper; it allocates) on rare paths.
func (b RawBuffer) Unsafe() unsafe.Pointer { return unsafe.Pointer(b.p) }

// BorrowBuffer returns a RawBuffer for buf without taking a reference.
func BorrowBuffer(buf *gst.Buffer) RawBuffer {
	if buf == nil {
		return RawBuffer{}
	}
	return RawBuffer{bufC(buf)}
}

// LeaseRawBuffer is LeaseBuffer for a borrowed RawBuffer.
func LeaseRawBuffer(b RawBuffer) Lease {
	return Lease{p: C.gst_buffer_ref(b.p)}
}

// ReadRawBufferInfo is ReadBufferInfo for a borrowed RawBuffer.
func ReadRawBufferInfo(b RawBuffer) BufferInfo {
	info := BufferInfo{
		NMemory:  int(C.gst_buffer_n_memory(b.p)),
		Size:     int(C.gst_buffer_get_size(b.p)),
		PTS:      uint64(b.p.pts),
		Duration: uint64(b.p.duration),
	}
	if m := C.gst_buffer_get_video_meta(b.p); m != nil {
		info.HasVideoMeta = true
		info.MetaOffset = int(m.offset[0])
		info.MetaStride = int(m.stride[0])
		info.MetaWidth = int(m.width)
		info.MetaHeight = int(m.height)
	}
	return info
}

// PeekRawMemory is PeekMemory for a borrowed RawBuffer.
func PeekRawMemory(b RawBuffer, idx int) Mem {
	if idx < 0 || idx >= int(C.gst_buffer_n_memory(b.p)) {
		return Mem{}
	}
	return Mem{C.gst_buffer_peek_memory(b.p, C.guint(idx))}
}

// ExtractRawBuffer is ExtractBuffer for a borrowed RawBuffer.
func ExtractRawBuffer(b RawBuffer, dst []byte) int {
	if len(dst) == 0 {
		return 0
	}
	return int(C.gst_buffer_extract(b.p, 0, C.gpointer(unsafe.Pointer(&dst[0])), C.gsize(len(dst))))
}

// BaseSinkWaitPreroll is gst_base_sink_wait_preroll on the GstBaseSink
// self, for a render that was woken by the unlock vfunc: it waits (the
// sink counts as prerolled meanwhile) until the sink goes back to PLAYING
// — then FlowOK, and render may wait again — or flushes or stops —
// FlowFlushing. Call it only from render (GstBaseSink holds its preroll
// lock there). self is borrowed.
func BaseSinkWaitPreroll(self RawElement) gst.FlowReturn {
	return gst.FlowReturn(C.gst_base_sink_wait_preroll((*C.GstBaseSink)(unsafe.Pointer(self.p))))
}

// PostErrorRaw is PostError from a borrowed RawElement.
func PostErrorRaw(elem RawElement, code ErrorCode, text, debug string) {
	if elem.p != nil {
		postMessageC(elem.p, 2, C.GST_MESSAGE_ERROR, code, text, debug)
	}
}

// RawRenderer is implemented by a Go GstBaseSink subclass that renders
// from raw pointers (see InstallBaseSinkRender). RenderRaw runs on the
// streaming thread; self and buf are borrowed for the call (take a
// LeaseRawBuffer to keep the buffer).
type RawRenderer interface {
	RenderRaw(self RawElement, buf RawBuffer) gst.FlowReturn
}

// TensorSyncBeginHandler is implemented by a Go GstBaseSink subclass that
// receives GstTensorSync phase=begin events already parsed (see
// InstallBaseSinkTensorSync). Its return value is the event vfunc's.
type TensorSyncBeginHandler interface {
	TensorSyncBegin(self RawElement, ts TensorSync) bool
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
// phase=begin events (any custom event type, as ParseTensorSyncEvent
// accepts) to the element's TensorSyncBegin, parsed in C without
// allocating, and consume them; every other event goes to the event
// function the class had when this was called — go-gst's trampoline to the
// element's Event, so call it from ClassInit (which go-glib runs after
// base.ExtendsBaseSink installed its vfuncs). A panic in TensorSyncBegin
// is posted as an error and the event is reported as not handled; so is a
// begin event reaching an element that does not implement TensorSyncBegin.
func InstallBaseSinkTensorSync(klass *glib.ObjectClass) {
	C.gstc_install_base_sink_tensor_sync(C.gpointer(klass.Unsafe()))
}

// recoverRaw turns a panic in an exported trampoline into an error
// message (or, without an element, a line on stderr).
func recoverRaw(self RawElement, what string, r any) {
	if !self.IsNil() {
		PostErrorRaw(self, CoreFailed, fmt.Sprintf("internal error: %v", r), string(debug.Stack()))
		return
	}
	fmt.Fprintf(os.Stderr, "gstc: panic in %s: %v\n", what, r)
}

//export gstcGoBaseSinkRender
func gstcGoBaseSinkRender(sink *C.GstBaseSink, buf *C.GstBuffer) (ret C.GstFlowReturn) {
	ret = C.GST_FLOW_ERROR
	self := RawElement{(*C.GstElement)(unsafe.Pointer(sink))}
	defer func() {
		if r := recover(); r != nil {
			ret = C.GST_FLOW_ERROR
			recoverRaw(self, "render", r)
		}
	}()
	// FromObjectUnsafePrivate is a private-data read and a map lookup under
	// a read lock: no allocation.
	r, ok := glib.FromObjectUnsafePrivate(unsafe.Pointer(sink)).(RawRenderer)
	if !ok {
		PostErrorRaw(self, CoreNotImplemented, "element does not implement RenderRaw", "")
		return C.GST_FLOW_ERROR
	}
	return C.GstFlowReturn(r.RenderRaw(self, RawBuffer{buf}))
}

//export gstcGoBaseSinkTensorSyncBegin
func gstcGoBaseSinkTensorSyncBegin(sink *C.GstBaseSink, c *C.GstcTensorSync) (ret C.gboolean) {
	ret = C.FALSE
	self := RawElement{(*C.GstElement)(unsafe.Pointer(sink))}
	defer func() {
		if r := recover(); r != nil {
			ret = C.FALSE
			recoverRaw(self, "event", r)
		}
	}()
	h, ok := glib.FromObjectUnsafePrivate(unsafe.Pointer(sink)).(TensorSyncBeginHandler)
	if !ok {
		return C.FALSE
	}
	ts := tensorSyncFromC(c)
	if h.TensorSyncBegin(self, ts) {
		return C.TRUE
	}
	return C.FALSE
}
