package infer_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// A model whose output is a scalar (rank 0) binds and runs like any
// other: its shape is [] (not unknown), it takes one element's bytes, and
// each run writes the frame's mean where the output slot's pin is — next
// to an ordinary output of the same run. RunPerFrame gives the same.
func TestInferScalarOutput(t *testing.T) {
	e := load(t)
	m := infertest.ScalarMean{H: 6, W: 5, C: 3, Scores: true}
	s, err := e.NewSessionBytes(m.String(), m.ONNX(), infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, s)
	outs := s.Outputs()
	if len(outs) != 2 || outs[0].Name != "mean" || outs[0].Shape == nil || len(outs[0].Shape) != 0 ||
		outs[0].Bytes() != 4 || outs[1].Name != "scores" || !slices.Equal(outs[1].Shape, []int64{1, 3}) {
		t.Fatalf("outputs %v: want \"mean\" [] (4 bytes), \"scores\" [1 3]", outs)
	}
	// One element: package tensor has no rank 0.
	scalar := tensor.Layout{DType: outs[0].DType, Shape: []int{1}}

	in := alloc(t, s.Input().Layout())
	if err := s.BindInput(0, infer.Input{Pin: &in.p, Layout: s.Input().Layout()}); err != nil {
		t.Fatal(err)
	}
	const outSlots = 2
	means, scores := make([]*mem, outSlots), make([]*mem, outSlots)
	for o := range outSlots {
		means[o], scores[o] = alloc(t, scalar), alloc(t, outs[1].Layout())
		if err := s.BindOutput(o, &means[o].p, &scores[o].p); err != nil {
			t.Fatal(err)
		}
	}
	for f := range 4 {
		o := f % outSlots
		at := func(y, x, c int) float64 { return float64((y*7+x*3+c*5+f*11)%13) / 4 }
		in.write(t, func(b []byte) {
			v := f32s(b)
			for y := range m.H {
				for x := range m.W {
					for c := range m.C {
						v[(y*m.W+x)*m.C+c] = float32(at(y, x, c))
					}
				}
			}
		})
		if err := s.Run(0, o); err != nil {
			t.Fatal(err)
		}
		want := m.Reference(at)
		what := fmt.Sprintf("frame %d (%s)", f, fmtSlots(0, o))
		if got := means[o].floats(t, 1)[0]; math.Abs(got-want[0][0]) > 1e-6 {
			t.Fatalf("%s: mean %v, Go reference %v", what, got, want[0][0])
		}
		checkClose(t, what+" scores", scores[o].floats(t, m.C), want[1], 1e-6)

		per, err := s.RunPerFrame(infer.Input{Pin: &in.p, Layout: s.Input().Layout()})
		if err != nil {
			t.Fatalf("%s: run per frame: %v", what, err)
		}
		if len(per) != 2 || len(per[0]) != 4 || len(per[1]) != 4*m.C {
			t.Fatalf("%s: run per frame: %d outputs of %v bytes", what, len(per), []int{len(per[0]), len(per[1])})
		}
		if got := float64(f32s(per[0])[0]); math.Abs(got-want[0][0]) > 1e-6 {
			t.Fatalf("%s: run per frame: mean %v, Go reference %v", what, got, want[0][0])
		}
	}
}
