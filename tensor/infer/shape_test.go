package infer_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// FitInput fixes free dimensions through the mapping the conversion
// uses: an [H W C] frame fills an NCHW model as [1 C H W] and an NHWC
// one in order; a mismatch names the declared shape with ? for free.
func TestFitInput(t *testing.T) {
	for _, c := range []struct {
		model []int64
		given []int
		want  string
		tr    infer.Transpose
	}{
		{[]int64{-1, 3, -1, -1}, []int{48, 192, 3}, "[1 3 48 192]", infer.TransposeHWCToCHW},
		{[]int64{-1, -1, -1, 3}, []int{48, 192, 3}, "[1 48 192 3]", infer.TransposeNone},
		{[]int64{-1, -1, -1, -1}, []int{48, 192, 3}, "[1 48 192 3]", infer.TransposeNone},
		{[]int64{1, 3, 64, 64}, []int{64, 64, 3}, "[1 3 64 64]", infer.TransposeHWCToCHW},
		// H = C: both orders fit; the model's fixed channels decide.
		{[]int64{-1, 3, -1, -1}, []int{3, 40, 3}, "[1 3 3 40]", infer.TransposeHWCToCHW},
		{[]int64{-1, -1, -1, 3}, []int{3, 40, 3}, "[1 3 40 3]", infer.TransposeNone},
		// One channel (GRAY8 is [H W]) into [? 1 ? ?].
		{[]int64{-1, 1, -1, -1}, []int{30, 40}, "[1 1 30 40]", infer.TransposeNone},
		// A tensor already CHW, with its batch.
		{[]int64{-1, 3, -1, -1}, []int{1, 3, 20, 10}, "[1 3 20 10]", infer.TransposeNone},
		{[]int64{-1, 10}, []int{10}, "[1 10]", infer.TransposeNone},
	} {
		got, tr, err := infer.FitInput(infer.TensorInfo{Name: "image", ElementType: "float32", ModelShape: c.model}, c.given)
		if err != nil || fmt.Sprint(got) != c.want || tr != c.tr {
			t.Errorf("model %v, frames %v: %v transpose %d (%v), want %s transpose %d", c.model, c.given, got, tr, err, c.want, c.tr)
		}
	}
	_, _, err := infer.FitInput(infer.TensorInfo{Name: "image", ElementType: "float32", ModelShape: []int64{-1, 3, -1, -1}}, []int{48, 192, 4})
	if !errors.Is(err, infer.ErrInput) {
		t.Fatalf("4 channels into [? 3 ? ?]: %v, want ErrInput", err)
	}
	for _, s := range []string{`"image"`, "[? 3 ? ?]", "[48 192 4]"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
}

// An NCHW classifier declaring [? 3 ? ?] fed HWC frames at two sizes: the
// shape FitInput gives makes a session that converts HWC→CHW, and its
// scores equal the Go reference.
func TestInferFreeHeightWidthClassifier(t *testing.T) {
	e := load(t)
	m := infertest.Means{NCHW: true, C: 3, Scale: 1.0 / 256, DynamicBatch: true, DynamicHW: true}
	onnx := m.ONNX()
	info, err := e.InspectBytes(m.String(), onnx)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{48, 192}, {31, 17}} {
		h, w := size[0], size[1]
		shape, tr, err := infer.FitInput(info.Inputs[0], []int{h, w, 3})
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.NewSessionBytes(m.String(), onnx, infer.Options{Shapes: map[string][]int64{"image": shape}})
		if err != nil {
			t.Fatal(err)
		}
		closeLater(t, s)
		frame := tensor.Layout{DType: tensor.U8, Shape: []int{h, w, 3}}
		in := alloc(t, frame)
		out := alloc(t, s.Outputs()[0].Layout())
		in.write(t, func(b []byte) {
			for i := range b[:h*w*3] {
				b[i] = byte((i*31 + 7) % 253)
			}
		})
		if err := s.BindInput(0, infer.Input{Pin: &in.p, Layout: frame, Transpose: tr}); err != nil {
			t.Fatal(err)
		}
		if err := s.BindOutput(0, &out.p); err != nil {
			t.Fatal(err)
		}
		if err := s.Run(0, 0); err != nil {
			t.Fatal(err)
		}
		b := in.p.Bytes()
		mm := m
		mm.H, mm.W = h, w
		want := mm.Reference(func(y, x, c int) float64 { return float64(b[(y*w+x)*3+c]) })[0]
		checkClose(t, fmt.Sprintf("%dx%d", w, h), out.floats(t, 3), want, 1e-6)
	}
}

