package gstglue

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-gst/go-gst/gst"
)

// addVideoMeta prepares the layout and attaches it to buf (borrowed).
func addVideoMeta(buf *gst.Buffer, format string, width, height int, strides, offsets []int) error {
	l, err := PrepareVideoMeta(format, width, height, strides, offsets)
	if err != nil {
		return err
	}
	return AddVideoMeta(BorrowBuffer(buf), l)
}

func TestVideoMetaRoundTrip(t *testing.T) {
	// NV12 320x240 with rows padded to 384 bytes, as a V4L2 driver or
	// hardware decoder would produce.
	const w, h, stride = 320, 240, 384
	offsets := []int{0, stride * h}
	strides := []int{stride, stride}
	buf := gst.NewBufferWithSize(int64(stride*h + stride*h/2))
	defer UnrefBuffer(buf)
	if _, ok := GetVideoMeta(BorrowBuffer(buf)); ok {
		t.Fatal("meta on a fresh buffer")
	}
	if err := addVideoMeta(buf, "NV12", w, h, strides, offsets); err != nil {
		t.Fatal(err)
	}
	vm, ok := GetVideoMeta(BorrowBuffer(buf))
	want := VideoMeta{Format: "NV12", Width: w, Height: h, NPlanes: 2, Offsets: offsets, Strides: strides}
	if !ok || !reflect.DeepEqual(vm, want) {
		t.Fatalf("got %+v, want %+v", vm, want)
	}
	// What a sink reads per frame: every plane, through the buffer view.
	var v BufferView
	ReadBufferView(BorrowBuffer(buf), QdataKey{}, &v)
	m, ok := v.VideoMeta()
	if !ok || m.NPlanes != 2 || m.Width != w || m.Height != h || m.Offsets[1] != offsets[1] || m.Strides[0] != stride || m.Strides[1] != stride {
		t.Errorf("BufferView's meta %+v (ok %v)", m, ok)
	}
	// go-gst sees the meta under the API type we hand to allocation
	// queries.
	if buf.GetMeta(VideoMetaAPIType()) == nil {
		t.Error("meta not found by API type")
	}
}

