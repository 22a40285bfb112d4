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
	if !f.DMABuf || f.VideoFormat != "RGB" || f.Layout.RowStride != 968 || !slices.Equal(f.Layout.Shape, []int{10, 322, 3}) || f.FrameSize != 9680 {
		t.Fatalf("format %+v", f)
	}
	g, _ := capslayout.FromCaps(gst.NewCapsFromString("video/x-raw,format=GRAY8,width=8,height=2"))
	if !slices.Equal(g.Layout.Shape, []int{2, 8}) || g.DMABuf {
		t.Fatalf("gray %+v", g)
	}
}

func TestTensorCaps(t *testing.T) {
	f, err := capslayout.FromCaps(gst.NewCapsFromString("other/tensors,format=static,num_tensors=1,dimensions=3:224:224:1,types=float32,framerate=0/1"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Layout.DType != tensor.F32 || !slices.Equal(f.Layout.Shape, []int{1, 224, 224, 3}) || f.FrameSize != 224*224*3*4 {
		t.Fatalf("format %+v", f)
	}
	if d := capslayout.Dimensions(f.Layout.Shape); d != "3:224:224:1" {
		t.Errorf("Dimensions = %q", d)
	}
}

func TestUnsupportedCapsNameTheProblem(t *testing.T) {
	for caps, want := range map[string]string{
		"video/x-raw,format=NV12,width=64,height=64": "NV12",
		"other/tensors,format=flexible":              "static",
		`other/tensors,format=static,num_tensors=2,dimensions=(string)"3:4,4",types=(string)"uint8,uint8"`:       "num_tensors",
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

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub)))
}
