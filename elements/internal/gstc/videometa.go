package gstc

/*
#include "gstc.h"
*/
import "C"

import (
	"errors"
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
	cf := C.CString(format)
	f := C.gst_video_format_from_string(cf)
	C.free(unsafe.Pointer(cf))
	if len(offsets) != len(strides) || len(offsets) == 0 || len(offsets) > MaxPlanes {
		return fmt.Errorf("gstc: AddVideoMeta: %d offsets and %d strides", len(offsets), len(strides))
	}
	if width <= 0 || height <= 0 || width > 1<<20 || height > 1<<20 {
		return fmt.Errorf("gstc: AddVideoMeta: invalid size %dx%d", width, height)
	}
	var coff [MaxPlanes]C.gsize
	var cstr [MaxPlanes]C.gint
	for i := range offsets {
		if offsets[i] < 0 || strides[i] <= 0 || strides[i] > 1<<30 {
			return fmt.Errorf("gstc: AddVideoMeta: plane %d: offset %d stride %d", i, offsets[i], strides[i])
		}
		coff[i] = C.gsize(offsets[i])
		cstr[i] = C.gint(strides[i])
	}
	switch C.gstc_add_video_meta(bufC(buf), f, C.guint(width), C.guint(height),
		C.guint(len(offsets)), &coff[0], &cstr[0]) {
	case C.GSTC_VMETA_OK:
		return nil
	case C.GSTC_VMETA_BAD_FORMAT:
		return fmt.Errorf("gstc: AddVideoMeta: unknown video format %q", format)
	case C.GSTC_VMETA_BAD_PLANES:
		return fmt.Errorf("gstc: AddVideoMeta: format %s does not have %d planes", format, len(offsets))
	case C.GSTC_VMETA_NOT_WRITABLE:
		return errors.New("gstc: AddVideoMeta: buffer is not writable")
	case C.GSTC_VMETA_SHORT_STRIDE:
		return fmt.Errorf("gstc: AddVideoMeta: a stride in %v is shorter than a row of %s at width %d", strides, format, width)
	case C.GSTC_VMETA_OUT_OF_RANGE:
		return fmt.Errorf("gstc: AddVideoMeta: planes of %s %dx%d do not fit a %d-byte buffer with these strides",
			format, width, height, C.gst_buffer_get_size(bufC(buf)))
	default:
		return errors.New("gstc: AddVideoMeta: gst_buffer_add_video_meta_full failed")
	}
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
