package infer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// heapPin pins n bytes of Go memory for a test (the conversion kernels
// only read it; ONNX Runtime is not involved).
func heapPin(t *testing.T, n int) *pin.HostPin {
	t.Helper()
	buf := make([]uint64, (n+7)/8) // 8-byte aligned
	keep := pin.NewKeepalive("test buffer", func() {})
	p := new(pin.HostPin)
	var err error
	if *p, err = pin.New(unsafe.Pointer(&buf[0]), n, keep); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Release()
		keep.Release()
		_ = buf[0] // the buffer lives as long as the pin
	})
	return p
}

// Every conversion the planner accepts, against a direct element-by-
// element computation from the source's layout: element types (same,
// uint8→float32, float32→float32, with scales), HWC→CHW with C = 3 (the
// fast path) and C ≠ 3, 2-byte elements, padded rows, leading 1s. The
// padding holds bytes the result would show if they were read.
func TestInferConvertPlans(t *testing.T) {
	type tc struct {
		model  TensorInfo
		layout tensor.Layout
		scale  float32
		tr     Transpose
		direct bool
	}
	f32 := func(shape ...int64) TensorInfo { return TensorInfo{Name: "x", DType: tensor.F32, Shape: shape} }
	typed := func(d tensor.DType, shape ...int64) TensorInfo { return TensorInfo{Name: "x", DType: d, Shape: shape} }
	cases := []tc{
		{model: typed(tensor.U8, 1, 5, 7, 3), layout: tensor.Layout{DType: tensor.U8, Shape: []int{5, 7, 3}}, direct: true},
		{model: typed(tensor.U8, 1, 5, 7, 3), layout: tensor.Layout{DType: tensor.U8, Shape: []int{5, 7, 3}, RowStride: 24}},
		{model: typed(tensor.U8, 1, 3, 5, 7), layout: tensor.Layout{DType: tensor.U8, Shape: []int{5, 7, 3}, RowStride: 23}},
		{model: typed(tensor.I16, 4, 5, 7), layout: tensor.Layout{DType: tensor.I16, Shape: []int{1, 5, 7, 4}, RowStride: 60}},
		{model: f32(1, 3, 5, 7), layout: tensor.Layout{DType: tensor.U8, Shape: []int{1, 5, 7, 3}}, scale: 0.5},
		{model: f32(1, 4, 5, 7), layout: tensor.Layout{DType: tensor.U8, Shape: []int{5, 7, 4}, RowStride: 29}, scale: 3},
		{model: f32(5, 7, 4), layout: tensor.Layout{DType: tensor.U8, Shape: []int{5, 7, 4}}},
		{model: f32(1, 5, 7, 2), layout: tensor.Layout{DType: tensor.F32, Shape: []int{5, 7, 2}, RowStride: 64}, scale: 0.25},
		{model: f32(2, 5, 7), layout: tensor.Layout{DType: tensor.F32, Shape: []int{5, 7, 2}}, scale: 2},
		{model: f32(2, 5, 7), layout: tensor.Layout{DType: tensor.F32, Shape: []int{5, 7, 2}}, tr: TransposeHWCToCHW},
		{model: f32(35), layout: tensor.Layout{DType: tensor.F32, Shape: []int{35}}, direct: true},
	}
	for n, c := range cases {
		t.Run(fmt.Sprintf("%d-%v%v-into-%v%v", n, c.layout.DType, c.layout.Shape, c.model.DType, c.model.Shape), func(t *testing.T) {
			g, err := c.layout.Geometry()
			if err != nil {
				t.Fatal(err)
			}
			p := heapPin(t, g.Extent)
			src := p.Bytes()
			for i := range src {
				src[i] = byte(i*37 + 11)
			}
			// at reads the source element at (row index, element in row).
			at := func(r, i int) float64 {
				b := src[r*g.Stride+i*c.layout.DType.Size():]
				switch c.layout.DType {
				case tensor.U8:
					return float64(b[0])
				case tensor.I16:
					return float64(int16(binary.NativeEndian.Uint16(b)))
				default:
					return float64(math.Float32frombits(binary.NativeEndian.Uint32(b)))
				}
			}
			// Make float sources finite.
			if c.layout.DType == tensor.F32 {
				for r := range g.Rows {
					for i := range g.RowBytes / 4 {
						binary.NativeEndian.PutUint32(src[r*g.Stride+4*i:], math.Float32bits(float32(r*100+i)))
					}
				}
			}
			pl, err := planInput(c.model, Input{Pin: p, Layout: c.layout, Scale: c.scale, Transpose: c.tr})
			if err != nil {
				t.Fatal(err)
			}
			if (pl == nil) != c.direct {
				t.Fatalf("plan %+v, want direct=%v", pl, c.direct)
			}
			if pl == nil {
				return
			}
			dst := make([]byte, c.model.Bytes()+64)
			for i := range dst {
				dst[i] = 0xA5
			}
			if got := pl.run(dst, src); got != c.model.Bytes() {
				t.Fatalf("wrote %d bytes, want %d", got, c.model.Bytes())
			}
			for i := c.model.Bytes(); i < len(dst); i++ {
				if dst[i] != 0xA5 {
					t.Fatalf("wrote past the tensor at %d", i)
				}
			}
			scale := float64(c.scale)
			if scale == 0 {
				scale = 1
			}
			rowElems := g.RowBytes / c.layout.DType.Size()
			for r := range g.Rows {
				for i := range rowElems {
					want := at(r, i)
					if c.model.DType == tensor.F32 {
						want *= scale
					}
					o := r*rowElems + i // packed, same order
					if pl.transpose {
						x, ch := i/pl.c, i%pl.c
						o = ch*pl.h*pl.w + r*pl.w + x
					}
					var got float64
					switch c.model.DType {
					case tensor.U8:
						got = float64(dst[o])
					case tensor.I16:
						got = float64(int16(binary.NativeEndian.Uint16(dst[2*o:])))
					default:
						got = float64(math.Float32frombits(binary.NativeEndian.Uint32(dst[4*o:])))
					}
					if math.Abs(got-want) > 1e-6*(1+math.Abs(want)) {
						t.Fatalf("row %d element %d → %d: %v, want %v (plan %q)", r, i, o, got, want, pl.desc)
					}
				}
			}
			t.Log(pl.desc)
		})
	}
}

