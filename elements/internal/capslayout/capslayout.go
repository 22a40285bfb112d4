// Package capslayout translates between GStreamer caps and tensor layouts:
// raw video, one tensor per plane (packed formats, and NV12, I420 and the
// other planar formats of AllVideoFormats), and NNStreamer's
// other/tensors,format=static with 1 to 16 tensors (one memory each).
// Both elements use it, so a tensorsrc's caps and a tensorpinsink's
// reading of them always agree.
package capslayout

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// ErrUnsupportedCaps: caps this project cannot map to tensors (a raw
// video format outside videoFormats, flexible or sparse tensors, more
// than MaxTensors tensors, an unknown type, a rank above MaxRank). The
// wrapped text says which field.
var ErrUnsupportedCaps = errors.New("caps cannot be mapped to a tensor")

// Media types and the feature this project handles.
const (
	MediaVideo    = "video/x-raw"
	MediaTensors  = "other/tensors"
	FeatureDMABuf = "memory:DMABuf"
	// MaxRank is NNStreamer's limit on dimensions in other/tensors.
	MaxRank = 8
	// MaxTensors is NNStreamer's limit on tensors in a static
	// other/tensors buffer (one GstMemory each).
	MaxTensors = 16
)

// planeSpec is one plane of a raw video format: its subsampling (log2,
// horizontal and vertical, as GST_VIDEO_SUB_SCALE), the samples per
// pixel in it (the innermost dimension) and their element type.
type planeSpec struct {
	wsub, hsub uint
	channels   int
	dtype      tensor.DType
}

// videoFormats lists the raw formats this project maps to tensors, plane
// by plane. A plane with one channel is rank 2 ([H, W]).
var videoFormats = map[string][]planeSpec{
	"RGB": {{0, 0, 3, tensor.U8}}, "BGR": {{0, 0, 3, tensor.U8}},
	"RGBA": {{0, 0, 4, tensor.U8}}, "BGRA": {{0, 0, 4, tensor.U8}}, "ARGB": {{0, 0, 4, tensor.U8}}, "ABGR": {{0, 0, 4, tensor.U8}},
	"RGBx": {{0, 0, 4, tensor.U8}}, "BGRx": {{0, 0, 4, tensor.U8}}, "xRGB": {{0, 0, 4, tensor.U8}}, "xBGR": {{0, 0, 4, tensor.U8}},
	"YUY2": {{0, 0, 2, tensor.U8}}, "UYVY": {{0, 0, 2, tensor.U8}}, "YVYU": {{0, 0, 2, tensor.U8}},
	"GRAY8": {{0, 0, 1, tensor.U8}}, "GRAY16_LE": {{0, 0, 1, tensor.U16}},
	// Semi-planar: luma, then interleaved chroma pairs.
	"NV12": {{0, 0, 1, tensor.U8}, {1, 1, 2, tensor.U8}}, "NV21": {{0, 0, 1, tensor.U8}, {1, 1, 2, tensor.U8}},
	"NV16": {{0, 0, 1, tensor.U8}, {1, 0, 2, tensor.U8}}, "NV61": {{0, 0, 1, tensor.U8}, {1, 0, 2, tensor.U8}},
	"P010_10LE": {{0, 0, 1, tensor.U16}, {1, 1, 2, tensor.U16}},
	// Planar: luma and two chroma planes (YV12 has V before U).
	"I420": {{0, 0, 1, tensor.U8}, {1, 1, 1, tensor.U8}, {1, 1, 1, tensor.U8}},
	"YV12": {{0, 0, 1, tensor.U8}, {1, 1, 1, tensor.U8}, {1, 1, 1, tensor.U8}},
	"Y42B": {{0, 0, 1, tensor.U8}, {1, 0, 1, tensor.U8}, {1, 0, 1, tensor.U8}},
	"Y444": {{0, 0, 1, tensor.U8}, {0, 0, 1, tensor.U8}, {0, 0, 1, tensor.U8}},
}

