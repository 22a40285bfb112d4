package infer

import (
	"fmt"
	"slices"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// perFrameLayout is what RunPerFrame planned for last: the conversion is
// a property of the negotiated format, not of each frame (an element
// decides it at caps, as GStreamer's onnxinference does), so it is
// planned again only when the layout changes.
type perFrameLayout struct {
	planned   bool
	dtype     tensor.DType
	shape     []int
	stride    int
	scale     float32
	transpose Transpose
	aligned   bool // the pin was aligned to the model's element size
	extent    int  // the bytes the layout spans
	plan      *plan
}

func (l *perFrameLayout) matches(in Input, aligned bool) bool {
	return l.planned && l.dtype == in.Layout.DType && slices.Equal(l.shape, in.Layout.Shape) &&
		l.stride == in.Layout.RowStride && l.scale == in.Scale && l.transpose == in.Transpose && l.aligned == aligned
}

// RunPerFrame runs the model once on in the way an engine that binds
// nothing does — GStreamer's onnxinference, issue 18's "upstream way" —
// so that what binding once saves can be measured on the same session
// (same model, options and frames); Run is the engine's way, and the one
// to use. Per call: a new ONNX Runtime input value is created over in's
// pinned bytes (CreateTensorWithDataAsOrtValue; or over the session's
// conversion tensor, after the same conversion Run would do), the model
// runs without an IoBinding and with no output value given (ONNX Runtime
// allocates each output), every output is copied into newly allocated Go
// memory, and every value is released. The returned slices, one per
// output in Outputs' order, are that memory: the caller's.
//
// What is not per call: the conversion is planned once per input layout
// (a format's property, decided at caps by any element). RunNsTotal times
// onnxruntime_go's Run call, which also copies ONNX Runtime's outputs
// into Go memory and wraps them in new values (one more step than
// onnxinference, which copies each output once): that work is counted as
// the run, not as this way's own cost, so comparisons of the cost
// outside the run understate this way's.
//
// It needs no binding and does not touch the slots; runs are serialised
// with Run's. The caller holds CPU access to in's memory for the call.
func (s *Session) RunPerFrame(in Input) ([][]byte, error) {
	if in.Pin == nil || !in.Pin.Valid() {
		return nil, fmt.Errorf("%w: %s: run per frame: input %q: no pin", ErrInput, s.name, s.input.Name)
	}
	p, conv, err := s.perFramePlan(in)
	if err != nil {
		return nil, err
	}
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if s.table.Load() == nil {
		return nil, fmt.Errorf("%s: run per frame: session %w", s.name, ErrClosed)
	}
	var data []byte
	if p == nil {
		data = in.Pin.Bytes()[:s.input.Bytes()] // read in place: the layout is the model's
	} else {
		n := p.run(conv.mem, in.Pin.Bytes())
		s.stats.conversions.Add(1)
		s.stats.bytesCopied.Add(uint64(n))
		data = conv.mem[:s.input.Bytes()]
	}
	input, err := ort.NewCustomDataTensor(ort.Shape(s.input.Shape), data, ortDType(s.input.DType))
	if err != nil {
		return nil, fmt.Errorf("%s: run per frame: ONNX Runtime tensor over the input: %w", s.name, err)
	}
	defer input.Destroy()
	outputs := make([]ort.Value, len(s.outputs)) // nil: ONNX Runtime allocates each
	defer func() {
		for _, v := range outputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	// A scalar output is given a new value instead (scalar.go).
	scalars := make([]func() []byte, len(s.outputs))
	for i, t := range s.outputs {
		if len(t.Shape) == 0 {
			if outputs[i], scalars[i], err = perFrameScalar(t.DType); err != nil {
				return nil, fmt.Errorf("%s: run per frame: output %q: %w", s.name, t.Name, err)
			}
		}
	}
	inputs := []ort.Value{input}
	err = s.timeRun(func() error { return s.sess.Run(inputs, outputs) })
	if err != nil {
		return nil, fmt.Errorf("%s: run per frame: %w", s.name, err)
	}
	res := make([][]byte, len(outputs))
	for i, v := range outputs {
		b, ok := valueBytes(v)
		if scalars[i] != nil {
			b, ok = scalars[i](), true
		}
		if want := s.outputs[i].Bytes(); !ok || len(b) != want {
			return nil, fmt.Errorf("%w: %s: run per frame: output %q: ONNX Runtime gave %d bytes of %T, want %d",
				ErrInput, s.name, s.outputs[i].Name, len(b), v, want)
		}
		res[i] = b
	}
	s.stats.runs.Add(1)
	return res, nil
}

// perFramePlan returns the conversion for in's layout (nil: none) and the
// conversion tensor it writes, planning when the layout changed. Under
// mu, which also guards the conversion tensor's creation (as BindInput
// does) and is taken before runMu, as Close takes them.
func (s *Session) perFramePlan(in Input) (*plan, *convTarget, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, fmt.Errorf("%s: run per frame: session %w", s.name, ErrClosed)
	}
	aligned := in.Pin.Alignment() >= uintptr(s.input.DType.Size())
	l := &s.perFrame
	if !l.matches(in, aligned) {
		p, err := planInput(s.input, in)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: run per frame: %w", s.name, err)
		}
		g, _ := in.Layout.Geometry() // planInput checked it
		*l = perFrameLayout{planned: true, dtype: in.Layout.DType, shape: slices.Clone(in.Layout.Shape), stride: in.Layout.RowStride,
			scale: in.Scale, transpose: in.Transpose, aligned: aligned, extent: g.Extent, plan: p}
	}
	if in.Pin.Len() < l.extent {
		return nil, nil, fmt.Errorf("%w: %s: run per frame: input %q: the pin holds %d bytes, the layout spans %d",
			ErrInput, s.name, s.input.Name, in.Pin.Len(), l.extent)
	}
	if l.plan != nil && s.conv == nil {
		var err error
		if s.conv, err = newConvTarget(s.input); err != nil {
			return nil, nil, fmt.Errorf("%s: run per frame: %w", s.name, err)
		}
	}
	return l.plan, s.conv, nil
}

// valueBytes returns the bytes of a tensor value onnxruntime_go made for
// an output ONNX Runtime allocated (its Go-held copy).
func valueBytes(v ort.Value) ([]byte, bool) {
	switch t := v.(type) {
	case *ort.Tensor[float32]:
		return asBytes(t.GetData()), true
	case *ort.Tensor[float64]:
		return asBytes(t.GetData()), true
	case *ort.Tensor[uint8]:
		return t.GetData(), true
	case *ort.Tensor[int8]:
		return asBytes(t.GetData()), true
	case *ort.Tensor[uint16]:
		return asBytes(t.GetData()), true
	case *ort.Tensor[int16]:
		return asBytes(t.GetData()), true
	case *ort.Tensor[uint32]:
		return asBytes(t.GetData()), true
	case *ort.Tensor[int32]:
		return asBytes(t.GetData()), true
	case *ort.Tensor[uint64]:
		return asBytes(t.GetData()), true
	case *ort.Tensor[int64]:
		return asBytes(t.GetData()), true
	case *ort.CustomDataTensor:
		return t.GetData(), true
	}
	return nil, false
}

func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}
