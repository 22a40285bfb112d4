package gstc

import (
	"reflect"
	"testing"

	"github.com/go-gst/go-gst/gst"
)

// AddVideoMetaRaw with a prepared layout attaches the same meta and
// reports the same errors as AddVideoMeta, without allocating.
func TestVideoMetaRawMatchesAddVideoMeta(t *testing.T) {
	const w, h, stride = 320, 240, 384
	offsets, strides := []int{0, stride * h}, []int{stride, stride}
	l, err := PrepareVideoMeta("NV12", w, h, strides, offsets)
	if err != nil {
		t.Fatal(err)
	}
	buf := gst.NewBufferWithSize(int64(stride*h + stride*h/2))
	defer UnrefBuffer(buf)
	if err := AddVideoMetaRaw(BorrowBuffer(buf), l); err != nil {
		t.Fatal(err)
	}
	vm, ok := GetVideoMeta(buf)
	want := VideoMeta{Format: "NV12", Width: w, Height: h, NPlanes: 2, Offsets: offsets, Strides: strides}
	if !ok || !reflect.DeepEqual(vm, want) {
		t.Fatalf("got %+v, want %+v", vm, want)
	}

	rgba, err := PrepareVideoMeta("RGBA", 4, 2, []int{20}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	fresh := gst.NewBufferWithSize(36)
	defer UnrefBuffer(fresh)
	if n := testing.AllocsPerRun(1, func() {
		if err := AddVideoMetaRaw(BorrowBuffer(fresh), rgba); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("AddVideoMetaRaw allocates %v objects", n)
	}

	big := gst.NewBufferWithSize(384 * 360)
	defer UnrefBuffer(big)
	for _, c := range []struct {
		format           string
		width, height    int
		strides, offsets []int
	}{
		{"NOPE", 320, 240, []int{384}, []int{0}},
		{"NV12", 320, 240, []int{384}, []int{0}},
		{"NV12", 320, 240, []int{384}, []int{0, 92160}},
		{"RGBA", 320, 240, []int{100}, []int{0}},
		{"GRAY8", 320, 240, []int{0}, []int{0}},
		{"NV12", 320, 240, []int{384, 384}, []int{0, 384 * 300}},
		{"GRAY8", 0, 240, []int{384}, []int{0}},
		{"GRAY8", 320, 240, []int{384}, []int{-1}},
	} {
		want := AddVideoMeta(big, c.format, c.width, c.height, c.strides, c.offsets)
		l, got := PrepareVideoMeta(c.format, c.width, c.height, c.strides, c.offsets)
		if got == nil {
			got = AddVideoMetaRaw(BorrowBuffer(big), l)
		}
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%+v: raw error %v, AddVideoMeta's %v", c, got, want)
		}
	}
}