// The formats in caps order: single-plane first.
var (
	singlePlane = []string{"RGB", "BGR", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR",
		"YUY2", "UYVY", "YVYU", "GRAY8", "GRAY16_LE"}
	multiPlane = []string{"NV12", "NV21", "I420", "YV12", "NV16", "NV61", "Y42B", "Y444", "P010_10LE"}
)

// VideoFormats returns the single-plane raw video formats as a caps list
// ("{ RGB, BGR, … }"): what tensorsrc produces.
func VideoFormats() string { return "{ " + strings.Join(singlePlane, ", ") + " }" }

// AllVideoFormats returns every raw video format this package maps, the
// multi-plane ones (NV12, I420, …) included, as a caps list.
func AllVideoFormats() string { return "{ " + strings.Join(Formats(), ", ") + " }" }

// Formats returns every raw video format this package maps, single-plane
// first (a new slice).
func Formats() []string { return append(append([]string(nil), singlePlane...), multiPlane...) }

// NumPlanes returns the number of planes of a supported video format
// (0 if unsupported).
func NumPlanes(format string) int { return len(videoFormats[format]) }

// Plane is one tensor of a frame: a plane of raw video, or one of the
// tensors of other/tensors.
type Plane struct {
	// Layout is the plane's tensor. Its Offset is where the plane starts:
	// from the start of the buffer (video: GstVideoInfo's or
	// GstVideoMeta's plane offset, whichever memory it falls in), or from
	// the start of memory Memory (other/tensors).
	Layout tensor.Layout
	// Memory is the index of the GstMemory holding the plane, or -1 when
	// the plane is found by its offset across the buffer's memories
	// (video).
	Memory int
}

// Format is what fixed caps say about each buffer.
type Format struct {
	Media       string // MediaVideo or MediaTensors
	DMABuf      bool   // the memory:DMABuf feature is present
	VideoFormat string // for video: the GstVideoFormat name
	Width       int    // for video
	Height      int    // for video
	// Planes are the frame's tensors for a buffer with no GstVideoMeta
	// (for video: GStreamer's default strides and offsets): one for
	// packed video and for one tensor.
	Planes []Plane
	// FrameSize is the number of bytes a buffer must hold at least.
	FrameSize int
	// Colorimetry is how video samples hold colour, as GStreamer reads
	// the caps (gst_video_info_from_caps: its defaults for the format
	// and size where the caps name none).
	Colorimetry Colorimetry
}

// Colorimetry is what video caps say of how YUV samples hold colour:
// the part of GstVideoColorimetry a converter to RGB needs.
type Colorimetry struct {
	// Matrix is GStreamer's name of the Y'CbCr matrix: bt601, bt709,
	// bt2020, smpte240m or fcc for YUV formats (BT.601 up to 576 lines,
	// BT.709 above, where the caps name none); rgb for RGB formats.
	Matrix string
	// FullRange: samples span 0..255 (GStreamer's 0-255, a JPEG's, as
	// jpegdec gives them); else limited range (16-235, and unknown,
	// which GStreamer's converter reads as 16-235).
	FullRange bool
}

// Layout returns the first plane's layout: the whole frame for packed
// video and for a single tensor.
func (f Format) Layout() tensor.Layout { return f.Planes[0].Layout }

// FromCaps reads fixed caps. caps is borrowed.
func FromCaps(caps *gst.Caps) (Format, error) {
	if caps == nil || caps.GetSize() != 1 {
		return Format{}, fmt.Errorf("caps %v are not one structure: %w", caps, ErrUnsupportedCaps)
	}
	st := caps.GetStructureAt(0)
	if text := st.String(); strings.Contains(text, "=(flagset)") {
		// GStreamer parses an unquoted "64:4" as a flagset (flags:mask).
		return Format{}, fmt.Errorf("caps %s hold a flagset where a string belongs: two dimensions like 64:4 must be "+
			"written dimensions=(string)64:4: %w", text, ErrUnsupportedCaps)
	}
	if !caps.IsFixed() {
		return Format{}, fmt.Errorf("caps %v are not fixed: %w", caps, ErrUnsupportedCaps)
	}
	dmabuf := false
	if f := caps.GetFeaturesAt(0); f != nil {
		dmabuf = f.Contains(FeatureDMABuf)
	}
	switch st.Name() {
	case MediaVideo:
		f, err := videoFromCaps(caps)
		f.DMABuf = dmabuf
		return f, err
	case MediaTensors:
		f, err := tensorsFromStructure(st)
		f.DMABuf = dmabuf
		return f, err
	}
	return Format{}, fmt.Errorf("media type %s: %w", st.Name(), ErrUnsupportedCaps)
}

