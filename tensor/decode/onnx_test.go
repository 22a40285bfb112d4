package decode_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// pinned is a pinned tensor as the engine binds them.
type pinned struct {
	t *tensor.Tensor
	p pin.HostPin
}

func allocPinned(tb testing.TB, l tensor.Layout) *pinned {
	tb.Helper()
	t, err := tensor.Alloc(l, tensor.AllocOptions{Name: "decode-test"})
	if err != nil {
		tb.Fatal(err)
	}
	m := &pinned{t: t}
	if m.p, err = t.PinHost(); err != nil {
		t.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		m.p.Release()
		m.t.Close()
	})
	return m
}

// access runs f on m's bytes inside a CPU bracket of kind a.
func (m *pinned) access(tb testing.TB, a tensor.Access, f func(b []byte)) {
	tb.Helper()
	if err := m.t.SyncForCPU(a); err != nil {
		tb.Fatal(err)
	}
	f(m.p.Bytes())
	if err := m.t.SyncForDevice(a); err != nil {
		tb.Fatal(err)
	}
}

// End to end with ONNX Runtime: a 64×48 RGB frame with a red rectangle
// (and a green one, in a channel the model does not pass on) runs
// through a Go-built model whose map is the red channel / 256; map-boxes
// finds the red rectangle — columns 20..49, rows 10..29 — exactly, in
// the model input's pixels and, through a 2× stretch, in a 128×96
// frame's.
func TestMapBoxesFromONNXRuntime(t *testing.T) {
	lib := infertest.Lib(t)
	env, err := infer.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Close(); err != nil {
			t.Error(err)
		}
	})
	const h, w = 48, 64
	m := infertest.ChannelMap{H: h, W: w, Channel: 0, Scale: 1.0 / 256}
	s, err := env.NewSessionBytes(m.String(), m.ONNX(), infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	frame := tensor.Layout{DType: tensor.U8, Shape: []int{h, w, 3}}
	_, transpose, err := infer.FitInput(s.Input(), frame.Shape)
	if err != nil {
		t.Fatal(err)
	}
	out := s.Outputs()[0]
	in, res := allocPinned(t, frame), allocPinned(t, out.Layout())
	in.access(t, tensor.AccessWrite, func(b []byte) {
		clear(b)
		for y := range h {
			for x := range w {
				px := b[(y*w+x)*3:]
				if x >= 20 && x < 50 && y >= 10 && y < 30 {
					px[0] = 255
				}
				if x >= 2 && x < 10 && y >= 35 && y < 45 {
					px[1] = 255
				}
			}
		}
	})
	if err := s.BindInput(0, infer.Input{Pin: &in.p, Layout: frame, Transpose: transpose}); err != nil {
		t.Fatal(err)
	}
	if err := s.BindOutput(0, &res.p); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(0, 0); err != nil {
		t.Fatal(err)
	}
	shape := make([]int, len(out.Shape))
	for i, d := range out.Shape {
		shape[i] = int(d)
	}
	d := newDecoder(t, decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.5, Labels: []string{"red"}})
	res.access(t, tensor.AccessRead, func(b []byte) {
		ts := []decode.Tensor{{Name: out.Name, DType: tensor.F32, Shape: shape, Data: b}}
		if ww, hh, ok := decode.InputSize(d.Config(), ts); !ok || ww != w || hh != h {
			t.Errorf("InputSize: %d×%d %v, want the map's %d×%d", ww, hh, ok, w, h)
		}
		checkObjects(t, "input", decodeOK(t, d, decode.Identity(w, h), ts...), []decode.Object{obj(20, 10, 30, 20, 0, "red", 255.0/256)})
		checkObjects(t, "2× frame", decodeOK(t, d, decode.Stretch(2*w, 2*h, w, h), ts...), []decode.Object{obj(40, 20, 60, 40, 0, "red", 255.0/256)})
	})
}
