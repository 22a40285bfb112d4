package gstc

/*
#include "gstc.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
)

// MaxPlanes is GST_VIDEO_MAX_PLANES.
const MaxPlanes = C.GST_VIDEO_MAX_PLANES

// VideoMeta is a copy of a buffer's GstVideoMeta.
type VideoMeta struct {
	Format  string // GstVideoFormat name, e.g. "NV12", "RGBA"
	Width   int
	Height  int
	NPlanes int
	Offsets []int // per plane, bytes from the start of the buffer
	Strides []int // per plane, bytes per row
}

// GetVideoMeta copies the first GstVideoMeta of buf
// (gst_buffer_get_video_meta). buf is borrowed. ok is false if buf has
// none.
func GetVideoMeta(buf *gst.Buffer) (VideoMeta, bool) {
	m := C.gst_buffer_get_video_meta(bufC(buf))
	if m == nil {
		return VideoMeta{}, false
	}
	n := int(m.n_planes)
	vm := VideoMeta{
		Format:  C.GoString(C.gst_video_format_to_string(m.format)),
		Width:   int(m.width),
		Height:  int(m.height),
		NPlanes: n,
		Offsets: make([]int, n),
		Strides: make([]int, n),
	}
	for i := 0; i < n; i++ {
		vm.Offsets[i] = int(m.offset[i])
		vm.Strides[i] = int(m.stride[i])
	}
	return vm, true
}

// VideoMetaStrides returns the per-plane strides and offsets of buf's
// GstVideoMeta. buf is borrowed. ok is false if buf has none, in which
// case the caller should derive strides from the caps (GstVideoInfo).
func VideoMetaStrides(buf *gst.Buffer) (strides, offsets []int, nPlanes int, ok bool) {
	vm, ok := GetVideoMeta(buf)
	if !ok {
		return nil, nil, 0, false
	}
	return vm.Strides, vm.Offsets, vm.NPlanes, true
}

// AddVideoMeta attaches a GstVideoMeta to buf
// (gst_buffer_add_video_meta_full), so downstream elements map planes at
// these offsets and strides instead of assuming the caps' default layout.
// buf is borrowed and must be writable and already hold its memory; the
// meta belongs to buf. format is a GstVideoFormat name ("NV12"); strides
// and offsets come in the order VideoMetaStrides returns them. It fails
// if the format is unknown, len(strides) or len(offsets) differs from the
// format's plane count, a stride is not positive or shorter than a row of
// pixels, or a plane does not fit in the buffer.
func AddVideoMeta(buf *gst.Buffer, format string, width, height int, strides, offsets []int) error {
	l, err := PrepareVideoMeta(format, width, height, strides, offsets)
	if err != nil {
		return err
	}
	return AddVideoMetaRaw(BorrowBuffer(buf), l)
}

// CapsVideoLayout returns the layout GStreamer assumes for raw video caps
// when a buffer carries no GstVideoMeta (gst_video_info_from_caps: the
// default offsets and strides for the format and size) and the frame
// size in bytes. caps is borrowed; it must be fixed video/x-raw caps,
// with or without the memory:DMABuf feature. go-gst's video.Info has no
// per-plane offset or stride accessors.
func CapsVideoLayout(caps *gst.Caps) (VideoMeta, int, error) {
	var f C.GstVideoFormat
	var w, h, n C.guint
	var coff [MaxPlanes]C.gsize
	var cstr [MaxPlanes]C.gint
	var size C.gsize
	if !gobool(C.gstc_video_layout((*C.GstCaps)(unsafe.Pointer(caps.Instance())), &f, &w, &h, &n,
		&coff[0], &cstr[0], &size)) {
		return VideoMeta{}, 0, fmt.Errorf("gstc: not fixed raw video caps: %s", caps)
	}
	vm := VideoMeta{
		Format:  C.GoString(C.gst_video_format_to_string(f)),
		Width:   int(w),
		Height:  int(h),
		NPlanes: int(n),
		Offsets: make([]int, n),
		Strides: make([]int, n),
	}
	for i := range vm.Offsets {
		vm.Offsets[i] = int(coff[i])
		vm.Strides[i] = int(cstr[i])
	}
	return vm, int(size), nil
}

// VideoMetaAPIType is GST_VIDEO_META_API_TYPE, for
// gst.Query.AddAllocationMeta in a sink's propose_allocation (which tells
// upstream it may send padded strides) and FindAllocationMeta in a
// source's decide_allocation.
func VideoMetaAPIType() glib.Type { return glib.Type(C.gst_video_meta_api_get_type()) }