// A prepared layout is attached without allocating.
func TestAddVideoMetaAllocationFree(t *testing.T) {
	rgba, err := PrepareVideoMeta("RGBA", 4, 2, []int{20}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	fresh := gst.NewBufferWithSize(36)
	defer UnrefBuffer(fresh)
	if n := testing.AllocsPerRun(1, func() {
		if err := AddVideoMeta(BorrowBuffer(fresh), rgba); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("AddVideoMeta allocates %v objects", n)
	}
}

func TestVideoMetaTightLastRow(t *testing.T) {
	// RGBA 4x2 with stride 20: the last row needs only 16 bytes.
	buf := gst.NewBufferWithSize(20 + 16)
	defer UnrefBuffer(buf)
	if err := addVideoMeta(buf, "RGBA", 4, 2, []int{20}, []int{0}); err != nil {
		t.Fatal(err)
	}
	short := gst.NewBufferWithSize(20 + 15)
	defer UnrefBuffer(short)
	if err := addVideoMeta(short, "RGBA", 4, 2, []int{20}, []int{0}); err == nil {
		t.Error("accepted a buffer one byte short")
	}
}

func TestVideoMetaErrors(t *testing.T) {
	buf := gst.NewBufferWithSize(384 * 360)
	defer UnrefBuffer(buf)
	cases := []struct {
		name, format     string
		width, height    int
		strides, offsets []int
		want             string // in the error
	}{
		{"unknown format", "NOPE", 320, 240, []int{384}, []int{0}, `unknown video format "NOPE"`},
		{"plane count", "NV12", 320, 240, []int{384}, []int{0}, "does not have 1 planes"},
		{"lengths", "NV12", 320, 240, []int{384}, []int{0, 92160}, "2 offsets and 1 strides"},
		{"stride < row", "RGBA", 320, 240, []int{100}, []int{0}, "shorter than a row of RGBA"},
		{"zero stride", "GRAY8", 320, 240, []int{0}, []int{0}, "plane 0: offset 0 stride 0"},
		{"offset too far", "NV12", 320, 240, []int{384, 384}, []int{0, 384 * 300}, "do not fit a 138240-byte buffer"},
		{"zero width", "GRAY8", 0, 240, []int{384}, []int{0}, "invalid size 0x240"},
		{"negative off", "GRAY8", 320, 240, []int{384}, []int{-1}, "plane 0: offset -1"},
	}
	for _, c := range cases {
		err := addVideoMeta(buf, c.format, c.width, c.height, c.strides, c.offsets)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// A buffer with two owners is not writable.
	extra := buf.Ref()
	if err := addVideoMeta(buf, "GRAY8", 320, 240, []int{384}, []int{0}); err == nil || !strings.Contains(err.Error(), "not writable") {
		t.Errorf("shared buffer: error %v", err)
	}
	UnrefBuffer(extra)
	if _, ok := GetVideoMeta(BorrowBuffer(buf)); ok {
		t.Error("a failed AddVideoMeta left a meta behind")
	}
}

func TestCapsVideoLayout(t *testing.T) {
	caps := gst.NewCapsFromString("video/x-raw(memory:DMABuf),format=NV12,width=322,height=240,framerate=30/1")
	vm, size, err := CapsVideoLayout(caps)
	if err != nil {
		t.Fatal(err)
	}
	// GStreamer rounds NV12 strides up to 4 bytes: 322 -> 324.
	want := VideoMeta{Format: "NV12", Width: 322, Height: 240, NPlanes: 2,
		Offsets: []int{0, 324 * 240}, Strides: []int{324, 324}}
	if !reflect.DeepEqual(vm, want) || size != 324*240*3/2 {
		t.Errorf("got %+v size %d, want %+v size %d", vm, size, want, 324*240*3/2)
	}
	for _, c := range []string{"video/x-raw,format=NV12", "video/x-raw,format=NV12,width=[1,100],height=2"} {
		if _, _, err := CapsVideoLayout(gst.NewCapsFromString(c)); err == nil {
			t.Errorf("incomplete or unfixed caps %s accepted", c)
		}
	}
	if _, _, err := CapsVideoLayout(gst.NewCapsFromString("other/tensors,format=static")); err == nil {
		t.Error("tensor caps accepted")
	}
}

// The colorimetry is gst_video_info_from_caps's: the caps' own, else
// GStreamer's defaults for the format and size (YUV: BT.601 up to 576
// lines, BT.709 above, limited range; RGB: the rgb matrix, full range),
// by their GLib nicks.
func TestCapsVideoInfoColorimetry(t *testing.T) {
	for _, c := range []struct {
		caps string
		want VideoColorimetry
	}{
		{"video/x-raw,format=NV12,width=640,height=480", VideoColorimetry{Range: "16-235", Matrix: "bt601"}},
		{"video/x-raw(memory:DMABuf),format=NV12,width=1280,height=720", VideoColorimetry{Range: "16-235", Matrix: "bt709"}},
		{"video/x-raw,format=I420,width=64,height=64,colorimetry=1:4:0:0", VideoColorimetry{Range: "0-255", Matrix: "bt601"}},
		{"video/x-raw,format=I420,width=64,height=64,colorimetry=bt2020", VideoColorimetry{Range: "16-235", Matrix: "bt2020"}},
		{"video/x-raw,format=I420,width=1920,height=1080,colorimetry=0:3:0:0", VideoColorimetry{Range: "unknown", Matrix: "bt709"}},
		{"video/x-raw,format=RGB,width=64,height=64", VideoColorimetry{Range: "0-255", Matrix: "rgb"}},
	} {
		caps := gst.NewCapsFromString(c.caps)
		_, _, col, err := CapsVideoInfo(caps)
		ReleaseCaps(caps)
		if err != nil || col != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.caps, col, err, c.want)
		}
	}
}
