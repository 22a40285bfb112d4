package infer_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// The shipped model (uint8 [1 64 64 3] → 3 float32 scores) over a ring of
// 4 pinned input slots and 2 pinned output slots, each bound once: 60
// frames, each slot's bytes rewritten before its frame, and every output
// equal to the Go reference on that frame's bytes — which it could not be
// if a binding had copied the bytes when it was made, or if the output
// were not written where the output slot's pin is. ONNX Runtime reads
// each input at its pin (no conversion, no copy).
func TestInferShippedModel(t *testing.T) {
	e := load(t)
	path := infertest.RepoFile(t, infertest.ShippedModel)
	s, err := e.NewSession(path, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, s)
	in, outs := s.Input(), s.Outputs()
	if in.Name != "image" || in.DType != tensor.U8 || !slices.Equal(in.ModelShape, []int64{1, 64, 64, 3}) ||
		len(outs) != 1 || outs[0].Name != "scores" || outs[0].DType != tensor.F32 || !slices.Equal(outs[0].Shape, []int64{1, 3}) {
		t.Fatalf("introspection: input %v, outputs %v", in, outs)
	}
	if got := e.Version(); got == "" {
		t.Error("no version")
	}

	const inSlots, outSlots, frames = 4, 2, 60
	ins := make([]*mem, inSlots)
	for i := range ins {
		ins[i] = alloc(t, in.Layout())
		if err := s.BindInput(i, infer.Input{Pin: &ins[i].p, Layout: in.Layout()}); err != nil {
			t.Fatal(err)
		}
	}
	outm := make([]*mem, outSlots)
	for o := range outm {
		outm[o] = alloc(t, outs[0].Layout())
		if err := s.BindOutput(o, &outm[o].p); err != nil {
			t.Fatal(err)
		}
	}
	for i := range ins {
		b, ok := s.InputBinding(i)
		if !ok || b.Addr != ins[i].p.Addr() || b.PinAddr != ins[i].p.Addr() || b.Conversion != "" {
			t.Fatalf("slot %d: binding %+v, pin at %#x: want ONNX Runtime reading the pin in place", i, b, ins[i].p.Addr())
		}
	}
	var prev []float64
	for f := range frames {
		i, o := f%inSlots, f%outSlots
		ins[i].write(t, shippedFill(f))
		if err := s.Run(i, o); err != nil {
			t.Fatal(err)
		}
		want := infertest.ShippedReference(ins[i].p.Bytes())
		got := outm[o].floats(t, infertest.ShippedScores)
		checkClose(t, fmt.Sprintf("frame %d (%s)", f, fmtSlots(i, o)), got, want[:], 1e-4)
		if f > 0 && slices.Equal(got, prev) {
			t.Fatalf("frame %d: the same scores as the frame before (%v): the check cannot tell frames apart", f, got)
		}
		prev = got
	}
	st := s.Stats()
	if st.Runs != frames || st.InputBinds != inSlots || st.OutputBinds != outSlots || st.Conversions != 0 ||
		st.BytesCopied != 0 || st.IoBindings != inSlots*outSlots || st.Retired != 0 || st.RunNsTotal == 0 {
		t.Errorf("stats %+v", st)
	}
}

