package preprocess

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Regions of a frame — at odd and even places, clipped to the frame's
// edges, from one pixel to the whole frame, up- and downscaled, placed
// anywhere in an image of any size up to the plan's capacity — match
// the reference (refImage: each pixel from the whole frame at its own
// place) in every format, type, layout and channel order, with padded
// strides too; every kernel gives the same bytes; bytes past the image
// are untouched; and Run converts the whole frame again afterwards.
func TestRegionsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const sw, sh = 41, 29
	regions := []Region{
		{X: 0, Y: 0, W: sw, H: sh, DstW: 20, DstH: 12, CX: 0, CY: 0, CW: 20, CH: 12},  // the whole frame
		{X: 7, Y: 3, W: 12, H: 6, DstW: 32, DstH: 16, CX: 0, CY: 0, CW: 32, CH: 16},   // odd place, upscaled
		{X: 10, Y: 4, W: 24, H: 8, DstW: 30, DstH: 8, CX: 0, CY: 0, CW: 24, CH: 8},    // text-line style: fit height, pad right
		{X: 40, Y: 28, W: 1, H: 1, DstW: 4, DstH: 4, CX: 1, CY: 2, CW: 2, CH: 1},      // the last pixel
		{X: 1, Y: 0, W: 40, H: 29, DstW: 9, DstH: 7, CX: 0, CY: 0, CW: 9, CH: 7},      // to the right edge
		{X: 13, Y: 11, W: 5, H: 17, DstW: 32, DstH: 16, CX: 10, CY: 0, CW: 5, CH: 16}, // tall, letterboxed
	}
	// NV12 and I420 take each colorimetry in turn.
	next := 0
	for _, f := range Formats() {
		for _, dt := range []tensor.DType{tensor.U8, tensor.F32} {
			for _, l := range []Layout{NCHW, NHWC} {
				for _, o := range []ChannelOrder{OrderRGB, OrderBGR} {
					for _, pad := range []bool{false, true} {
						cms := colorimetries(f)
						cm := cms[next%len(cms)]
						next++
						c := Config{SrcFormat: f, SrcWidth: sw, SrcHeight: sh, DstWidth: 32, DstHeight: 16,
							DstType: dt, DstLayout: l, ChannelOrder: o, Resize: ResizeStretch, PadValue: 127.5,
							Matrix: cm.m, Range: cm.r}
						if dt == tensor.F32 {
							c.Mean, c.Std = [3]float32{0.5, 0.5, 0.5}, [3]float32{0.5, 0.5, 0.5}
						}
						c, src := frameFor(t, c, pad, rng)
						p, err := NewRegionPlan(c)
						if err != nil {
							t.Fatal(err)
						}
						for i, r := range regions {
							name := fmt.Sprintf("%s/%v/%v/%v/pad=%v/%v/%v/region %d", f, dt, l, o, pad, cm.m, cm.r, i)
							checkRegion(t, name, p, c, src, r)
						}
						// The whole frame again.
						buf := make([]byte, p.DstSize())
						if err := p.Run(buf, src); err != nil {
							t.Fatal(err)
						}
						compare(t, fmt.Sprintf("%s/%v/%v/%v/pad=%v/frame after regions", f, dt, l, o, pad), c, buf, refValues(c, src))
						p.Close()
					}
				}
			}
		}
	}
}

