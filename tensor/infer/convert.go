package infer

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// kind is a conversion's element operation.
type kind uint8

const (
	kindCopy   kind = iota // same element type, no scale: bytes copied
	kindU8F32              // uint8 → float32, × scale
	kindF32F32             // float32 → float32, × scale
)

// plan is one input slot's conversion into the session's conversion
// tensor: rows of the source (stride apart) into a packed tensor of the
// model's shape, optionally transposed HWC→CHW, element by element.
type plan struct {
	desc      string
	kind      kind
	elem      int // source element size in bytes
	scale     float32
	rows      int // source rows
	rowElems  int // elements in a source row
	stride    int // bytes between source row starts
	transpose bool
	h, w, c   int // the source's H, W, C when transposing
	dstBytes  int
}

// squeeze drops leading 1s (a batch of one), keeping at least one
// dimension.
func squeeze[T int | int64](shape []T) []int {
	out := make([]int, 0, len(shape))
	lead := true
	for i, d := range shape {
		if lead && d == 1 && i < len(shape)-1 {
			continue
		}
		lead = false
		out = append(out, int(d))
	}
	return out
}

// planInput checks in against the model's input m and returns the
// conversion each run needs, or nil when ONNX Runtime can read the pinned
// bytes in place: same element type, same shape (leading 1s aside),
// packed rows, aligned to the element size, no scale.
func planInput(m TensorInfo, in Input) (*plan, error) {
	if in.Pin == nil || !in.Pin.Valid() {
		return nil, fmt.Errorf("%w: input %q: no pin", ErrInput, m.Name)
	}
	return planLayout(m, in, in.Pin.Len(), in.Pin.Alignment())
}

// planLayout is planInput for memory of pinLen bytes aligned to align
// (in.Pin is not read).
func planLayout(m TensorInfo, in Input, pinLen int, align uintptr) (*plan, error) {
	name := m.Name
	l := in.Layout
	g, err := l.Geometry()
	if err != nil {
		return nil, fmt.Errorf("%w: input %q: layout: %v", ErrInput, name, err)
	}
	if l.Offset != 0 {
		return nil, fmt.Errorf("%w: input %q: layout offset %d: the pin must start at the first element (as tensor.PinHost's do)",
			ErrInput, name, l.Offset)
	}
	if pinLen < g.Extent {
		return nil, fmt.Errorf("%w: input %q: the layout %v %v (row stride %d) needs %d bytes, the pin holds %d",
			ErrInput, name, l.DType, l.Shape, g.Stride, g.Extent, pinLen)
	}
	if in.Scale < 0 || math.IsNaN(float64(in.Scale)) || math.IsInf(float64(in.Scale), 0) {
		return nil, fmt.Errorf("%w: input %q: scale %v", ErrInput, name, in.Scale)
	}
	scale := in.Scale
	if scale == 0 {
		scale = 1
	}
	given := fmt.Sprintf("%v %v", l.DType, l.Shape)
	takes := fmt.Sprintf("%v %v", m.DType, m.Shape)
	p := &plan{scale: scale, elem: l.DType.Size(), dstBytes: m.Bytes()}
	var why []string
	switch {
	case l.DType == m.DType && scale == 1:
		p.kind = kindCopy
	case l.DType == tensor.U8 && m.DType == tensor.F32:
		p.kind = kindU8F32
		why = append(why, "uint8→float32")
	case l.DType == tensor.F32 && m.DType == tensor.F32:
		p.kind = kindF32F32
	case l.DType == m.DType:
		return nil, fmt.Errorf("%w: input %q takes %s, given %s with scale %v: scaling converts to float32 only",
			ErrInput, name, takes, given, in.Scale)
	default:
		return nil, fmt.Errorf("%w: input %q: element type: the model takes %s, given %s (the engine converts uint8 to float32, nothing else)",
			ErrInput, name, takes, given)
	}
	if scale != 1 {
		why = append(why, fmt.Sprintf("×%g", scale))
	}
	ss, ms := squeeze(l.Shape), squeeze(m.Shape)
	same := slices.Equal(ss, ms)
	hwc := len(ss) == 3 && len(ms) == 3 && ms[0] == ss[2] && ms[1] == ss[0] && ms[2] == ss[1]
	var ok bool
	switch in.Transpose {
	case TransposeAuto:
		ok, p.transpose = same || hwc, !same && hwc
	case TransposeNone:
		ok = same
	case TransposeHWCToCHW:
		ok, p.transpose = hwc, true
	default:
		return nil, fmt.Errorf("%w: input %q: unknown Transpose %d", ErrInput, name, in.Transpose)
	}
	if !ok {
		detail := "shape"
		switch {
		case len(ss) != len(ms):
			detail = fmt.Sprintf("rank %d (leading 1s aside), the model's is %d", len(ss), len(ms))
		case in.Transpose == TransposeHWCToCHW:
			detail = "not [H W C] into [C H W]"
		default:
			detail = "shape differs, in order and as HWC→CHW"
		}
		return nil, fmt.Errorf("%w: input %q: the model takes %s, given %s: %s", ErrInput, name, takes, given, detail)
	}
	p.rows, p.rowElems, p.stride = g.Rows, g.RowBytes/p.elem, g.Stride
	if p.transpose {
		p.h, p.w, p.c = ss[0], ss[1], ss[2]
		if p.rows != p.h || p.rowElems != p.w*p.c {
			return nil, fmt.Errorf("%w: input %q: given %s has rows of %d elements, not one row per H of [H W C]",
				ErrInput, name, given, p.rowElems)
		}
		why = append(why, "HWC→CHW")
	}
	if !g.Packed() {
		why = append(why, fmt.Sprintf("rows %d bytes apart packed to %d", g.Stride, g.RowBytes))
	}
	if a := align; a < uintptr(m.DType.Size()) {
		why = append(why, fmt.Sprintf("pin aligned to %d bytes, %v needs %d", a, m.DType, m.DType.Size()))
	}
	if len(why) == 0 {
		return nil, nil // ONNX Runtime reads the pin in place
	}
	p.desc = fmt.Sprintf("%s → %s: %s", given, takes, strings.Join(why, ", "))
	return p, nil
}