// The float32 640×640×3 model and a model with two outputs, each with
// every frame checked against its Go reference (and the two-output model
// also with one output selected): float inputs read in place, outputs
// written in the output slot's pins, one pin per output.
func TestInferFloatModels(t *testing.T) {
	e := load(t)
	for _, tc := range []struct {
		model   infertest.Means
		outputs []string // Options.Outputs
	}{
		{model: infertest.Float640},
		{model: infertest.Means{H: 48, W: 40, C: 3, Scale: 0.25, Peaks: true}},
		{model: infertest.Means{H: 48, W: 40, C: 3, Scale: 0.25, Peaks: true}, outputs: []string{"peaks"}},
		{model: infertest.Means{NCHW: true, H: 20, W: 30, C: 4, Scale: 2, Peaks: true}, outputs: []string{"peaks", "scores"}},
	} {
		t.Run(fmt.Sprintf("%v-%v", tc.model, tc.outputs), func(t *testing.T) {
			m := tc.model
			s, err := e.NewSessionBytes(m.String(), m.ONNX(), infer.Options{Outputs: tc.outputs})
			if err != nil {
				t.Fatal(err)
			}
			closeLater(t, s)
			names := tc.outputs
			if names == nil {
				names = m.OutputNames()
			}
			outs := s.Outputs()
			if len(outs) != len(names) || len(s.Model().Outputs) != len(m.OutputNames()) {
				t.Fatalf("outputs %v, model's %v; want %v of %v", outs, s.Model().Outputs, names, m.OutputNames())
			}
			in := s.Input()
			const inSlots, outSlots, frames = 2, 3, 7
			ins := make([]*mem, inSlots)
			for i := range ins {
				ins[i] = alloc(t, in.Layout())
				if err := s.BindInput(i, infer.Input{Pin: &ins[i].p, Layout: in.Layout()}); err != nil {
					t.Fatal(err)
				}
			}
			outm := make([][]*mem, outSlots)
			for o := range outm {
				for k, name := range names {
					if outs[k].Name != name {
						t.Fatalf("output %d is %v, want %q", k, outs[k], name)
					}
					outm[o] = append(outm[o], alloc(t, outs[k].Layout()))
				}
				if err := s.BindOutput(o, pinsOf(outm[o])...); err != nil {
					t.Fatal(err)
				}
			}
			for f := range frames {
				i, o := f%inSlots, f%outSlots
				ins[i].write(t, func(b []byte) {
					v := f32s(b)
					// Small integers: sums stay exact in float32.
					for j := range v {
						v[j] = float32((j*7+f*5)%32 + j%3)
					}
				})
				if err := s.Run(i, o); err != nil {
					t.Fatal(err)
				}
				v := f32s(ins[i].p.Bytes())
				at := func(y, x, c int) float64 {
					if m.NCHW {
						return float64(v[(c*m.H+y)*m.W+x])
					}
					return float64(v[(y*m.W+x)*m.C+c])
				}
				ref := m.Reference(at)
				for k, name := range names {
					want := ref[slices.Index(m.OutputNames(), name)]
					got := outm[o][k].floats(t, m.C)
					checkClose(t, fmt.Sprintf("frame %d (%s), output %q", f, fmtSlots(i, o), name), got, want, 1e-6)
				}
			}
			if st := s.Stats(); st.Runs != frames || st.Conversions != 0 || st.IoBindings != inSlots*outSlots {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func pinsOf(ms []*mem) []*pin.HostPin {
	out := make([]*pin.HostPin, len(ms))
	for i, m := range ms {
		out[i] = &m.p
	}
	return out
}

// Inputs the model cannot take as they come are converted into the
// session's own bound tensor on every run — and counted: uint8 HWC rows
// padded to a stride into a float32 NCHW model (scale, transpose,
// repack), uint8 into float32 in the same order, float32 rows padded,
// float32 HWC into CHW. The padding holds 255s the outputs would show if
// it were read. Every output equals the Go reference computed from the
// frame as it was given.
func TestInferConversion(t *testing.T) {
	e := load(t)
	const H, W, C = 24, 20, 3
	for _, tc := range []struct {
		name   string
		model  infertest.Means
		layout tensor.Layout
		scale  float32
		says   []string // in InputBinding.Conversion
	}{
		{"u8-hwc-padded-into-f32-nchw", infertest.Means{NCHW: true, H: H, W: W, C: C, Scale: 0.5},
			tensor.Layout{DType: tensor.U8, Shape: []int{H, W, C}, RowStride: W*C + 4}, 1.0 / 256,
			[]string{"uint8→float32", "×0.00390625", "HWC→CHW", "packed"}},
		{"u8-nhwc-into-f32-nhwc", infertest.Means{H: H, W: W, C: C, Scale: 0.5},
			tensor.Layout{DType: tensor.U8, Shape: []int{1, H, W, C}}, 0,
			[]string{"uint8→float32"}},
		{"f32-padded-into-f32-nhwc", infertest.Means{H: H, W: W, C: C, Scale: 0.5},
			tensor.Layout{DType: tensor.F32, Shape: []int{H, W, C}, RowStride: W*C*4 + 64}, 0,
			[]string{"packed"}},
		{"f32-hwc-into-f32-nchw", infertest.Means{NCHW: true, H: H, W: W, C: C, Scale: 0.5},
			tensor.Layout{DType: tensor.F32, Shape: []int{H, W, C}}, 0,
			[]string{"HWC→CHW"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model
			s, err := e.NewSessionBytes(m.String(), m.ONNX(), infer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			closeLater(t, s)
			g, err := tc.layout.Geometry()
			if err != nil {
				t.Fatal(err)
			}
			const slots, frames = 3, 9
			ins := make([]*mem, slots)
			for i := range ins {
				ins[i] = alloc(t, tc.layout)
				if err := s.BindInput(i, infer.Input{Pin: &ins[i].p, Layout: tc.layout, Scale: tc.scale}); err != nil {
					t.Fatal(err)
				}
				b, _ := s.InputBinding(i)
				if b.Addr == b.PinAddr || b.Conversion == "" {
					t.Fatalf("binding %+v: want a conversion", b)
				}
				for _, w := range tc.says {
					if !strings.Contains(b.Conversion, w) {
						t.Errorf("conversion %q does not say %q", b.Conversion, w)
					}
				}
			}
			out := alloc(t, s.Outputs()[0].Layout())
			if err := s.BindOutput(0, &out.p); err != nil {
				t.Fatal(err)
			}
			scale := float64(tc.scale)
			if scale == 0 {
				scale = 1
			}
			for f := range frames {
				i := f % slots
				var at func(y, x, c int) float64
				ins[i].write(t, func(b []byte) {
					for j := range b {
						b[j] = 255 // padding, overwritten where there is data
					}
					for y := range H {
						row := b[y*g.Stride:]
						for k := range W * C {
							v := (k*7 + y*3 + f*11) % 200
							if tc.layout.DType == tensor.U8 {
								row[k] = byte(v)
							} else {
								f32s(row[:W*C*4])[k] = float32(v)
							}
						}
					}
					at = func(y, x, c int) float64 {
						row := b[y*g.Stride:]
						if tc.layout.DType == tensor.U8 {
							return float64(row[x*C+c]) * scale
						}
						return float64(f32s(row[:W*C*4])[x*C+c]) * scale
					}
				})
				if err := s.Run(i, 0); err != nil {
					t.Fatal(err)
				}
				checkClose(t, fmt.Sprintf("frame %d", f), out.floats(t, C), m.Reference(at)[0], 1e-5)
			}
			st := s.Stats()
			if st.Conversions != frames || st.BytesCopied != uint64(frames*m.InputBytes()) || st.Runs != frames {
				t.Errorf("stats %+v: want %d conversions of %d bytes", st, frames, m.InputBytes())
			}
		})
	}
}

// Run makes no Go allocation, bound in place or through a conversion.
func TestInferRunAllocs(t *testing.T) {
	e := load(t)
	s, err := e.NewSession(infertest.RepoFile(t, infertest.ShippedModel), infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, s)
	m := infertest.Means{NCHW: true, H: 32, W: 32, C: 3, Scale: 1}
	cs, err := e.NewSessionBytes("conversion", m.ONNX(), infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, cs)
	for _, x := range []struct {
		name string
		s    *infer.Session
		in   tensor.Layout
	}{
		{"in-place", s, s.Input().Layout()},
		{"converted", cs, tensor.Layout{DType: tensor.U8, Shape: []int{32, 32, 3}, RowStride: 128}},
	} {
		for slot := range 3 {
			in := alloc(t, x.in)
			if err := x.s.BindInput(slot, infer.Input{Pin: &in.p, Layout: x.in}); err != nil {
				t.Fatal(err)
			}
		}
		for slot := range 2 {
			out := alloc(t, x.s.Outputs()[0].Layout())
			if err := x.s.BindOutput(slot, &out.p); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		var runErr error
		allocs := testing.AllocsPerRun(300, func() {
			if err := x.s.Run(n%3, n%2); err != nil && runErr == nil {
				runErr = err
			}
			n++
		})
		if runErr != nil {
			t.Fatal(runErr)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Run, want 0", x.name, allocs)
		}
		t.Logf("%s: %v allocations per Run; %s", x.name, allocs, statsLine(x.s.Stats()))
	}
}

func statsLine(st infer.Stats) string {
	per := uint64(0)
	if st.Runs > 0 {
		per = st.RunNsTotal / st.Runs
	}
	return fmt.Sprintf("%d runs, %d ns per run inside ONNX Runtime, %d conversions", st.Runs, per, st.Conversions)
}

// A slot rebound (the sink re-imported it) runs on its new memory at once;
// the old binding is destroyed as soon as no run uses it, so its pin's
// mapping goes when the caller lets go of its own tensor, not at Close;
// after Close the process's fds and fd-backed mappings are back to where
// they were. Rebinding from another goroutine
// while runs go on is safe (run under -race), and every run's output is
// the reference of one of the slot's two memories.
func TestInferRebind(t *testing.T) {
	e := load(t)
	base := pintest.Take()
	s, err := e.NewSession(infertest.RepoFile(t, infertest.ShippedModel), infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	layout := s.Input().Layout()
	newMem := func(f int, p *pin.HostPin) *tensor.Tensor {
		tt, err := tensor.Alloc(layout, tensor.AllocOptions{Name: "rebind"})
		if err != nil {
			t.Fatal(err)
		}
		if *p, err = tt.PinHost(); err != nil {
			t.Fatal(err)
		}
		shippedFill(f)(p.Bytes())
		return tt
	}
	var pa, pb pin.HostPin
	ta := newMem(1, &pa)
	tb := newMem(2, &pb)
	wantA := infertest.ShippedReference(pa.Bytes())
	wantB := infertest.ShippedReference(pb.Bytes())
	outT, err := tensor.Alloc(s.Outputs()[0].Layout(), tensor.AllocOptions{Name: "rebind-out"})
	if err != nil {
		t.Fatal(err)
	}
	outP, err := outT.PinHost()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.BindOutput(0, &outP); err != nil {
		t.Fatal(err)
	}
	scores := func() []float64 {
		v := f32s(outP.Bytes())
		return []float64{float64(v[0]), float64(v[1]), float64(v[2])}
	}
	if err := s.BindInput(0, infer.Input{Pin: &pa, Layout: layout}); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(0, 0); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "slot 0 over A", scores(), wantA[:], 1e-4)
	if err := s.BindInput(0, infer.Input{Pin: &pb, Layout: layout}); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(0, 0); err != nil {
		t.Fatal(err)
	}
	checkClose(t, "slot 0 rebound over B", scores(), wantB[:], 1e-4)
	if st := s.Stats(); st.Retired != 0 || st.InputBinds != 2 || st.IoBindings != 1 || st.InputsBound != 1 {
		t.Errorf("stats after a rebind %+v: want the old binding and its IoBinding destroyed", st)
	}

	// The caller lets go of A: nothing else holds its mapping.
	aAddr := pa.Addr()
	pa.Release()
	ta.Close()
	if mapped(aAddr) {
		t.Fatalf("A's mapping at %#x outlived the caller's pin and the rebind", aAddr)
	}

	// Rebinding on another goroutine while runs go on.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var bindErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; k < 200; k++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.BindInput(1, infer.Input{Pin: &pb, Layout: layout}); err != nil {
				bindErr = err
				return
			}
			if err := s.BindOutput(1, &outP); err != nil {
				bindErr = err
				return
			}
		}
	}()
	for k := range 200 {
		err := s.Run(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, fmt.Sprintf("run %d during rebinds", k), scores(), wantB[:], 1e-4)
		// Slot 1 may not be bound yet; when it is, it runs.
		if err := s.Run(1, 1); err != nil && !errors.Is(err, infer.ErrNotBound) {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if bindErr != nil {
		t.Fatal(bindErr)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if mapped(aAddr) {
		t.Errorf("A's mapping at %#x is still there after Close", aAddr)
	}
	if err := s.Run(0, 0); !errors.Is(err, infer.ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
	if err := s.BindInput(0, infer.Input{Pin: &pb, Layout: layout}); err == nil {
		t.Error("BindInput after Close succeeded")
	}
	outP.Release()
	outT.Close()
	pb.Release()
	tb.Close()
	if leaks := base.Leaks(); leaks != "" {
		t.Errorf("after Close: %s", leaks)
	}
}

// mapped reports whether addr lies in one of the process's mappings.
func mapped(addr uintptr) bool {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var lo, hi uintptr
		if _, err := fmt.Sscanf(sc.Text(), "%x-%x", &lo, &hi); err == nil && addr >= lo && addr < hi {
			return true
		}
	}
	return false
}