func checkRegion(t *testing.T, name string, p *Plan, c Config, src []byte, r Region) {
	t.Helper()
	rc := c
	rc.DstWidth, rc.DstHeight = r.DstW, r.DstH // the image's layout, for compare
	want := refImage(c, src, [4]int{r.X, r.Y, r.W, r.H}, r.DstW, r.DstH, [4]int{r.CX, r.CY, r.CW, r.CH})
	n := r.DstW * r.DstH * 3 * c.DstType.Size()
	var first []byte
	for _, baseline := range []bool{false, true} {
		if baseline {
			p.useBaseline()
		}
		buf := bytes.Repeat([]byte{0xff}, n+64)
		if err := p.RunRegion(buf[:n], src, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(buf[n:], bytes.Repeat([]byte{0xff}, 64)) {
			t.Fatalf("%s: bytes after the image written", name)
		}
		compare(t, name+"/"+p.kernel(), rc, buf[:n], want)
		if first == nil {
			first = buf[:n]
		} else if !bytes.Equal(first, buf[:n]) {
			t.Errorf("%s: the kernels' images differ", name)
		}
	}
	p.useBest()
}

// A region outside the frame, content outside the image or larger than
// the plan's capacity is refused, naming the region; nothing is written.
func TestRegionRefused(t *testing.T) {
	c := Config{SrcFormat: RGB, SrcWidth: 16, SrcHeight: 8, DstWidth: 8, DstHeight: 8, DstType: tensor.U8,
		DstLayout: NCHW, ChannelOrder: OrderRGB, Resize: ResizeStretch}
	p, err := NewRegionPlan(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src := make([]byte, 16*8*3)
	dst := bytes.Repeat([]byte{7}, 16*8*3)
	for _, r := range []Region{
		{X: 10, Y: 0, W: 7, H: 4, DstW: 8, DstH: 8, CW: 8, CH: 8},       // past the right edge
		{X: -1, Y: 0, W: 4, H: 4, DstW: 8, DstH: 8, CW: 8, CH: 8},       // before the left
		{X: 0, Y: 0, W: 4, H: 4, DstW: 8, DstH: 8, CX: 4, CW: 8, CH: 8}, // content past the image
		{X: 0, Y: 0, W: 4, H: 4, DstW: 16, DstH: 8, CW: 16, CH: 8},      // content past the capacity
		{X: 0, Y: 0, W: 0, H: 4, DstW: 8, DstH: 8, CW: 8, CH: 8},        // empty
	} {
		if err := p.RunRegion(dst, src, r); err == nil {
			t.Errorf("region %+v accepted", r)
		}
	}
	if !bytes.Equal(dst, bytes.Repeat([]byte{7}, len(dst))) {
		t.Error("a refused region wrote into the image")
	}
}

// A region's pass allocates nothing in Go (its tables are rebuilt in the
// plan's own memory).
func TestRunRegionAllocatesNothing(t *testing.T) {
	c := Config{SrcFormat: NV12, SrcWidth: 64, SrcHeight: 32, DstWidth: 64, DstHeight: 16, DstType: tensor.F32,
		DstLayout: NCHW, ChannelOrder: OrderBGR, Resize: ResizeStretch, Mean: [3]float32{0.5, 0.5, 0.5}, Std: [3]float32{0.5, 0.5, 0.5}}
	c, src := frameFor(t, c, false, rand.New(rand.NewPCG(5, 6)))
	p, err := NewRegionPlan(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dst := make([]byte, 64*16*3*4)
	r := Region{X: 5, Y: 3, W: 30, H: 8, DstW: 64, DstH: 16, CW: 60, CH: 16}
	if n := testing.AllocsPerRun(50, func() {
		if err := p.RunRegion(dst, src, r); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("RunRegion allocates %.1f times", n)
	}
}

// BenchmarkRegion1080pNV12 is a text line's crop: a 300×60 region of a
// 1080p NV12 frame into one [3 48 320] float32 image (fit to height 48:
// 240 columns of content, the rest padding), as a recogniser's batch row.
func BenchmarkRegion1080pNV12(b *testing.B) {
	c := Config{SrcFormat: NV12, SrcWidth: 1920, SrcHeight: 1080, DstWidth: 320, DstHeight: 48, DstType: tensor.F32,
		DstLayout: NCHW, ChannelOrder: OrderBGR, Resize: ResizeStretch, PadValue: 127.5,
		Mean: [3]float32{0.5, 0.5, 0.5}, Std: [3]float32{0.5, 0.5, 0.5}}
	c, src := frameFor(b, c, false, rand.New(rand.NewPCG(7, 8)))
	p, err := NewRegionPlan(c)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	dst := make([]byte, 320*48*3*4)
	r := Region{X: 811, Y: 503, W: 300, H: 60, DstW: 320, DstH: 48, CW: 240, CH: 48}
	b.ReportAllocs()
	b.SetBytes(int64(len(dst)))
	for b.Loop() {
		if err := p.RunRegion(dst, src, r); err != nil {
			b.Fatal(err)
		}
	}
}
