// Package capslayout translates between GStreamer caps and tensor layouts:
// raw video (single-plane formats) and NNStreamer's
// other/tensors,format=static with one tensor. Both elements use it, so a
// tensorsrc's caps and a tensorpinsink's reading of them always agree.
package capslayout

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// ErrUnsupportedCaps: caps that do not describe one tensor this project
// can map (multi-plane video, several tensors, flexible tensors, an
// unknown type). The wrapped text says which field.
var ErrUnsupportedCaps = errors.New("caps cannot be mapped to a tensor")

// Media types and the feature this project handles.
const (
	MediaVideo    = "video/x-raw"
	MediaTensors  = "other/tensors"
	FeatureDMABuf = "memory:DMABuf"
	// MaxRank is NNStreamer's limit on dimensions in other/tensors.
	MaxRank = 8
)

// videoFormats lists the single-plane raw formats: bytes per pixel (the
// innermost dimension) and element type. GRAY formats are rank 2.
var videoFormats = map[string]struct {
	channels int
	dtype    tensor.DType
}{
	"RGB": {3, tensor.U8}, "BGR": {3, tensor.U8},
	"RGBA": {4, tensor.U8}, "BGRA": {4, tensor.U8}, "ARGB": {4, tensor.U8}, "ABGR": {4, tensor.U8},
	"RGBx": {4, tensor.U8}, "BGRx": {4, tensor.U8}, "xRGB": {4, tensor.U8}, "xBGR": {4, tensor.U8},
	"YUY2": {2, tensor.U8}, "UYVY": {2, tensor.U8}, "YVYU": {2, tensor.U8},
	"GRAY8": {1, tensor.U8}, "GRAY16_LE": {1, tensor.U16},
}

// VideoFormats returns the supported raw video formats as a caps list
// ("{ RGB, BGR, … }").
func VideoFormats() string {
	names := []string{"RGB", "BGR", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR",
		"YUY2", "UYVY", "YVYU", "GRAY8", "GRAY16_LE"}
	return "{ " + strings.Join(names, ", ") + " }"
}

// Format is what fixed caps say about each buffer.
type Format struct {
	Media       string // MediaVideo or MediaTensors
	DMABuf      bool   // the memory:DMABuf feature is present
	VideoFormat string // for video: the GstVideoFormat name
	Width       int    // for video
	Height      int    // for video
	// Layout is the tensor in a buffer with no GstVideoMeta (for video:
	// GStreamer's default strides). Offset is 0.
	Layout tensor.Layout
	// FrameSize is the number of bytes a buffer must hold at least.
	FrameSize int
}

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
	vm, size, err := gstc.CapsVideoLayout(caps)
	if err != nil {
		return Format{}, fmt.Errorf("%v: %w", err, ErrUnsupportedCaps)
	}
	l, err := VideoLayout(vm.Format, vm.Width, vm.Height, vm.Strides[0])
	if err != nil {
		return Format{}, err
	}
	l.Offset = vm.Offsets[0]
	return Format{Media: MediaVideo, VideoFormat: vm.Format, Width: vm.Width, Height: vm.Height, Layout: l, FrameSize: size}, nil
}

// VideoLayout is the tensor of a single-plane video frame: [H, W, C] (or
// [H, W] for GRAY) with the given row stride in bytes (0: packed).
func VideoLayout(format string, width, height, stride int) (tensor.Layout, error) {
	vf, ok := videoFormats[format]
	if !ok {
		return tensor.Layout{}, fmt.Errorf("video format %s (supported: single-plane %s): %w", format, VideoFormats(), ErrUnsupportedCaps)
	}
	shape := []int{height, width, vf.channels}
	if vf.channels == 1 {
		shape = shape[:2]
	}
	l := tensor.Layout{DType: vf.dtype, Shape: shape, RowStride: stride}
	if _, err := l.Geometry(); err != nil {
		return tensor.Layout{}, fmt.Errorf("video %s %dx%d stride %d: %w", format, width, height, stride, err)
	}
	return l, nil
}

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
	if v, err := st.GetValue("num_tensors"); err == nil {
		if n, ok := v.(int); !ok || n != 1 {
			return Format{}, fmt.Errorf("other/tensors num_tensors=%v, want 1: %w", v, ErrUnsupportedCaps)
		}
	}
	dims, err := str("dimensions")
	if err != nil {
		return Format{}, err
	}
	types, err := str("types")
	if err != nil {
		return Format{}, err
	}
	l, err := TensorLayout(dims, types)
	if err != nil {
		return Format{}, err
	}
	g, _ := l.Geometry()
	return Format{Media: MediaTensors, Layout: l, FrameSize: g.Size}, nil
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
// string (innermost first).
func Dimensions(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[len(shape)-1-i] = strconv.Itoa(d)
	}
	return strings.Join(parts, ":")
}
