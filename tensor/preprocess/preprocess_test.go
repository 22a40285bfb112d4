package preprocess

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// frameFor returns c with explicit strides and offsets (padded rows when
// pad, planes apart with gaps and I420's V before U) and a random frame
// of that layout: random bytes include YUV outside the limited range,
// so the conversion's clamps are exercised.
func frameFor(t testing.TB, c Config, pad bool, rng *rand.Rand) (Config, []byte) {
	t.Helper()
	if pad {
		fi := formats[c.SrcFormat]
		var strides, offsets []int
		switch c.SrcFormat {
		case NV12:
			ys, uvs := c.SrcWidth+3, 2*((c.SrcWidth+1)/2)+5
			strides, offsets = []int{ys, uvs}, []int{7, 7 + ys*c.SrcHeight + 11}
		case I420:
			cw, chh := (c.SrcWidth+1)/2, (c.SrcHeight+1)/2
			ys, us, vs := c.SrcWidth+1, cw+2, cw+3
			v := 5 + ys*c.SrcHeight + 1
			strides, offsets = []int{ys, us, vs}, []int{5, v + vs*chh + 2, v}
		default:
			strides, offsets = []int{c.SrcWidth*fi.bpp + 7}, []int{3}
		}
		c.SrcStrides, c.SrcOffsets = strides, offsets
	}
	k, err := check(c)
	if err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
	src := make([]byte, k.srcSize)
	for i := range src {
		src[i] = byte(rng.IntN(256))
	}
	return k.cfg, src
}

// compare checks a tensor against the reference: uint8 bit for bit,
// float32 within 1e-6 × (1 + |value|). It reports the first few misses.
func compare(t *testing.T, name string, c Config, got []byte, want [3][]float64) {
	t.Helper()
	misses := 0
	for y := range c.DstHeight {
		for x := range c.DstWidth {
			for k := range 3 {
				i, w := refIndex(c, k, x, y), want[k][y*c.DstWidth+x]
				var g float64
				ok := false
				if c.DstType == tensor.U8 {
					g = float64(got[i])
					ok = g == w
				} else {
					g = float64(math.Float32frombits(binary.NativeEndian.Uint32(got[4*i:])))
					ok = math.Abs(g-w) <= 1e-6*(1+math.Abs(w))
				}
				if !ok {
					if misses < 5 {
						t.Errorf("%s: channel %d at (%d,%d): got %v, want %v", name, k, x, y, g, w)
					}
					misses++
				}
			}
		}
	}
	if misses > 5 {
		t.Errorf("%s: %d values differ", name, misses)
	}
}

type size struct{ sw, sh, dw, dh int }

// TestMatchesReference runs every source format × element type ×
// layout × channel order × resize mode at odd and even sizes, up- and
// downscaling, with GStreamer's strides and with padded ones, against
// the reference.
func TestMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []size{
		{37, 23, 16, 20}, // downscale, odd source
		{9, 7, 20, 13},   // upscale, odd both
		{8, 6, 8, 6},     // the same size (the only one resize none takes)
		{64, 48, 21, 21}, // 3x-ish downscale into a square
		{1, 1, 3, 2},     // one pixel
	}
	for _, f := range Formats() {
		for _, dt := range []tensor.DType{tensor.U8, tensor.F32} {
			for _, l := range []Layout{NCHW, NHWC} {
				for _, o := range []ChannelOrder{OrderRGB, OrderBGR} {
					for _, r := range []Resize{ResizeNone, ResizeStretch, ResizeLetterbox} {
						for si, sz := range sizes {
							if r == ResizeNone && (sz.sw != sz.dw || sz.sh != sz.dh) {
								continue
							}
							for _, pad := range []bool{false, true} {
								c := Config{SrcFormat: f, SrcWidth: sz.sw, SrcHeight: sz.sh, DstWidth: sz.dw, DstHeight: sz.dh,
									DstType: dt, DstLayout: l, ChannelOrder: o, Resize: r, PadValue: 114}
								if dt == tensor.F32 {
									if si%2 == 0 {
										c.Mean, c.Std = [3]float32{0.485, 0.456, 0.406}, [3]float32{0.229, 0.224, 0.225}
									} else {
										c.Scale, c.Offset = [3]float32{1. / 255, 2. / 255, 1. / 127.5}, [3]float32{0, -1, -1}
									}
								}
								name := fmt.Sprintf("%s/%v/%v/%v/%v/%dx%d→%dx%d/pad=%v", f, dt, l, o, r, sz.sw, sz.sh, sz.dw, sz.dh, pad)
								checkOne(t, name, c, pad, rng)
							}
						}
					}
				}
			}
		}
	}
}

// checkOne runs one config into a tensor whose every byte starts as a
// canary (NaN for float32) and compares it with the reference; the
// bytes after DstSize must be untouched.
func checkOne(t *testing.T, name string, c Config, pad bool, rng *rand.Rand) {
	t.Helper()
	c, src := frameFor(t, c, pad, rng)
	p, err := NewPlan(c)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer p.Close()
	want := refValues(c, src)
	var first []byte
	for _, baseline := range []bool{false, true} {
		if baseline {
			p.useBaseline()
		}
		kname := name + "/" + p.kernel()
		buf := make([]byte, p.DstSize()+64)
		for i := range buf {
			buf[i] = 0xff
		}
		if err := p.Run(buf[:p.DstSize()], src); err != nil {
			t.Fatalf("%s: %v", kname, err)
		}
		for i, b := range buf[p.DstSize():] {
			if b != 0xff {
				t.Fatalf("%s: byte %d after the tensor written", kname, p.DstSize()+i)
			}
		}
		compare(t, kname, c, buf[:p.DstSize()], want)
		// Every kernel computes the same tensor, float bits included.
		if first == nil {
			first = buf[:p.DstSize()]
		} else if !bytes.Equal(first, buf[:p.DstSize()]) {
			t.Errorf("%s: the kernels' tensors differ", name)
		}
	}
}