func videoFromCaps(caps *gst.Caps) (Format, error) {
	vm, size, col, err := gstglue.CapsVideoInfo(caps)
	if err != nil {
		return Format{}, fmt.Errorf("%v: %w", err, ErrUnsupportedCaps)
	}
	if n := NumPlanes(vm.Format); n == 0 {
		return Format{}, fmt.Errorf("video format %s (supported: %s): %w", vm.Format, AllVideoFormats(), ErrUnsupportedCaps)
	} else if n != vm.NPlanes {
		return Format{}, fmt.Errorf("video format %s: GStreamer says %d planes, this package %d: %w", vm.Format, vm.NPlanes, n, ErrUnsupportedCaps)
	}
	f := Format{Media: MediaVideo, VideoFormat: vm.Format, Width: vm.Width, Height: vm.Height, FrameSize: size,
		Colorimetry: Colorimetry{Matrix: col.Matrix, FullRange: col.Range == "0-255"}}
	for p := 0; p < vm.NPlanes; p++ {
		l, err := PlaneLayout(vm.Format, p, vm.Width, vm.Height, vm.Strides[p])
		if err != nil {
			return Format{}, err
		}
		l.Offset = vm.Offsets[p]
		f.Planes = append(f.Planes, Plane{Layout: l, Memory: -1})
	}
	return f, nil
}

// VideoLayout is the tensor of a single-plane video frame: [H, W, C] (or
// [H, W] for GRAY) with the given row stride in bytes (0: packed).
func VideoLayout(format string, width, height, stride int) (tensor.Layout, error) {
	if n := NumPlanes(format); n > 1 {
		return tensor.Layout{}, fmt.Errorf("video format %s has %d planes, want one of %s: %w", format, n, VideoFormats(), ErrUnsupportedCaps)
	}
	return PlaneLayout(format, 0, width, height, stride)
}

// PlaneLayout is the tensor of plane p of a width×height frame of format:
// [h, w, C] (or [h, w] for one sample per pixel), h and w subsampled as
// GStreamer does (rounding up), with the given row stride in bytes (0:
// packed) and Offset 0.
func PlaneLayout(format string, p, width, height, stride int) (tensor.Layout, error) {
	planes, ok := videoFormats[format]
	if !ok {
		return tensor.Layout{}, fmt.Errorf("video format %s (supported: %s): %w", format, AllVideoFormats(), ErrUnsupportedCaps)
	}
	if p < 0 || p >= len(planes) {
		return tensor.Layout{}, fmt.Errorf("video format %s has no plane %d: %w", format, p, ErrUnsupportedCaps)
	}
	ps := planes[p]
	w, h := subScale(width, ps.wsub), subScale(height, ps.hsub)
	shape := []int{h, w, ps.channels}
	if ps.channels == 1 {
		shape = shape[:2]
	}
	l := tensor.Layout{DType: ps.dtype, Shape: shape, RowStride: stride}
	if _, err := l.Geometry(); err != nil {
		return tensor.Layout{}, fmt.Errorf("video %s plane %d of %dx%d, stride %d: %w", format, p, width, height, stride, err)
	}
	return l, nil
}

// subScale is GST_VIDEO_SUB_SCALE: n >> sub, rounded up.
func subScale(n int, sub uint) int { return -((-n) >> sub) }