// What cannot be converted is ErrInput, before anything is bound.
func TestInferConvertRefuses(t *testing.T) {
	p := heapPin(t, 4096)
	for _, c := range []struct {
		model  TensorInfo
		layout tensor.Layout
		scale  float32
		tr     Transpose
	}{
		{TensorInfo{Name: "x", DType: tensor.U8, Shape: []int64{4, 4}}, tensor.Layout{DType: tensor.U8, Shape: []int{4, 4}}, 2, 0},
		{TensorInfo{Name: "x", DType: tensor.F16, Shape: []int64{4, 4}}, tensor.Layout{DType: tensor.U8, Shape: []int{4, 4}}, 0, 0},
		{TensorInfo{Name: "x", DType: tensor.F32, Shape: []int64{3, 4, 5}}, tensor.Layout{DType: tensor.F32, Shape: []int{4, 5, 3}}, 0, TransposeNone},
		{TensorInfo{Name: "x", DType: tensor.F32, Shape: []int64{4, 5, 3}}, tensor.Layout{DType: tensor.F32, Shape: []int{4, 5, 3}}, 0, TransposeHWCToCHW},
		{TensorInfo{Name: "x", DType: tensor.F32, Shape: []int64{4, 5, 3}}, tensor.Layout{DType: tensor.F32, Shape: []int{4, 5, 3}}, float32(math.NaN()), 0},
		{TensorInfo{Name: "x", DType: tensor.F32, Shape: []int64{60}}, tensor.Layout{DType: tensor.F32, Shape: []int{4, 5, 3}}, 0, 0},
	} {
		_, err := planInput(c.model, Input{Pin: p, Layout: c.layout, Scale: c.scale, Transpose: c.tr})
		if !errors.Is(err, ErrInput) {
			t.Errorf("%v %v into %v %v (scale %v, transpose %d): %v, want ErrInput", c.layout.DType, c.layout.Shape,
				c.model.DType, c.model.Shape, c.scale, c.tr, err)
			continue
		}
		t.Log(err)
	}
}
