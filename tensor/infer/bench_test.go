package infer_test

import (
	"os"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// BenchmarkInferDispatch measures how a run is dispatched once every
// tensor exists (the choice package infer made; see docs/design-notes.md),
// on a model so small (float32 [1 4 4 3] → 3 means) that the run itself
// is a few µs and the dispatch shows:
//
//   - pair: Session.Run — one IoBinding per (input slot, output slot)
//     pair, made at bind time; per frame one atomic load, two indexes
//     and RunWithBinding.
//   - values: ONNX Runtime's Run with the input and output OrtValues made
//     once (onnxruntime_go's DynamicAdvancedSession.Run): it builds the
//     value arrays per call.
//   - rebind-output: one IoBinding per input slot, the output slot's
//     value bound to it per frame (BindOutput: a C string and ORT's name
//     lookup per frame) — what binding outputs "once per slot" costs
//     without pairs.
//
// 4 input slots, 2 output slots, visited in turn. Needs
// $ONNXRUNTIME_LIB (benchmarks never fetch it).
func BenchmarkInferDispatch(b *testing.B) {
	lib := os.Getenv("ONNXRUNTIME_LIB")
	if lib == "" {
		b.Skip("ONNXRUNTIME_LIB is not set (ONNXRUNTIME_LIB=$(scripts/fetch-onnxruntime) go test -bench InferDispatch ./tensor/infer)")
	}
	e, err := infer.Load(lib)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	m := infertest.Means{H: 4, W: 4, C: 3, Scale: 1}
	s, err := e.NewSessionBytes("tiny", m.ONNX(), infer.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const inSlots, outSlots = 4, 2
	var ins, outs []*mem
	for i := range inSlots {
		ins = append(ins, alloc(b, s.Input().Layout()))
		if err := s.BindInput(i, infer.Input{Pin: &ins[i].p, Layout: s.Input().Layout()}); err != nil {
			b.Fatal(err)
		}
	}
	for o := range outSlots {
		outs = append(outs, alloc(b, s.Outputs()[0].Layout()))
		if err := s.BindOutput(o, &outs[o].p); err != nil {
			b.Fatal(err)
		}
	}
	// The alternatives, on their own session with the same options.
	so, err := ort.NewSessionOptions()
	if err != nil {
		b.Fatal(err)
	}
	defer so.Destroy()
	so.SetIntraOpNumThreads(1)
	so.SetInterOpNumThreads(1)
	so.AddSessionConfigEntry("session.intra_op.allow_spinning", "0")
	raw, err := ort.NewDynamicAdvancedSessionWithONNXData(m.ONNX(), []string{"image"}, []string{"scores"}, so)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Destroy()
	var inVals, outVals []ort.Value
	for _, x := range ins {
		v, err := ort.NewCustomDataTensor(ort.Shape(s.Input().Shape), x.p.Bytes(), ort.TensorElementDataTypeFloat)
		if err != nil {
			b.Fatal(err)
		}
		defer v.Destroy()
		inVals = append(inVals, v)
	}
	for _, x := range outs {
		v, err := ort.NewCustomDataTensor(ort.Shape(s.Outputs()[0].Shape), x.p.Bytes()[:12], ort.TensorElementDataTypeFloat)
		if err != nil {
			b.Fatal(err)
		}
		defer v.Destroy()
		outVals = append(outVals, v)
	}
	var perInput []*ort.IoBinding
	for _, v := range inVals {
		io, err := raw.CreateIoBinding()
		if err != nil {
			b.Fatal(err)
		}
		defer io.Destroy()
		if err := io.BindInput("image", v); err != nil {
			b.Fatal(err)
		}
		perInput = append(perInput, io)
	}

	b.Run("pair", func(b *testing.B) {
		b.ReportAllocs()
		before := s.Stats()
		n := 0
		for b.Loop() {
			if err := s.Run(n%inSlots, n%outSlots); err != nil {
				b.Fatal(err)
			}
			n++
		}
		after := s.Stats()
		b.ReportMetric(float64(after.RunNsTotal-before.RunNsTotal)/float64(n), "run-ns/op")
	})
	b.Run("values", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		in, out := make([]ort.Value, 1), make([]ort.Value, 1)
		for b.Loop() {
			in[0], out[0] = inVals[n%inSlots], outVals[n%outSlots]
			if err := raw.Run(in, out); err != nil {
				b.Fatal(err)
			}
			n++
		}
	})
	b.Run("rebind-output", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			io := perInput[n%inSlots]
			if err := io.BindOutput("scores", outVals[n%outSlots]); err != nil {
				b.Fatal(err)
			}
			if err := raw.RunWithBinding(io); err != nil {
				b.Fatal(err)
			}
			n++
		}
	})
}
