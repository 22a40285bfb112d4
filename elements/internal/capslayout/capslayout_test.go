package capslayout_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

func TestMain(m *testing.M) {
	gst.Init(nil)
	os.Exit(m.Run())
}

func TestVideoCaps(t *testing.T) {
	f, err := capslayout.FromCaps(gst.NewCapsFromString("video/x-raw(memory:DMABuf),format=RGB,width=322,height=10,framerate=30/1"))
	if err != nil {
		t.Fatal(err)
	}
	// GStreamer pads RGB rows to 4 bytes: 322*3 = 966 -> 968.
	if !f.DMABuf || f.VideoFormat != "RGB" || f.Layout().RowStride != 968 || !slices.Equal(f.Layout().Shape, []int{10, 322, 3}) || f.FrameSize != 9680 {
		t.Fatalf("format %+v", f)
	}
	g, _ := capslayout.FromCaps(gst.NewCapsFromString("video/x-raw,format=GRAY8,width=8,height=2"))
	if !slices.Equal(g.Layout().Shape, []int{2, 8}) || g.DMABuf {
		t.Fatalf("gray %+v", g)
	}
}

// Multi-plane formats: one tensor per plane, subsampled and strided as
// GStreamer lays the frame out (GstVideoInfo), offsets from the buffer's
// start.
func TestPlanarVideoCaps(t *testing.T) {
	type plane struct {
		shape          []int
		dtype          tensor.DType
		stride, offset int
	}
	u8, u16 := tensor.U8, tensor.U16
	for caps, want := range map[string][]plane{
		"NV12":      {{[]int{48, 64}, u8, 64, 0}, {[]int{24, 32, 2}, u8, 64, 3072}},
		"NV21":      {{[]int{48, 64}, u8, 64, 0}, {[]int{24, 32, 2}, u8, 64, 3072}},
		"I420":      {{[]int{48, 64}, u8, 64, 0}, {[]int{24, 32}, u8, 32, 3072}, {[]int{24, 32}, u8, 32, 3840}},
		"YV12":      {{[]int{48, 64}, u8, 64, 0}, {[]int{24, 32}, u8, 32, 3072}, {[]int{24, 32}, u8, 32, 3840}},
		"NV16":      {{[]int{48, 64}, u8, 64, 0}, {[]int{48, 32, 2}, u8, 64, 3072}},
		"Y42B":      {{[]int{48, 64}, u8, 64, 0}, {[]int{48, 32}, u8, 32, 3072}, {[]int{48, 32}, u8, 32, 4608}},
		"Y444":      {{[]int{48, 64}, u8, 64, 0}, {[]int{48, 64}, u8, 64, 3072}, {[]int{48, 64}, u8, 64, 6144}},
		"P010_10LE": {{[]int{48, 64}, u16, 128, 0}, {[]int{24, 32, 2}, u16, 128, 6144}},
	} {
		f, err := capslayout.FromCaps(gst.NewCapsFromString("video/x-raw,format=" + caps + ",width=64,height=48"))
		if err != nil {
			t.Fatalf("%s: %v", caps, err)
		}
		if len(f.Planes) != len(want) || capslayout.NumPlanes(caps) != len(want) {
			t.Fatalf("%s: %d planes, want %d", caps, len(f.Planes), len(want))
		}
		for i, w := range want {
			l := f.Planes[i].Layout
			if !slices.Equal(l.Shape, w.shape) || l.DType != w.dtype || l.RowStride != w.stride || l.Offset != w.offset || f.Planes[i].Memory != -1 {
				t.Errorf("%s plane %d: %v %v stride %d offset %d memory %d, want %v %v stride %d offset %d",
					caps, i, l.Shape, l.DType, l.RowStride, l.Offset, f.Planes[i].Memory, w.shape, w.dtype, w.stride, w.offset)
			}
		}
	}
	// Odd sizes round the chroma planes up, as GST_VIDEO_SUB_SCALE does.
	f, err := capslayout.FromCaps(gst.NewCapsFromString("video/x-raw,format=I420,width=5,height=3"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Planes[1].Layout.Shape, []int{2, 3}) {
		t.Errorf("I420 5x3 chroma %v, want [2 3]", f.Planes[1].Layout.Shape)
	}
	if _, err := capslayout.VideoLayout("NV12", 64, 48, 0); !errors.Is(err, capslayout.ErrUnsupportedCaps) {
		t.Errorf("VideoLayout(NV12) = %v, want ErrUnsupportedCaps: it is single-plane only", err)
	}
}

// Several tensors: one plane each, in memory i, NNStreamer's layout.
func TestSeveralTensors(t *testing.T) {
	f, err := capslayout.FromCaps(gst.NewCapsFromString(`other/tensors,format=static,num_tensors=2,` +
		`dimensions=(string)"3:224:224:1,1001:1",types=(string)"uint8,float32",framerate=0/1`))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Planes) != 2 || f.Planes[1].Memory != 1 || f.Planes[1].Layout.DType != tensor.F32 ||
		!slices.Equal(f.Planes[1].Layout.Shape, []int{1, 1001}) || f.FrameSize != 224*224*3+1001*4 {
		t.Fatalf("format %+v", f)
	}
	dims := make([]string, 17)
	types := make([]string, 17)
	for i := range dims {
		dims[i], types[i] = "4", "uint8"
	}
	_, err = capslayout.FromCaps(gst.NewCapsFromString(`other/tensors,format=static,num_tensors=17,dimensions=(string)"` +
		strings.Join(dims, ",") + `",types=(string)"` + strings.Join(types, ",") + `"`))
	if !errors.Is(err, capslayout.ErrUnsupportedCaps) || !strings.Contains(err.Error(), "at most 16") {
		t.Errorf("17 tensors: %v", err)
	}
}

