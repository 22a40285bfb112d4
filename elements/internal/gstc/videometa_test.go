package gstc

import (
	"reflect"
	"testing"

	"github.com/go-gst/go-gst/gst"
)

func TestVideoMetaRoundTrip(t *testing.T) {
	// NV12 320x240 with rows padded to 384 bytes, as a V4L2 driver or
	// hardware decoder would produce.
	const w, h, stride = 320, 240, 384
	offsets := []int{0, stride * h}
	strides := []int{stride, stride}
	buf := gst.NewBufferWithSize(int64(stride*h + stride*h/2))
	defer UnrefBuffer(buf)
	if _, _, _, ok := VideoMetaStrides(buf); ok {
		t.Fatal("meta on a fresh buffer")
	}
	if err := AddVideoMeta(buf, "NV12", w, h, strides, offsets); err != nil {
		t.Fatal(err)
	}
	vm, ok := GetVideoMeta(buf)
	want := VideoMeta{Format: "NV12", Width: w, Height: h, NPlanes: 2, Offsets: offsets, Strides: strides}
	if !ok || !reflect.DeepEqual(vm, want) {
		t.Fatalf("got %+v, want %+v", vm, want)
	}
	s, o, n, ok := VideoMetaStrides(buf)
	if !ok || n != 2 || !reflect.DeepEqual(s, strides) || !reflect.DeepEqual(o, offsets) {
		t.Errorf("VideoMetaStrides = %v %v %d %v", s, o, n, ok)
	}
	// go-gst sees the meta under the API type we hand to allocation
	// queries.
	if buf.GetMeta(VideoMetaAPIType()) == nil {
		t.Error("meta not found by API type")
	}
}

func TestVideoMetaTightLastRow(t *testing.T) {
	// RGBA 4x2 with stride 20: the last row needs only 16 bytes.
	buf := gst.NewBufferWithSize(20 + 16)
	defer UnrefBuffer(buf)
	if err := AddVideoMeta(buf, "RGBA", 4, 2, []int{20}, []int{0}); err != nil {
		t.Fatal(err)
	}
	short := gst.NewBufferWithSize(20 + 15)
	defer UnrefBuffer(short)
	if err := AddVideoMeta(short, "RGBA", 4, 2, []int{20}, []int{0}); err == nil {
		t.Error("accepted a buffer one byte short")
	}
}

func TestVideoMetaErrors(t *testing.T) {
	buf := gst.NewBufferWithSize(384 * 360)
	defer UnrefBuffer(buf)
	cases := map[string]func() error{
		"unknown format": func() error { return AddVideoMeta(buf, "NOPE", 320, 240, []int{384}, []int{0}) },
		"plane count":    func() error { return AddVideoMeta(buf, "NV12", 320, 240, []int{384}, []int{0}) },
		"lengths":        func() error { return AddVideoMeta(buf, "NV12", 320, 240, []int{384}, []int{0, 92160}) },
		"stride < row":   func() error { return AddVideoMeta(buf, "RGBA", 320, 240, []int{100}, []int{0}) },
		"zero stride":    func() error { return AddVideoMeta(buf, "GRAY8", 320, 240, []int{0}, []int{0}) },
		"offset too far": func() error { return AddVideoMeta(buf, "NV12", 320, 240, []int{384, 384}, []int{0, 384 * 300}) },
		"zero width":     func() error { return AddVideoMeta(buf, "GRAY8", 0, 240, []int{384}, []int{0}) },
		"negative off":   func() error { return AddVideoMeta(buf, "GRAY8", 320, 240, []int{384}, []int{-1}) },
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	// A buffer with two owners is not writable.
	extra := buf.Ref()
	if err := AddVideoMeta(buf, "GRAY8", 320, 240, []int{384}, []int{0}); err == nil {
		t.Error("added meta to a shared buffer")
	}
	UnrefBuffer(extra)
	if _, ok := GetVideoMeta(buf); ok {
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
