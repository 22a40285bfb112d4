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
								for _, cm := range colorimetries(f) {
									c := Config{SrcFormat: f, SrcWidth: sz.sw, SrcHeight: sz.sh, DstWidth: sz.dw, DstHeight: sz.dh,
										DstType: dt, DstLayout: l, ChannelOrder: o, Resize: r, PadValue: 114,
										Matrix: cm.m, Range: cm.r}
									if dt == tensor.F32 {
										if si%2 == 0 {
											c.Mean, c.Std = [3]float32{0.485, 0.456, 0.406}, [3]float32{0.229, 0.224, 0.225}
										} else {
											c.Scale, c.Offset = [3]float32{1. / 255, 2. / 255, 1. / 127.5}, [3]float32{0, -1, -1}
										}
									}
									name := fmt.Sprintf("%s/%v/%v/%v/%v/%dx%d→%dx%d/pad=%v", f, dt, l, o, r, sz.sw, sz.sh, sz.dw, sz.dh, pad)
									if f == NV12 || f == I420 {
										name += fmt.Sprintf("/%v/%v", cm.m, cm.r)
									}
									checkOne(t, name, c, pad, rng)
								}
							}
						}
					}
				}
			}
		}
	}
}

type colorimetry struct {
	m ColorMatrix
	r ColorRange
}

// colorimetries returns every matrix and range for NV12 and I420, and
// the zero values (which packed formats ignore) for the others.
func colorimetries(f Format) []colorimetry {
	if f != NV12 && f != I420 {
		return []colorimetry{{}}
	}
	var out []colorimetry
	for _, m := range []ColorMatrix{MatrixBT601, MatrixBT709, MatrixBT2020, MatrixSMPTE240M, MatrixFCC} {
		for _, r := range []ColorRange{RangeLimited, RangeFull} {
			out = append(out, colorimetry{m, r})
		}
	}
	return out
}

// One pixel, Y'CbCr (60, 100, 200), in every colorimetry, through the
// pass (a uniform 2×2 I420 and NV12 frame into a uint8 tensor): it must
// be the standard's R, G, B — published values where we have them (full
// range BT.601 is JPEG's, what jpegdec gives; limited BT.709 is HD
// video's), else the reference's real-number inverse — rounded to the
// nearest, within the fixed point's error: 1/2 for the rounding, and
// each 1/4096th weight off by at most 1/8192 times a sample of at most
// 255 (luma) and 128 (each chroma): 0.5 + 511/8192 < 0.563.
func TestOnePixelInEveryColorimetry(t *testing.T) {
	const bound = 0.563
	published := map[colorimetry][3]float64{
		// JFIF: R = Y + 1.402 (Cr-128), G = Y - 0.344136 (Cb-128) -
		// 0.714136 (Cr-128), B = Y + 1.772 (Cb-128).
		{MatrixBT601, RangeFull}: {160.944, 18.218, 10.384},
		// BT.709 limited: 1.164384 (Y-16), R +1.792741 (Cr-128), G
		// -0.213249 (Cb-128) -0.532909 (Cr-128), B +2.112402 (Cb-128).
		{MatrixBT709, RangeLimited}: {180.31, 18.835, -7.914},
	}
	const y, u, v = 60, 100, 200
	for _, f := range []Format{I420, NV12} {
		for _, cm := range colorimetries(f) {
			want, ok := published[cm]
			if !ok {
				inv, off := refYUVToRGB(cm.m, cm.r)
				for i := range 3 {
					want[i] = inv[i][0]*float64(y-off[0]) + inv[i][1]*float64(u-off[1]) + inv[i][2]*float64(v-off[2])
				}
			}
			c := Config{SrcFormat: f, SrcWidth: 2, SrcHeight: 2, DstWidth: 2, DstHeight: 2, DstType: tensor.U8,
				DstLayout: NHWC, ChannelOrder: OrderRGB, Resize: ResizeNone, Matrix: cm.m, Range: cm.r}
			p, err := NewPlan(c)
			if err != nil {
				t.Fatal(err)
			}
			src := make([]byte, p.SrcSize())
			pc := p.Config()
			for row := range 2 {
				src[pc.SrcOffsets[0]+row*pc.SrcStrides[0]] = y
				src[pc.SrcOffsets[0]+row*pc.SrcStrides[0]+1] = y
			}
			if f == NV12 {
				src[pc.SrcOffsets[1]], src[pc.SrcOffsets[1]+1] = u, v
			} else {
				src[pc.SrcOffsets[1]], src[pc.SrcOffsets[2]] = u, v
			}
			dst := make([]byte, p.DstSize())
			if err := p.Run(dst, src); err != nil {
				t.Fatal(err)
			}
			p.Close()
			if cm == (colorimetry{MatrixBT601, RangeFull}) && !bytes.Equal(dst[:3], []byte{161, 18, 10}) {
				t.Errorf("%s full-range BT.601: RGB %v, doc.go says (161, 18, 10)", f, dst[:3])
			}
			for i := range 3 {
				w := math.Min(math.Max(want[i], 0), 255)
				if math.Abs(float64(dst[i])-w) > bound {
					t.Errorf("%s %v %v: Y'CbCr (%d,%d,%d) became RGB %v; the standard says (%.1f, %.1f, %.1f)",
						f, cm.m, cm.r, y, u, v, dst[:3], want[0], want[1], want[2])
					break
				}
			}
		}
	}
}

// The fixed point is the standard's conversion, within its error bound
// (TestOnePixelInEveryColorimetry's), over a grid of samples, before
// clamping: the reference's 1/4096th weights against its real-number
// matrix.
func TestYUVWeightsWithinTheirBound(t *testing.T) {
	for _, cm := range colorimetries(NV12) {
		k, off := refYUVWeights(cm.m, cm.r)
		inv, _ := refYUVToRGB(cm.m, cm.r)
		worst := 0.0
		for y := 0; y < 256; y += 3 {
			for u := 0; u < 256; u += 5 {
				for v := 0; v < 256; v += 5 {
					s := [3]int{y - off[0], u - off[1], v - off[2]}
					for i := range 3 {
						fixed := (k[i][0]*s[0] + k[i][1]*s[1] + k[i][2]*s[2] + 2048) >> 12
						real := inv[i][0]*float64(s[0]) + inv[i][1]*float64(s[1]) + inv[i][2]*float64(s[2])
						worst = math.Max(worst, math.Abs(float64(fixed)-real))
					}
				}
			}
		}
		if worst > 0.563 {
			t.Errorf("%v %v: the fixed point is %.4f off the real conversion", cm.m, cm.r, worst)
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