func TestTensorCaps(t *testing.T) {
	f, err := capslayout.FromCaps(gst.NewCapsFromString("other/tensors,format=static,num_tensors=1,dimensions=3:224:224:1,types=float32,framerate=0/1"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Layout().DType != tensor.F32 || !slices.Equal(f.Layout().Shape, []int{1, 224, 224, 3}) || f.FrameSize != 224*224*3*4 {
		t.Fatalf("format %+v", f)
	}
	if d := capslayout.Dimensions(f.Layout().Shape); d != "3:224:224:1" {
		t.Errorf("Dimensions = %q", d)
	}
}

// A scalar (rank 0, an empty shape) is one element: dimensions "1", which
// reads back as one element, not "" (which other/tensors cannot carry).
func TestDimensionsOfAScalar(t *testing.T) {
	for _, shape := range [][]int{nil, {}} {
		d := capslayout.Dimensions(shape)
		if d != "1" {
			t.Fatalf("Dimensions(%#v) = %q, want \"1\"", shape, d)
		}
		l, err := capslayout.TensorLayout(d, "float32")
		if err != nil || !slices.Equal(l.Shape, []int{1}) {
			t.Fatalf("TensorLayout(%q) = %v, %v", d, l, err)
		}
	}
}

func TestUnsupportedCapsNameTheProblem(t *testing.T) {
	for caps, want := range map[string]string{
		"video/x-raw,format=v210,width=64,height=64": "v210",
		"other/tensors,format=flexible":              "static",
		`other/tensors,format=static,num_tensors=3,dimensions=(string)"3:4,4",types=(string)"uint8,uint8"`:       "num_tensors",
		`other/tensors,format=static,num_tensors=2,dimensions=(string)"3:4,4",types=(string)"uint8"`:             "types",
		"other/tensors,format=static,num_tensors=1,dimensions=3:0:4,types=uint8":                                 "positive",
		"other/tensors,format=static,num_tensors=1,dimensions=3:4,types=complex":                                 "types",
		"other/tensors,format=static,num_tensors=1,dimensions=99999999999:99999999999:99999999999,types=float64": "overflow",
		"other/tensors,format=static,num_tensors=1,dimensions=64:4,types=uint8":                                  "(string)64:4",
		"audio/x-raw,format=S16LE,rate=48000,channels=2,layout=interleaved":                                      "audio/x-raw",
	} {
		_, err := capslayout.FromCaps(gst.NewCapsFromString(caps))
		if !errors.Is(err, capslayout.ErrUnsupportedCaps) && !errors.Is(err, tensor.ErrOverflow) {
			t.Errorf("%s: %v, want ErrUnsupportedCaps", caps, err)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not mention %q", caps, err, want)
		}
	}
}

// The colorimetry is GStreamer's reading of the caps: theirs when they
// name one, else GStreamer 1.22's defaults for the format and size (YUV:
// BT.601 up to 576 lines, BT.709 above, limited range; RGB: the rgb
// matrix, full range). jpegdec's I420 says 1:4:0:0 (full range, BT.601);
// an unknown range is limited, as GStreamer's converter reads it.
func TestVideoColorimetry(t *testing.T) {
	for _, c := range []struct {
		caps   string
		matrix string
		full   bool
	}{
		{"format=NV12,width=640,height=480", "bt601", false},
		{"format=I420,width=720,height=576", "bt601", false},
		{"format=I420,width=720,height=578", "bt709", false},
		{"format=NV12,width=1920,height=1080", "bt709", false},
		{"format=NV12,width=3840,height=2160", "bt709", false},
		{"format=I420,width=64,height=64,colorimetry=1:4:0:0", "bt601", true},
		{"format=I420,width=1920,height=1080,colorimetry=bt601", "bt601", false},
		{"format=NV12,width=64,height=64,colorimetry=bt709", "bt709", false},
		{"format=NV12,width=64,height=64,colorimetry=bt2020", "bt2020", false},
		{"format=NV12,width=64,height=64,colorimetry=smpte240m", "smpte240m", false},
		{"format=NV12,width=64,height=64,colorimetry=1:2:0:0", "fcc", true},
		{"format=NV12,width=1920,height=1080,colorimetry=0:3:0:0", "bt709", false},
		{"format=NV12,width=64,height=64,colorimetry=nonsense", "bt601", false},
		{"format=RGB,width=64,height=64", "rgb", true},
	} {
		f, err := capslayout.FromCaps(gst.NewCapsFromString("video/x-raw," + c.caps))
		if err != nil {
			t.Fatalf("%s: %v", c.caps, err)
		}
		if want := (capslayout.Colorimetry{Matrix: c.matrix, FullRange: c.full}); f.Colorimetry != want {
			t.Errorf("%s: colorimetry %+v, want %+v", c.caps, f.Colorimetry, want)
		}
	}
}