func tensorsFromStructure(st *gst.Structure) (Format, error) {
	str := func(key string) (string, error) {
		v, err := st.GetValue(key)
		if err != nil {
			return "", fmt.Errorf("other/tensors without %s: %w", key, ErrUnsupportedCaps)
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("other/tensors field %s is %T, want a string: %w", key, v, ErrUnsupportedCaps)
		}
		return s, nil
	}
	if f, err := str("format"); err != nil || f != "static" {
		return Format{}, fmt.Errorf("other/tensors format %q, want static: %w", f, ErrUnsupportedCaps)
	}
	dims, err := str("dimensions")
	if err != nil {
		return Format{}, err
	}
	types, err := str("types")
	if err != nil {
		return Format{}, err
	}
	dimList, typeList := strings.Split(dims, ","), strings.Split(types, ",")
	n := len(dimList)
	if v, err := st.GetValue("num_tensors"); err == nil {
		if k, ok := v.(int); !ok || k != n {
			return Format{}, fmt.Errorf("other/tensors num_tensors=%v but %d dimensions (%q): %w", v, n, dims, ErrUnsupportedCaps)
		}
	}
	if n > MaxTensors {
		return Format{}, fmt.Errorf("other/tensors with %d tensors, at most %d: %w", n, MaxTensors, ErrUnsupportedCaps)
	}
	if len(typeList) != n {
		return Format{}, fmt.Errorf("other/tensors with %d dimensions but %d types (%q): %w", n, len(typeList), types, ErrUnsupportedCaps)
	}
	f := Format{Media: MediaTensors}
	for i := range dimList {
		l, err := TensorLayout(dimList[i], typeList[i])
		if err != nil {
			return Format{}, fmt.Errorf("tensor %d: %w", i, err)
		}
		g, _ := l.Geometry()
		f.Planes = append(f.Planes, Plane{Layout: l, Memory: i})
		f.FrameSize += g.Size
	}
	return f, nil
}

// TensorLayout parses NNStreamer's dimensions (innermost first,
// "3:640:480:1") and type ("uint8") into a packed layout (outermost first).
func TensorLayout(dims, typ string) (tensor.Layout, error) {
	if strings.Contains(dims, ",") || strings.Contains(typ, ",") {
		return tensor.Layout{}, fmt.Errorf("other/tensors with several tensors (%q): %w", dims, ErrUnsupportedCaps)
	}
	dt, err := tensor.ParseDType(strings.TrimSpace(typ))
	if err != nil {
		return tensor.Layout{}, fmt.Errorf("other/tensors types=%q: %w", typ, ErrUnsupportedCaps)
	}
	parts := strings.Split(strings.TrimSpace(dims), ":")
	if len(parts) > MaxRank {
		return tensor.Layout{}, fmt.Errorf("other/tensors dimensions=%q has rank %d > %d: %w", dims, len(parts), MaxRank, ErrUnsupportedCaps)
	}
	shape := make([]int, len(parts))
	for i, p := range parts {
		d, err := strconv.Atoi(p)
		if err != nil || d <= 0 {
			return tensor.Layout{}, fmt.Errorf("other/tensors dimensions=%q: %q is not a positive integer: %w", dims, p, ErrUnsupportedCaps)
		}
		shape[len(parts)-1-i] = d
	}
	l := tensor.Layout{DType: dt, Shape: shape}
	if _, err := l.Geometry(); err != nil {
		return tensor.Layout{}, fmt.Errorf("other/tensors dimensions=%q types=%s: %w", dims, typ, err)
	}
	return l, nil
}

// Dimensions formats a shape (outermost first) as NNStreamer's dimensions
// string (innermost first). An empty shape, a scalar (rank 0), is "1":
// other/tensors has no rank 0, and one element is what the memory holds.
func Dimensions(shape []int) string {
	if len(shape) == 0 {
		return "1"
	}
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[len(shape)-1-i] = strconv.Itoa(d)
	}
	return strings.Join(parts, ":")
}
