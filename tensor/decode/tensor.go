package decode

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Tensor is one model output as a decoder reads it: its name (may be
// empty), element type, shape (outermost first, as ONNX and package
// tensor write it; NNStreamer's caps list dims the other way round) and
// bytes, packed, in the host's byte order.
type Tensor struct {
	Name  string
	DType tensor.DType
	Shape []int
	// Data holds at least elements × DType.Size() bytes (Decode checks;
	// Check ignores it). It is only read, and not kept after the call.
	Data []byte
	// Scale and ZeroPoint dequantize integer types (uint8, int8, …):
	// value = (q − ZeroPoint) × Scale, as TFLite's and ONNX's linear
	// quantization. Scale 0 means 1: the integer is the value.
	Scale     float64
	ZeroPoint int64
}

// String names the tensor for error texts: "name" float32 [1 84 8400].
func (t Tensor) String() string {
	return fmt.Sprintf("%q %v %v", t.Name, t.DType, t.Shape)
}

// describe names every tensor of ts, for error texts.
func describe(ts []Tensor) string {
	if len(ts) == 0 {
		return "no tensors"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// elements returns the number of elements of shape: the product of its
// dims, all positive, without overflow (ok false otherwise). A rank-0
// shape is one element.
func elements(shape []int) (int, bool) {
	n := 1
	for _, d := range shape {
		if d <= 0 || n > math.MaxInt32/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// squeeze returns shape without its leading dims of 1, keeping at least
// keep dims: [1 1 84 8400] → [84 8400] for keep 2. The batch dimension
// of 1 that every model output has is how this package reads "[1 N]" and
// "[N]" alike.
func squeeze(shape []int, keep int) []int {
	for len(shape) > keep && shape[0] == 1 {
		shape = shape[1:]
	}
	return shape
}

// readable reports whether the decoders read dtype d.
func readable(d tensor.DType) bool {
	switch d {
	case tensor.F32, tensor.F64, tensor.F16, tensor.U8, tensor.I8, tensor.U16, tensor.I16, tensor.U32, tensor.I32:
		return true
	}
	return false
}

// checkData checks that t's bytes hold its n elements of a readable type.
func checkData(t *Tensor, n int) error {
	if !readable(t.DType) {
		return fmt.Errorf("decode: tensor %v: element type %v is not one the decoders read (float32, float16, float64, "+
			"uint8, int8, uint16, int16, uint32, int32): %w", t, t.DType, ErrData)
	}
	if math.IsNaN(t.Scale) || math.IsInf(t.Scale, 0) {
		return fmt.Errorf("decode: tensor %v: quantization scale %v is not a number: %w", t, t.Scale, ErrData)
	}
	if want := n * t.DType.Size(); len(t.Data) < want {
		return fmt.Errorf("decode: tensor %v holds %d bytes, want %d: %w", t, len(t.Data), want, ErrData)
	}
	return nil
}

// floats returns the first n values of t as float32: a view of t.Data
// when it is float32 and 4-byte aligned (the usual case: a mapped
// tensor), else a conversion into *scratch, grown once and reused, so a
// decoder allocates nothing per frame. checkData(t, n) has passed.
func floats(t *Tensor, n int, scratch *[]float32) []float32 {
	if n == 0 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(t.Data))
	if t.DType == tensor.F32 && uintptr(p)%4 == 0 {
		return unsafe.Slice((*float32)(p), n)
	}
	out := grow(scratch, n)
	b := t.Data
	scale, zero := t.Scale, float64(t.ZeroPoint)
	if scale == 0 {
		scale = 1
	}
	ne := binary.NativeEndian
	switch t.DType {
	case tensor.F32:
		for i := range out {
			out[i] = math.Float32frombits(ne.Uint32(b[4*i:]))
		}
	case tensor.F64:
		for i := range out {
			out[i] = float32(math.Float64frombits(ne.Uint64(b[8*i:])))
		}
	case tensor.F16:
		for i := range out {
			out[i] = halfToFloat(ne.Uint16(b[2*i:]))
		}
	case tensor.U8:
		for i := range out {
			out[i] = float32((float64(b[i]) - zero) * scale)
		}
	case tensor.I8:
		for i := range out {
			out[i] = float32((float64(int8(b[i])) - zero) * scale)
		}
	case tensor.U16:
		for i := range out {
			out[i] = float32((float64(ne.Uint16(b[2*i:])) - zero) * scale)
		}
	case tensor.I16:
		for i := range out {
			out[i] = float32((float64(int16(ne.Uint16(b[2*i:]))) - zero) * scale)
		}
	case tensor.U32:
		for i := range out {
			out[i] = float32((float64(ne.Uint32(b[4*i:])) - zero) * scale)
		}
	case tensor.I32:
		for i := range out {
			out[i] = float32((float64(int32(ne.Uint32(b[4*i:]))) - zero) * scale)
		}
	}
	return out
}

// grow returns (*s)[:n], reallocating *s only when it is too short.
func grow[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = slices.Grow((*s)[:0], n)
	}
	*s = (*s)[:n]
	return *s
}

// halfToFloat converts an IEEE 754 binary16 value to float32.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	case frac == 0: // zero
		return math.Float32frombits(sign)
	}
	// Subnormal: frac × 2^-24, exact in float32.
	v := float32(frac) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}
