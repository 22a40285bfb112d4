package infer_test

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

func perFrameFloats(b []byte) []float64 {
	out := make([]float64, len(b)/4)
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.NativeEndian.Uint32(b[4*i:])))
	}
	return out
}

// RunPerFrame (the upstream way, a benchmark aid) gives what Run gives and
// what the Go reference says, on the same session, for the shipped u8
// model, for Float640 fed float32 in place, and for a uint8 frame into a
// float32 NCHW model (converted, counted as Run counts it); it binds
// nothing, and bytes it returns are the caller's.
func TestInferRunPerFrameMatchesRun(t *testing.T) {
	e := load(t)

	t.Run("shipped", func(t *testing.T) {
		s, err := e.NewSession(infertest.RepoFile(t, infertest.ShippedModel), infer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		closeLater(t, s)
		in, out := bindFirstSlots(t, s)
		for f := range 3 {
			in.write(t, shippedFill(f))
			ref := infertest.ShippedReference(in.p.Bytes()[:infertest.ShippedInputBytes])
			if err := s.Run(0, 0); err != nil {
				t.Fatal(err)
			}
			bound := out.floats(t, infertest.ShippedScores)
			got, err := s.RunPerFrame(infer.Input{Pin: &in.p, Layout: s.Input().Layout()})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("%d outputs, want 1", len(got))
			}
			per := perFrameFloats(got[0])
			checkClose(t, "per frame vs reference", per, ref[:], 1e-4)
			checkClose(t, "per frame vs bound once", per, bound, 1e-6)
		}
		st := s.Stats()
		if st.Runs != 6 || st.InputBinds != 1 || st.Conversions != 0 {
			t.Errorf("stats %+v: want 6 runs (3 bound, 3 per frame), 1 input bind, no conversion", st)
		}
	})

	t.Run("Float640", func(t *testing.T) {
		m := infertest.Float640
		s, err := e.NewSessionBytes("float640", m.ONNX(), infer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		closeLater(t, s)
		in := alloc(t, s.Input().Layout())
		in.write(t, func(b []byte) {
			f := f32s(b)
			// Small integers: sums stay exact in float32.
			for i := range f {
				f[i] = float32((i*7)%32 + i%3)
			}
		})
		want := m.Reference(func(y, x, c int) float64 { i := (y*m.W+x)*m.C + c; return float64((i*7)%32 + i%3) })
		got, err := s.RunPerFrame(infer.Input{Pin: &in.p, Layout: s.Input().Layout()})
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, "Float640 per frame", perFrameFloats(got[0]), want[0], 1e-6)
		if st := s.Stats(); st.Conversions != 0 || st.InputBinds != 0 || st.Runs != 1 {
			t.Errorf("stats %+v: want 1 run, nothing bound or converted", st)
		}
	})

	t.Run("converted", func(t *testing.T) {
		m := infertest.Means{NCHW: true, H: 8, W: 8, C: 3, Scale: 1.0 / 256, Peaks: true}
		s, err := e.NewSessionBytes("means", m.ONNX(), infer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		closeLater(t, s)
		l := tensor.Layout{DType: tensor.U8, Shape: []int{8, 8, 3}}
		in := alloc(t, l)
		in.write(t, func(b []byte) {
			for i := range b[:8*8*3] {
				b[i] = byte(i * 5)
			}
		})
		want := m.Reference(func(y, x, c int) float64 { return float64(byte(((y*8+x)*3 + c) * 5)) })
		for range 2 {
			got, err := s.RunPerFrame(infer.Input{Pin: &in.p, Layout: l})
			if err != nil {
				t.Fatal(err)
			}
			checkClose(t, "scores", perFrameFloats(got[0]), want[0], 1e-5)
			checkClose(t, "peaks", perFrameFloats(got[1]), want[1], 1e-5)
		}
		if st := s.Stats(); st.Conversions != 2 || st.BytesCopied != 2*uint64(m.InputBytes()) {
			t.Errorf("stats %+v: want 2 conversions of %d bytes", st, m.InputBytes())
		}
		bad := tensor.Layout{DType: tensor.U8, Shape: []int{4, 8, 3}}
		if _, err := s.RunPerFrame(infer.Input{Pin: &in.p, Layout: bad}); !errors.Is(err, infer.ErrInput) {
			t.Errorf("a layout the model cannot take: %v, want ErrInput", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RunPerFrame(infer.Input{Pin: &in.p, Layout: l}); !errors.Is(err, infer.ErrClosed) {
			t.Errorf("after Close: %v, want ErrClosed", err)
		}
	})
}