// run converts src (the slot's pinned bytes) into dst (the conversion
// tensor) and returns the bytes written.
func (p *plan) run(dst, src []byte) int {
	dst = dst[:p.dstBytes]
	switch p.kind {
	case kindCopy:
		if p.transpose {
			p.transposeCopy(dst, src)
		} else {
			rb := p.rowElems * p.elem
			for r := range p.rows {
				copy(dst[r*rb:(r+1)*rb], src[r*p.stride:r*p.stride+rb])
			}
		}
	case kindU8F32:
		d := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)/4)
		if p.transpose {
			p.transposeU8F32(d, src)
		} else {
			for r := range p.rows {
				row := src[r*p.stride : r*p.stride+p.rowElems]
				o := d[r*p.rowElems : (r+1)*p.rowElems]
				o = o[:len(row)]
				for i, v := range row {
					o[i] = float32(v) * p.scale
				}
			}
		}
	case kindF32F32:
		d := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)/4)
		plane := p.h * p.w
		for r := range p.rows {
			row := src[r*p.stride : r*p.stride+p.rowElems*4]
			for i := range p.rowElems {
				v := math.Float32frombits(binary.NativeEndian.Uint32(row[i*4:])) * p.scale
				if p.transpose {
					x, ch := i/p.c, i%p.c
					d[ch*plane+r*p.w+x] = v
				} else {
					d[r*p.rowElems+i] = v
				}
			}
		}
	}
	return p.dstBytes
}

func (p *plan) transposeU8F32(d []float32, src []byte) {
	plane := p.h * p.w
	if p.c == 3 {
		d0, d1, d2 := d[:plane], d[plane:2*plane], d[2*plane:3*plane]
		for y := range p.h {
			row := src[y*p.stride : y*p.stride+p.w*3]
			o0, o1, o2 := d0[y*p.w:(y+1)*p.w], d1[y*p.w:(y+1)*p.w], d2[y*p.w:(y+1)*p.w]
			for x := range o0 {
				px := row[x*3 : x*3+3]
				o0[x] = float32(px[0]) * p.scale
				o1[x] = float32(px[1]) * p.scale
				o2[x] = float32(px[2]) * p.scale
			}
		}
		return
	}
	for y := range p.h {
		row := src[y*p.stride : y*p.stride+p.w*p.c]
		for x := range p.w {
			for ch := range p.c {
				d[ch*plane+y*p.w+x] = float32(row[x*p.c+ch]) * p.scale
			}
		}
	}
}

func (p *plan) transposeCopy(dst, src []byte) {
	e, plane := p.elem, p.h*p.w
	for y := range p.h {
		row := src[y*p.stride : y*p.stride+p.w*p.c*e]
		for x := range p.w {
			for ch := range p.c {
				o := (ch*plane + y*p.w + x) * e
				copy(dst[o:o+e], row[(x*p.c+ch)*e:])
			}
		}
	}
}

func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
