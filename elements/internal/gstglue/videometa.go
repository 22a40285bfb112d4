package gstglue

// videometa.go: GstVideoMeta — read from a buffer, attached from a layout
// prepared once (the source's per-frame path), and the default layout of
// raw video caps that a buffer without a meta has.

/*
#include "videometa.h"
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

// VideoMeta is a copy of a buffer's GstVideoMeta, or a caps' layout.
type VideoMeta struct {
	Format  string // GstVideoFormat name, e.g. "NV12", "RGBA"
	Width   int
	Height  int
	NPlanes int
	Offsets []int // per plane, bytes from the start of the buffer
	Strides []int // per plane, bytes per row
}

// newVideoMeta copies a C layout (GstVideoMeta's or GstVideoInfo's).
func newVideoMeta(f C.GstVideoFormat, w, h, n C.guint, offsets *[MaxPlanes]C.gsize, strides *[MaxPlanes]C.gint) VideoMeta {
	vm := VideoMeta{
		Format:  C.GoString(C.gst_video_format_to_string(f)),
		Width:   int(w),
		Height:  int(h),
		NPlanes: int(n),
		Offsets: make([]int, n),
		Strides: make([]int, n),
	}
	for i := range vm.Offsets {
		vm.Offsets[i] = int(offsets[i])
		vm.Strides[i] = int(strides[i])
	}
	return vm
}

// GetVideoMeta copies the first GstVideoMeta of b
// (gst_buffer_get_video_meta). b is borrowed. ok is false if b has none.
// It allocates: the elements read the meta through BufferView instead;
// the tests of tensorsrc and of the integration package check the meta
// downstream with this, hence the export.
func GetVideoMeta(b RawBuffer) (VideoMeta, bool) {
	m := C.gst_buffer_get_video_meta(b.p)
	if m == nil {
		return VideoMeta{}, false
	}
	return newVideoMeta(m.format, m.width, m.height, m.n_planes, &m.offset, &m.stride), true
}

// CapsVideoLayout returns the layout GStreamer assumes for raw video caps
// when a buffer carries no GstVideoMeta (gst_video_info_from_caps: the
// default offsets and strides for the format and size) and the frame
// size in bytes. caps is borrowed; it must be fixed video/x-raw caps,
// with or without the memory:DMABuf feature. go-gst's video.Info has no
// per-plane offset or stride accessors.
func CapsVideoLayout(caps *gst.Caps) (VideoMeta, int, error) {
	vm, size, _, err := CapsVideoInfo(caps)
	return vm, size, err
}

// VideoColorimetry is the part of raw video caps' colorimetry a reader
// of YUV needs, by GStreamer's names (the GLib nicks of
// GstVideoColorRange and GstVideoColorMatrix).
type VideoColorimetry struct {
	// Range is "16-235", "0-255" or "unknown" (GStreamer's converter
	// reads unknown as 16-235).
	Range string
	// Matrix is "bt601", "bt709", "bt2020", "smpte240m", "fcc", or for
	// RGB formats "rgb". gst_video_info_from_caps never leaves a YUV
	// format's unknown: it puts its defaults in place.
	Matrix string
}

// CapsVideoInfo is CapsVideoLayout and the caps' colorimetry as
// gst_video_info_from_caps reads it: the caps' own, or GStreamer's
// default for the format and size when they name none (or one it
// refuses) — for YUV, BT.601 limited range up to 576 lines, BT.709
// limited range above (GStreamer 1.22).
func CapsVideoInfo(caps *gst.Caps) (VideoMeta, int, VideoColorimetry, error) {
	var f C.GstVideoFormat
	var w, h, n C.guint
	var coff [MaxPlanes]C.gsize
	var cstr [MaxPlanes]C.gint
	var size C.gsize
	var crange, matrix *C.gchar
	if !gobool(C.gstc_video_layout(capsC(caps), &f, &w, &h, &n, &coff[0], &cstr[0], &size, &crange, &matrix)) {
		return VideoMeta{}, 0, VideoColorimetry{}, fmt.Errorf("gstc: not fixed raw video caps: %s", caps)
	}
	col := VideoColorimetry{Range: C.GoString(crange), Matrix: C.GoString(matrix)}
	return newVideoMeta(f, w, h, n, &coff, &cstr), int(size), col, nil
}

// VideoMetaAPIType is GST_VIDEO_META_API_TYPE, for
// gst.Query.AddAllocationMeta in a sink's propose_allocation (which tells
// upstream it may send padded strides) and FindAllocationMeta in a
// source's decide_allocation.
func VideoMetaAPIType() glib.Type { return glib.Type(C.gst_video_meta_api_get_type()) }

// VideoMetaLayout is a GstVideoMeta layout checked and converted once
// (PrepareVideoMeta), to be attached to many buffers by AddVideoMeta
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

// Values returns l as plain numbers, for package frameengine's C (cgo
// types are per package): the GstVideoFormat, the size, the number of
// planes and each plane's offset and stride. No allocation.
func (l *VideoMetaLayout) Values() (format, width, height, n int, offsets, strides [MaxPlanes]int) {
	for i := range int(l.n) {
		offsets[i], strides[i] = int(l.offsets[i]), int(l.strides[i])
	}
	return int(l.format), int(l.width), int(l.height), int(l.n), offsets, strides
}

// PrepareVideoMeta checks the arguments of a GstVideoMeta and returns the
// layout for AddVideoMeta. format is a GstVideoFormat name ("NV12");
// strides and offsets are per plane, in the order GetVideoMeta returns
// them. It fails if their lengths differ or exceed MaxPlanes, the size is
// not positive, or an offset is negative or a stride not positive. The
// checks that need the buffer or GStreamer's format table (unknown
// format, plane count, strides against rows, planes inside the buffer)
// run at each AddVideoMeta.
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

// AddVideoMeta attaches a GstVideoMeta with layout l to buf
// (gst_buffer_add_video_meta_full), so downstream elements map planes at
// these offsets and strides instead of assuming the caps' default layout.
// buf is borrowed and must be writable and already hold its memory; the
// meta belongs to buf. It fails if the format is unknown, the number of
// planes is not the format's, a stride is shorter than a row of pixels,
// or a plane does not fit in the buffer. It allocates nothing when it
// succeeds.
func AddVideoMeta(buf RawBuffer, l *VideoMetaLayout) error {
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
