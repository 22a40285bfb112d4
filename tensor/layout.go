package tensor

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Layout says where a tensor's elements lie in its storage.
//
// Shape is outermost first (NHWC, not NNStreamer's innermost-first order).
// The tensor is stored as rows: a row is the innermost dimensions — the last
// one for rank 1 and 2 ([H, W]: a row is W elements), the last two for rank 3
// and more ([N, H, W, C]: a row is W×C elements) — and every other
// dimension counts rows. Rows are RowStride bytes apart (0 means packed,
// i.e. exactly one row of elements); padding after a row is never data.
type Layout struct {
	DType     DType
	Shape     []int
	RowStride int // bytes between the starts of consecutive rows; 0 = packed
	Offset    int // bytes from the start of the storage to the first element
}

// Geometry is what a valid Layout works out to, in bytes.
type Geometry struct {
	Rows     int // number of rows
	RowBytes int // bytes of elements in one row
	Stride   int // bytes between row starts (≥ RowBytes)
	Size     int // logical size: Rows × RowBytes, the data alone
	Extent   int // bytes from the first element to the end of the last: (Rows-1)×Stride + RowBytes
}

// rowAxis returns the first dimension that lies inside a row.
func rowAxis(rank int) int {
	switch {
	case rank <= 1:
		return 0
	case rank == 2:
		return 1
	default:
		return rank - 2
	}
}

func mulInt(a, b int) (int, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	return int(lo), true
}

func addInt(a, b int) (int, bool) {
	if a < 0 || b < 0 || a > math.MaxInt-b {
		return 0, false
	}
	return a + b, true
}

func product(dims []int) (int, bool) {
	p := 1
	for _, d := range dims {
		var ok bool
		if p, ok = mulInt(p, d); !ok {
			return 0, false
		}
	}
	return p, true
}

// Geometry validates the layout and computes its sizes. Every multiplication
// and addition is checked: a layout whose sizes overflow is ErrOverflow.
func (l Layout) Geometry() (Geometry, error) {
	if !l.DType.Valid() {
		return Geometry{}, fmt.Errorf("layout dtype %v: %w", l.DType, ErrInvalidLayout)
	}
	if len(l.Shape) == 0 {
		return Geometry{}, fmt.Errorf("layout with an empty shape: %w", ErrInvalidLayout)
	}
	for i, d := range l.Shape {
		if d <= 0 {
			return Geometry{}, fmt.Errorf("layout shape %v: dimension %d is %d, want > 0: %w", l.Shape, i, d, ErrInvalidLayout)
		}
	}
	if l.RowStride < 0 || l.Offset < 0 {
		return Geometry{}, fmt.Errorf("layout stride %d offset %d: negative: %w", l.RowStride, l.Offset, ErrInvalidLayout)
	}
	ax := rowAxis(len(l.Shape))
	rows, ok1 := product(l.Shape[:ax])
	elems, ok2 := product(l.Shape[ax:])
	rowBytes, ok3 := mulInt(elems, l.DType.Size())
	if !ok1 || !ok2 || !ok3 {
		return Geometry{}, fmt.Errorf("layout %v %v: %w", l.DType, l.Shape, ErrOverflow)
	}
	stride := l.RowStride
	if stride == 0 {
		stride = rowBytes
	}
	if stride < rowBytes {
		return Geometry{}, fmt.Errorf("layout %v %v: row stride %d is shorter than a row of %d bytes: %w",
			l.DType, l.Shape, stride, rowBytes, ErrInvalidLayout)
	}
	size, ok1 := mulInt(rows, rowBytes)
	padded, ok2 := mulInt(rows-1, stride)
	extent, ok3 := addInt(padded, rowBytes)
	_, ok4 := addInt(l.Offset, extent)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return Geometry{}, fmt.Errorf("layout %v %v stride %d offset %d: %w", l.DType, l.Shape, stride, l.Offset, ErrOverflow)
	}
	return Geometry{Rows: rows, RowBytes: rowBytes, Stride: stride, Size: size, Extent: extent}, nil
}

// check validates the layout against a storage of capacity bytes.
func (l Layout) check(capacity int) (Geometry, error) {
	g, err := l.Geometry()
	if err != nil {
		return g, err
	}
	if l.Offset+g.Extent > capacity {
		return g, fmt.Errorf("layout %v %v stride %d at offset %d needs %d bytes, storage has %d: %w",
			l.DType, l.Shape, g.Stride, l.Offset, l.Offset+g.Extent, capacity, ErrOutOfBounds)
	}
	return g, nil
}

// Packed reports whether rows follow each other with no padding.
func (g Geometry) Packed() bool { return g.Stride == g.RowBytes || g.Rows == 1 }

// clone returns a copy whose Shape does not alias l's.
func (l Layout) clone() Layout {
	l.Shape = slices.Clone(l.Shape)
	return l
}

// Region selects a box of a tensor: for each dimension, the first index and
// how many to take. A view keeps the rank.
type Region struct {
	Start []int
	Count []int
}

// view computes the layout of region within l (already validated with g).
//
// A view must still be "rows of packed elements": of the dimensions that
// count rows only the outermost may be narrowed (the others must be whole),
// and likewise for the dimensions inside a row. Anything else would need a
// stride per dimension and is ErrInvalidLayout.
func (l Layout) view(g Geometry, r Region) (Layout, error) {
	rank := len(l.Shape)
	if len(r.Start) != rank || len(r.Count) != rank {
		return Layout{}, fmt.Errorf("view of a rank-%d tensor with a region of rank %d/%d: %w",
			rank, len(r.Start), len(r.Count), ErrInvalidLayout)
	}
	for i := range rank {
		s, c := r.Start[i], r.Count[i]
		if s < 0 || c <= 0 || s >= l.Shape[i] || c > l.Shape[i]-s {
			return Layout{}, fmt.Errorf("view dimension %d [%d, +%d) of a tensor with shape %v: %w",
				i, s, c, l.Shape, ErrOutOfBounds)
		}
	}
	ax := rowAxis(rank)
	for _, span := range [][2]int{{0, ax}, {ax, rank}} {
		for i := span[0] + 1; i < span[1]; i++ {
			if r.Count[i] != l.Shape[i] {
				return Layout{}, fmt.Errorf("view %v of shape %v narrows dimension %d, an inner dimension of a %s: %w",
					r.Count, l.Shape, i, map[bool]string{true: "row", false: "row index"}[span[0] == ax], ErrInvalidLayout)
			}
		}
	}
	// Byte offset: the row index times the stride plus the element index
	// within the row times the element size.
	row, col := 0, 0
	for i := range ax {
		row = row*l.Shape[i] + r.Start[i]
	}
	for i := ax; i < rank; i++ {
		col = col*l.Shape[i] + r.Start[i]
	}
	// Bounded by the parent's extent, which fits in an int: no overflow.
	off := l.Offset + row*g.Stride + col*l.DType.Size()
	v := Layout{DType: l.DType, Shape: slices.Clone(r.Count), RowStride: g.Stride, Offset: off}
	if vg, err := v.Geometry(); err == nil && vg.Rows == 1 {
		v.RowStride = 0 // one row: there is no stride to keep
	}
	return v, nil
}
