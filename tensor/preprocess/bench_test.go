package preprocess

import (
	"math/rand/v2"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// One op is one frame. The memcpy benchmark copies the float tensor the
// letterbox benchmarks write (640×640×3×4 bytes): the memory floor of a
// pass that writes it.

var imagenet = struct{ mean, std [3]float32 }{[3]float32{0.485, 0.456, 0.406}, [3]float32{0.229, 0.224, 0.225}}

// benchPlan runs the pass on the CPU's best kernel and, where that is
// not the baseline, on the baseline's (sub-benchmarks named after them).
func benchPlan(b *testing.B, c Config) {
	b.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	c, src := frameFor(b, c, false, rng)
	for _, baseline := range []bool{false, true} {
		p, err := NewPlan(c)
		if err != nil {
			b.Fatal(err)
		}
		if baseline {
			if p.kernel() == "baseline" {
				p.Close()
				return
			}
			p.useBaseline()
		}
		b.Run(p.kernel(), func(b *testing.B) {
			dst := make([]byte, p.DstSize())
			b.SetBytes(int64(p.DstSize()))
			for b.Loop() {
				if err := p.Run(dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
		p.Close()
	}
}

func modelInput(f Format, w, h int, dt tensor.DType, l Layout, r Resize) Config {
	c := Config{SrcFormat: f, SrcWidth: w, SrcHeight: h, DstWidth: 640, DstHeight: 640,
		DstType: dt, DstLayout: l, ChannelOrder: OrderRGB, Resize: r, PadValue: 114}
	if dt == tensor.F32 {
		c.Mean, c.Std = imagenet.mean, imagenet.std
	}
	return c
}

// 1920×1080 → 640×640 letterbox is a 3:1 downscale whose taps fall on
// whole pixels; the stretch and 1280×720 cases blend four pixels.
func BenchmarkLetterboxRGBxF32NCHW(b *testing.B) {
	benchPlan(b, modelInput(RGBx, 1920, 1080, tensor.F32, NCHW, ResizeLetterbox))
}

func BenchmarkLetterboxNV12F32NCHW(b *testing.B) {
	benchPlan(b, modelInput(NV12, 1920, 1080, tensor.F32, NCHW, ResizeLetterbox))
}

func BenchmarkLetterboxI420F32NCHW(b *testing.B) {
	benchPlan(b, modelInput(I420, 1920, 1080, tensor.F32, NCHW, ResizeLetterbox))
}

// The same pass in full-range BT.709 (the weights are the plan's: any
// matrix and range runs the BT.601 benchmark's code).
func BenchmarkLetterboxNV12BT709FullF32NCHW(b *testing.B) {
	c := modelInput(NV12, 1920, 1080, tensor.F32, NCHW, ResizeLetterbox)
	c.Matrix, c.Range = MatrixBT709, RangeFull
	benchPlan(b, c)
}

func BenchmarkLetterboxRGBxF32NHWC(b *testing.B) {
	benchPlan(b, modelInput(RGBx, 1920, 1080, tensor.F32, NHWC, ResizeLetterbox))
}

func BenchmarkLetterboxRGBxU8NHWC(b *testing.B) {
	benchPlan(b, modelInput(RGBx, 1920, 1080, tensor.U8, NHWC, ResizeLetterbox))
}

func BenchmarkStretchRGBxF32NCHW(b *testing.B) {
	benchPlan(b, modelInput(RGBx, 1920, 1080, tensor.F32, NCHW, ResizeStretch))
}

func BenchmarkLetterbox720pRGBxF32NCHW(b *testing.B) {
	benchPlan(b, modelInput(RGBx, 1280, 720, tensor.F32, NCHW, ResizeLetterbox))
}

func BenchmarkLetterbox720pNV12F32NCHW(b *testing.B) {
	benchPlan(b, modelInput(NV12, 1280, 720, tensor.F32, NCHW, ResizeLetterbox))
}

// The pass with no resize: today's tensorinfer conversion (uint8 HWC →
// float32 CHW × scale) of a 640×640 RGB frame.
func BenchmarkNoneRGBF32NCHW(b *testing.B) {
	c := modelInput(RGB, 640, 640, tensor.F32, NCHW, ResizeNone)
	c.Mean, c.Std = [3]float32{}, [3]float32{}
	c.Scale = [3]float32{1. / 255, 1. / 255, 1. / 255}
	benchPlan(b, c)
}

func BenchmarkMemcpyFloor(b *testing.B) {
	src := make([]byte, 640*640*3*4)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}
