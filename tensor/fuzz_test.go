package tensor_test

import (
	"errors"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// FuzzLayout: any layout either fails with one of the layout errors or has a
// geometry that is self-consistent and fits where check says it fits.
func FuzzLayout(f *testing.F) {
	f.Add(uint8(1), 480, 640, 3, 0, 0)
	f.Add(uint8(10), 1, 224, 224, 900, 64)
	f.Add(uint8(11), 1<<40, 1<<40, 8, 0, 0)
	f.Add(uint8(3), 4, 10, 1, 19, 3)
	f.Add(uint8(0), 1, 1, 1, 0, 0)
	f.Add(uint8(7), -1, 5, 5, -8, -1)
	f.Fuzz(func(t *testing.T, dt uint8, d0, d1, d2, stride, offset int) {
		l := tensor.Layout{DType: tensor.DType(dt), Shape: []int{d0, d1, d2}, RowStride: stride, Offset: offset}
		g, err := l.Geometry()
		if err != nil {
			if !errors.Is(err, tensor.ErrInvalidLayout) && !errors.Is(err, tensor.ErrOverflow) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if g.RowBytes != d1*d2*l.DType.Size() || g.Rows != d0 || g.Stride < g.RowBytes {
			t.Fatalf("geometry %+v inconsistent with %+v", g, l)
		}
		if g.Size > g.Extent || g.Extent != (g.Rows-1)*g.Stride+g.RowBytes || offset+g.Extent < offset {
			t.Fatalf("geometry %+v: size/extent wrong", g)
		}
	})
}

// FuzzView: a view of a valid tensor either fails with ErrOutOfBounds or
// ErrInvalidLayout, or lies wholly inside its parent's extent.
func FuzzView(f *testing.F) {
	f.Add(2, 1, 0, 3, 4, 2)
	f.Add(0, 0, 0, 8, 6, 2)
	f.Add(7, 5, 1, 1, 1, 1)
	f.Add(-1, 0, 0, 1, 1, 1)
	f.Add(3, 0, 1, 2, 6, 1)
	fd := memfd(f, 4096)
	parent := tensor.Layout{DType: tensor.U16, Shape: []int{8, 6, 2}, RowStride: 32, Offset: 100}
	tn := mustImport(f, fd, parent)
	pg := tn.Geometry()
	f.Fuzz(func(t *testing.T, s0, s1, s2, c0, c1, c2 int) {
		v, err := tn.View(tensor.Region{Start: []int{s0, s1, s2}, Count: []int{c0, c1, c2}})
		if err != nil {
			if !errors.Is(err, tensor.ErrOutOfBounds) && !errors.Is(err, tensor.ErrInvalidLayout) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		defer v.Close()
		g := v.Geometry()
		if v.Offset() < parent.Offset || v.Offset()+g.Extent > parent.Offset+pg.Extent {
			t.Fatalf("view [%d, +%d) escapes parent [%d, +%d)", v.Offset(), g.Extent, parent.Offset, pg.Extent)
		}
		if g.Size != c0*c1*c2*2 {
			t.Fatalf("view size %d, want %d", g.Size, c0*c1*c2*2)
		}
		if want := parent.Offset + s0*32 + (s1*2+s2)*2; v.Offset() != want {
			t.Fatalf("view offset %d, want %d", v.Offset(), want)
		}
	})
}