// A map model [? 3 ? ?] → [? 1 ? ?] and [? 1 ? ?] at half size: the
// outputs' sizes come from ONNX Runtime for each input size, and the
// outputs equal the Go reference exactly (the arithmetic is exact in
// float32 for these values).
func TestInferOutputsFollowTheInput(t *testing.T) {
	e := load(t)
	m := infertest.MapModel{Scale: 1.0 / 4, Pooled: true}
	onnx := m.ONNX()
	for _, size := range [][2]int{{320, 320}, {480, 640}, {7, 9}} {
		h, w := size[0], size[1]
		s, err := e.NewSessionBytes(m.String(), onnx, infer.Options{Shapes: map[string][]int64{"image": {1, 3, int64(h), int64(w)}}})
		if err != nil {
			t.Fatal(err)
		}
		closeLater(t, s)
		outs := s.Outputs()
		for i, want := range m.OutputShapes(h, w) {
			if !slices.Equal(outs[i].Shape, want) {
				t.Fatalf("%dx%d: output %q shape %v, want %v", w, h, outs[i].Name, outs[i].Shape, want)
			}
		}
		in := alloc(t, s.Input().Layout())
		om := []*mem{alloc(t, outs[0].Layout()), alloc(t, outs[1].Layout())}
		in.write(t, func(b []byte) {
			v := f32s(b)
			for i := range v[:3*h*w] {
				v[i] = float32((i*13 + 5) % 97)
			}
		})
		if err := s.BindInput(0, infer.Input{Pin: &in.p, Layout: s.Input().Layout()}); err != nil {
			t.Fatal(err)
		}
		if err := s.BindOutput(0, &om[0].p, &om[1].p); err != nil {
			t.Fatal(err)
		}
		if err := s.Run(0, 0); err != nil {
			t.Fatal(err)
		}
		v := f32s(in.p.Bytes())
		want := m.Reference(h, w, func(y, x, c int) float64 { return float64(v[(c*h+y)*w+x]) })
		for i := range want {
			checkClose(t, fmt.Sprintf("%dx%d %s", w, h, outs[i].Name), om[i].floats(t, len(want[i])), want[i], 1e-6)
		}
	}
}

// Sessions reshaped from one (the model loaded once) each run at their
// own input size — batch and width free — interleaved in any order, with
// outputs equal to the Go reference; closing the first leaves the others
// running; the ONNX Runtime session goes with the last Close.
func TestReshapedSessionsShareTheModel(t *testing.T) {
	e := load(t)
	m := infertest.MapModel{Scale: 1.0 / 4}
	base, err := e.NewSessionBytes(m.String(), m.ONNX(), infer.Options{Shapes: map[string][]int64{"image": {1, 3, 8, 8}}})
	if err != nil {
		t.Fatal(err)
	}
	type shaped struct {
		s       *infer.Session
		n, h, w int
		in, out *mem
	}
	var all []*shaped
	for _, d := range [][3]int{{1, 8, 8}, {4, 8, 24}, {2, 8, 40}} {
		s := base
		if d != [3]int{1, 8, 8} {
			if s, err = base.Reshaped(map[string][]int64{"image": {int64(d[0]), 3, int64(d[1]), int64(d[2])}}); err != nil {
				t.Fatal(err)
			}
		}
		want := []int64{int64(d[0]), 1, int64(d[1]), int64(d[2])}
		if got := s.Outputs()[0].Shape; !slices.Equal(got, want) {
			t.Fatalf("%v: output shape %v, want %v (probed per shape)", d, got, want)
		}
		r := &shaped{s: s, n: d[0], h: d[1], w: d[2], in: alloc(t, s.Input().Layout()), out: alloc(t, s.Outputs()[0].Layout())}
		if err := s.BindInput(0, infer.Input{Pin: &r.in.p, Layout: s.Input().Layout()}); err != nil {
			t.Fatal(err)
		}
		if err := s.BindOutput(0, &r.out.p); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	run := func(r *shaped, seed int) {
		t.Helper()
		r.in.write(t, func(b []byte) {
			v := f32s(b)
			for i := range v[:r.n*3*r.h*r.w] {
				v[i] = float32((i*7 + seed) % 31)
			}
		})
		if err := r.s.Run(0, 0); err != nil {
			t.Fatal(err)
		}
		v := f32s(r.in.p.Bytes())
		got := r.out.floats(t, r.n*r.h*r.w)
		for b := range r.n {
			want := m.Reference(r.h, r.w, func(y, x, c int) float64 { return float64(v[((b*3+c)*r.h+y)*r.w+x]) })
			checkClose(t, fmt.Sprintf("batch %d of %dx%dx%d", b, r.n, r.h, r.w), got[b*r.h*r.w:(b+1)*r.h*r.w], want[0], 1e-6)
		}
	}
	for i, r := range []int{2, 0, 1, 2, 1, 0} {
		run(all[r], i)
	}
	if err := base.Close(); err != nil {
		t.Fatal(err)
	}
	run(all[1], 9) // the model stays loaded for the others
	for _, r := range all[1:] {
		if err := r.s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := base.Reshaped(map[string][]int64{"image": {1, 3, 8, 8}}); !errors.Is(err, infer.ErrClosed) {
		t.Fatalf("Reshaped after Close: %v, want ErrClosed", err)
	}
}
