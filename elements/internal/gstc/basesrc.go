package gstc

/*
#cgo noescape gstc_install_push_src_create_raw
#cgo nocallback gstc_install_push_src_create_raw
#cgo noescape gstc_install_base_src_tensor_sync
#cgo nocallback gstc_install_base_src_tensor_sync
#include "srcraw.h"
#include "srcext.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// RawCreator is implemented by a Go GstPushSrc subclass that produces its
// own buffers from raw pointers (see InstallPushSrcCreateRaw). CreateRaw
// runs on the streaming thread; self is borrowed for the call. On
// gst.FlowOK it must return a buffer whose reference it owns (from
// NewFrameBufferRaw, say): that reference is transferred to GStreamer. On
// any other flow return the buffer, if not nil, is dropped.
type RawCreator interface {
	CreateRaw(self RawElement) (gst.FlowReturn, RawBuffer)
}

// TensorSyncEndHandler is implemented by a Go GstBaseSrc subclass that
// receives the GstTensorSync phase=end events a sink sends upstream
// (GST_EVENT_CUSTOM_UPSTREAM) already parsed (see
// InstallBaseSrcTensorSync). Its return value is the event vfunc's.
type TensorSyncEndHandler interface {
	TensorSyncEnd(self RawElement, ts TensorSync) bool
}

// InstallPushSrcCreateRaw makes GstPushSrcClass.create call the element's
// CreateRaw through this package's own trampoline, which, unlike
// InstallPushSrcCreate's (go-gst wrappers for the element, a closure, and
// the returned *gst.Buffer), allocates nothing per buffer. Call it from
// ClassInit of a type registered with base.ExtendsPushSrc, and do not also
// define go-gst's Create (see InstallPushSrcCreate). A panic in CreateRaw
// is posted as an error and returns GST_FLOW_ERROR.
func InstallPushSrcCreateRaw(klass *glib.ObjectClass) {
	C.gstc_install_push_src_create_raw(C.gpointer(klass.Unsafe()))
}

// InstallBaseSrcTensorSync makes GstBaseSrcClass.event hand GstTensorSync
// phase=end events travelling upstream (GST_EVENT_CUSTOM_UPSTREAM, as
// ParseTensorSyncEvent accepts them) to the element's TensorSyncEnd,
// parsed in C without allocating; every other event goes to the event
// function the class had when this was called — go-gst's trampoline to the
// element's Event, so call it from ClassInit (which go-glib runs after
// base.ExtendsBaseSrc/ExtendsPushSrc installed its vfuncs). The event
// stays borrowed (the base-src event vfunc is transfer none). A panic in
// TensorSyncEnd is posted as an error and the event is reported as not
// handled; so is an end event reaching an element that does not implement
// TensorSyncEnd.
func InstallBaseSrcTensorSync(klass *glib.ObjectClass) {
	C.gstc_install_base_src_tensor_sync(C.gpointer(klass.Unsafe()))
}

// NewFrameBufferRaw is NewFrameBuffer returning the new buffer as a
// RawBuffer that owns its only reference (no Go wrapper, no allocation):
// return it from CreateRaw (which transfers it to GStreamer) or drop it
// with UnrefRawBuffer.
func NewFrameBufferRaw(m Mem, pts, duration, offset uint64, ts TensorSync, announce bool) RawBuffer {
	ann := C.int(0)
	if announce {
		ann = 1
	}
	return RawBuffer{C.gstc_ring_frame_new(m.p, C.guint64(pts), C.guint64(duration), C.guint64(offset), ann,
		C.int(ts.Phase), C.int(ts.Access), C.guint64(ts.Dev), C.guint64(ts.Ino),
		C.guint64(ts.Offset), C.guint(ts.Seqnum))}
}

// UnrefRawBuffer drops a reference of b that the caller owns (from
// NewFrameBufferRaw); never pass a borrowed buffer. b must not be used
// afterwards.
func UnrefRawBuffer(b RawBuffer) {
	if b.p != nil {
		C.gst_buffer_unref(b.p)
	}
}

// VideoMetaLayout is a GstVideoMeta layout checked and converted once
// (PrepareVideoMeta), to be attached to many buffers by AddVideoMetaRaw
// without allocating: the format is looked up once and the offsets and
// strides are kept in fixed-size arrays.
type VideoMetaLayout struct {
	name              string
	format            C.GstVideoFormat
	width, height     C.guint
	n                 C.guint
	offsets           [MaxPlanes]C.gsize
	strides           [MaxPlanes]C.gint
	stridesGo         []int
	widthGo, heightGo int
}

// PrepareVideoMeta does AddVideoMeta's argument checks (with the same
// errors) and returns the layout for AddVideoMetaRaw. The checks that need
// the buffer or GStreamer's format table (unknown format, plane count,
// strides against rows, planes inside the buffer) run at each
// AddVideoMetaRaw, as they do in AddVideoMeta.
func PrepareVideoMeta(format string, width, height int, strides, offsets []int) (*VideoMetaLayout, error) {
	cf := C.CString(format)
	f := C.gst_video_format_from_string(cf)
	C.free(unsafe.Pointer(cf))
	if len(offsets) != len(strides) || len(offsets) == 0 || len(offsets) > MaxPlanes {
		return nil, fmt.Errorf("gstc: AddVideoMeta: %d offsets and %d strides", len(offsets), len(strides))
	}
	if width <= 0 || height <= 0 || width > 1<<20 || height > 1<<20 {
		return nil, fmt.Errorf("gstc: AddVideoMeta: invalid size %dx%d", width, height)
	}
	l := &VideoMetaLayout{
		name: format, format: f, width: C.guint(width), height: C.guint(height), n: C.guint(len(offsets)),
		stridesGo: append([]int(nil), strides...), widthGo: width, heightGo: height,
	}
	for i := range offsets {
		if offsets[i] < 0 || strides[i] <= 0 || strides[i] > 1<<30 {
			return nil, fmt.Errorf("gstc: AddVideoMeta: plane %d: offset %d stride %d", i, offsets[i], strides[i])
		}
		l.offsets[i] = C.gsize(offsets[i])
		l.strides[i] = C.gint(strides[i])
	}
	return l, nil
}

// AddVideoMetaRaw is AddVideoMeta for a RawBuffer (borrowed), with a
// prepared layout. It allocates nothing when it succeeds.
func AddVideoMetaRaw(buf RawBuffer, l *VideoMetaLayout) error {
	switch C.gstc_add_video_meta(buf.p, l.format, l.width, l.height, l.n, &l.offsets[0], &l.strides[0]) {
	case C.GSTC_VMETA_OK:
		return nil
	case C.GSTC_VMETA_BAD_FORMAT:
		return fmt.Errorf("gstc: AddVideoMeta: unknown video format %q", l.name)
	case C.GSTC_VMETA_BAD_PLANES:
		return fmt.Errorf("gstc: AddVideoMeta: format %s does not have %d planes", l.name, int(l.n))
	case C.GSTC_VMETA_NOT_WRITABLE:
		return errors.New("gstc: AddVideoMeta: buffer is not writable")
	case C.GSTC_VMETA_SHORT_STRIDE:
		return fmt.Errorf("gstc: AddVideoMeta: a stride in %v is shorter than a row of %s at width %d", l.stridesGo, l.name, l.widthGo)
	case C.GSTC_VMETA_OUT_OF_RANGE:
		return fmt.Errorf("gstc: AddVideoMeta: planes of %s %dx%d do not fit a %d-byte buffer with these strides",
			l.name, l.widthGo, l.heightGo, C.gst_buffer_get_size(buf.p))
	default:
		return errors.New("gstc: AddVideoMeta: gst_buffer_add_video_meta_full failed")
	}
}

//export gstcGoPushSrcCreateRaw
func gstcGoPushSrcCreateRaw(src *C.GstPushSrc, out **C.GstBuffer) (ret C.GstFlowReturn) {
	ret = C.GST_FLOW_ERROR
	self := RawElement{(*C.GstElement)(unsafe.Pointer(src))}
	defer func() {
		if r := recover(); r != nil {
			ret = C.GST_FLOW_ERROR
			recoverRaw(self, "create", r)
		}
	}()
	// A private-data read and a map lookup under a read lock: no allocation.
	c, ok := glib.FromObjectUnsafePrivate(unsafe.Pointer(src)).(RawCreator)
	if !ok {
		PostErrorRaw(self, CoreNotImplemented, "element does not implement CreateRaw", "")
		return C.GST_FLOW_ERROR
	}
	flow, buf := c.CreateRaw(self)
	switch {
	case flow == gst.FlowOK && buf.IsNil():
		PostErrorRaw(self, CoreFailed, "create returned no buffer", "CreateRaw returned FlowOK and a nil buffer")
		return C.GST_FLOW_ERROR
	case flow == gst.FlowOK:
		*out = buf.p
		return C.GST_FLOW_OK
	default:
		UnrefRawBuffer(buf)
		return C.GstFlowReturn(flow)
	}
}

//export gstcGoBaseSrcTensorSyncEnd
func gstcGoBaseSrcTensorSyncEnd(src *C.GstBaseSrc, c *C.GstcTensorSync) (ret C.gboolean) {
	ret = C.FALSE
	self := RawElement{(*C.GstElement)(unsafe.Pointer(src))}
	defer func() {
		if r := recover(); r != nil {
			ret = C.FALSE
			recoverRaw(self, "event", r)
		}
	}()
	h, ok := glib.FromObjectUnsafePrivate(unsafe.Pointer(src)).(TensorSyncEndHandler)
	if !ok {
		return C.FALSE
	}
	ts := tensorSyncFromC(c)
	if h.TensorSyncEnd(self, ts) {
		return C.TRUE
	}
	return C.FALSE
}
