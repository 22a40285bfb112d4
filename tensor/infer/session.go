package infer

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Options configure a session. The zero value is the engine's default:
// one intra-op thread, one inter-op thread, no spinning, the model's only
// input and all its outputs, no dynamic dimension fixed.
type Options struct {
	// IntraOpThreads is ONNX Runtime's intra-op thread count; 0 means 1.
	// Small models and pipelines that run several elements gain nothing
	// from a pool that competes with the streaming threads.
	IntraOpThreads int
	// InterOpThreads is the inter-op thread count; 0 means 1.
	InterOpThreads int
	// Spinning lets ONNX Runtime's idle threads spin waiting for work
	// (its default). Off, they sleep: steadier timings, no CPU burnt
	// between frames.
	Spinning bool
	// Input names the input the session feeds; "" means the model's only
	// input. A model with more than one input is ErrInput: the engine feeds
	// one tensor per run.
	Input string
	// Outputs names the outputs bound, in the order BindOutput takes their
	// memory; nil means all of the model's outputs in its order.
	Outputs []string
	// Shapes fixes the dimensions the model leaves free (-1), by input or
	// output name: the whole shape, whose static dimensions must be the
	// model's. Every free dimension of the input must be fixed, or
	// NewSession fails with ErrDynamicDims (FitInput fixes them from a
	// frame's shape). An output left out takes the shape ONNX Runtime
	// gives it for the fixed input (one run at NewSession on a zero
	// input), so an output whose size follows the input's needs nothing
	// here.
	Shapes map[string][]int64
}

func (o Options) ortOptions() (*ort.SessionOptions, error) {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime session options: %w", err)
	}
	intra, inter := max(o.IntraOpThreads, 1), max(o.InterOpThreads, 1)
	spin := "0"
	if o.Spinning {
		spin = "1"
	}
	for _, set := range []func() error{
		func() error { return so.SetIntraOpNumThreads(intra) },
		func() error { return so.SetInterOpNumThreads(inter) },
		func() error { return so.AddSessionConfigEntry("session.intra_op.allow_spinning", spin) },
		func() error { return so.AddSessionConfigEntry("session.inter_op.allow_spinning", spin) },
	} {
		if err := set(); err != nil {
			so.Destroy()
			return nil, fmt.Errorf("ONNX Runtime session options: %w", err)
		}
	}
	return so, nil
}

// TensorInfo describes one input or output of a model.
type TensorInfo struct {
	Name string
	// DType is the element type as package tensor names it; 0 when the
	// model's type has no tensor.DType (bool, string, bfloat16…): such a
	// tensor cannot be bound.
	DType tensor.DType
	// ElementType is ONNX Runtime's name of the element type ("uint8",
	// "float32", "bool"…), or the value kind when it is not a tensor
	// ("sequence", "map").
	ElementType string
	// ModelShape is the shape the model declares, -1 for a free dimension.
	ModelShape []int64
	// Shape is the shape the session runs with: ModelShape with the free
	// dimensions fixed by Options.Shapes. Nil in Inspect's answer and for
	// inputs and outputs a session does not bind.
	Shape []int64
}

// Dynamic reports whether the model leaves a dimension free.
func (t TensorInfo) Dynamic() bool { return slices.Contains(t.ModelShape, -1) }

// Bytes is the size of one packed tensor of Shape (0 when Shape is unset).
func (t TensorInfo) Bytes() int {
	if t.Shape == nil || !t.DType.Valid() {
		return 0
	}
	n := t.DType.Size()
	for _, d := range t.Shape {
		n *= int(d)
	}
	return n
}

// Layout is the packed tensor.Layout of Shape: what an output slot's memory
// holds after a run, and what an input can be fed without conversion.
func (t TensorInfo) Layout() tensor.Layout {
	shape := make([]int, len(t.Shape))
	for i, d := range t.Shape {
		shape[i] = int(d)
	}
	if t.Shape != nil && len(shape) == 0 {
		shape = []int{1} // a scalar: one element
	}
	return tensor.Layout{DType: t.DType, Shape: shape}
}

func (t TensorInfo) String() string {
	shape := t.Shape
	if shape == nil {
		shape = t.ModelShape
	}
	return fmt.Sprintf("%q %s %v", t.Name, t.ElementType, shape)
}

// ModelInfo is what a model declares.
type ModelInfo struct {
	Inputs, Outputs []TensorInfo
}

var dtypes = map[ort.TensorElementDataType]tensor.DType{
	ort.TensorElementDataTypeUint8: tensor.U8, ort.TensorElementDataTypeInt8: tensor.I8,
	ort.TensorElementDataTypeUint16: tensor.U16, ort.TensorElementDataTypeInt16: tensor.I16,
	ort.TensorElementDataTypeUint32: tensor.U32, ort.TensorElementDataTypeInt32: tensor.I32,
	ort.TensorElementDataTypeUint64: tensor.U64, ort.TensorElementDataTypeInt64: tensor.I64,
	ort.TensorElementDataTypeFloat16: tensor.F16, ort.TensorElementDataTypeFloat: tensor.F32,
	ort.TensorElementDataTypeDouble: tensor.F64,
}

func ortDType(d tensor.DType) ort.TensorElementDataType {
	for k, v := range dtypes {
		if v == d {
			return k
		}
	}
	return ort.TensorElementDataTypeUndefined
}

func infoFrom(io []ort.InputOutputInfo) []TensorInfo {
	out := make([]TensorInfo, len(io))
	for i, x := range io {
		t := TensorInfo{Name: x.Name}
		if x.OrtValueType != ort.ONNXTypeTensor {
			t.ElementType = strings.ToLower(strings.TrimPrefix(x.OrtValueType.String(), "ONNXType"))
		} else {
			t.DType = dtypes[x.DataType]
			t.ElementType = t.DType.String()
			if t.DType == 0 {
				t.ElementType = strings.ToLower(strings.TrimPrefix(x.DataType.String(), "ONNX_TENSOR_ELEMENT_DATA_TYPE_"))
			}
			t.ModelShape = slices.Clone([]int64(x.Dimensions))
		}
		out[i] = t
	}
	return out
}

// model is where a session's model comes from: a file or bytes.
type model struct {
	name string // the path, or the caller's name for the bytes
	path string // "" for bytes
	data []byte
}

func (m model) inspect(o *ort.SessionOptions) (ModelInfo, error) {
	var in, out []ort.InputOutputInfo
	var err error
	if m.path != "" {
		st, serr := os.Stat(m.path)
		switch {
		case serr != nil:
			return ModelInfo{}, fmt.Errorf("%w: %v", ErrModel, serr)
		case !st.Mode().IsRegular():
			return ModelInfo{}, fmt.Errorf("%w: %s: not a regular file", ErrModel, m.path)
		case st.Size() == 0:
			return ModelInfo{}, fmt.Errorf("%w: %s: empty file", ErrModel, m.path)
		}
		in, out, err = ort.GetInputOutputInfoWithOptions(m.path, o)
	} else {
		if len(m.data) == 0 {
			return ModelInfo{}, fmt.Errorf("%w: %s: no bytes", ErrModel, m.name)
		}
		in, out, err = ort.GetInputOutputInfoWithONNXData(m.data)
	}
	if err != nil {
		return ModelInfo{}, fmt.Errorf("%w: %s: ONNX Runtime cannot load it: %v", ErrModel, m.name, err)
	}
	return ModelInfo{Inputs: infoFrom(in), Outputs: infoFrom(out)}, nil
}

// Inspect returns the inputs and outputs the model file declares, with -1
// for free dimensions. It loads the model into a temporary session.
func (e *Environment) Inspect(path string) (ModelInfo, error) {
	return e.inspect(model{name: path, path: path})
}

// InspectBytes is Inspect for a model held in memory; name is used in
// messages.
func (e *Environment) InspectBytes(name string, onnx []byte) (ModelInfo, error) {
	return e.inspect(model{name: name, data: onnx})
}

func (e *Environment) inspect(m model) (ModelInfo, error) {
	if e.isClosed() {
		return ModelInfo{}, fmt.Errorf("environment: %w", ErrClosed)
	}
	so, err := Options{}.ortOptions()
	if err != nil {
		return ModelInfo{}, err
	}
	defer so.Destroy()
	return m.inspect(so)
}

// Session is one ONNX Runtime session over a model, with its input and
// output slots bound once (see the package documentation for the
// lifetimes and the concurrency rules).
type Session struct {
	name string
	sess *ort.DynamicAdvancedSession
	// shared counts the Sessions over sess (this one, and those Reshaped
	// made from it or from one of them): the last Close destroys it.
	shared  *atomic.Int32
	opts    Options
	model   ModelInfo
	input   TensorInfo   // the input fed, Shape fixed
	outputs []TensorInfo // the outputs bound, Shape fixed

	// table is the current bindings, read by Run with one atomic load; a
	// bind replaces it whole (copy-on-write) under mu.
	table atomic.Pointer[table]

	// runMu is held by Run for the whole run, and by Close: Close waits
	// for a run in progress, and a Run after Close fails.
	runMu sync.Mutex

	mu      sync.Mutex // serialises binds and Close
	retired retired    // bindings replaced by a bind, destroyed at Close
	conv    *convTarget
	closed  bool
	// perFrame is RunPerFrame's plan for the last input layout it saw.
	perFrame perFrameLayout

	stats counters
	clock runClock // guarded by runMu
}

// NewSession creates a session over the model file at path.
func (e *Environment) NewSession(path string, o Options) (*Session, error) {
	return e.newSession(model{name: path, path: path}, o)
}

// NewSessionBytes creates a session over a model held in memory; name is
// used in messages. ONNX Runtime copies what it needs: onnx is not kept.
func (e *Environment) NewSessionBytes(name string, onnx []byte, o Options) (*Session, error) {
	return e.newSession(model{name: name, data: onnx}, o)
}

func (e *Environment) newSession(m model, o Options) (s *Session, err error) {
	if e.isClosed() {
		return nil, fmt.Errorf("environment: %w", ErrClosed)
	}
	// The session's own reference: the environment outlives the handle
	// it was made from if that is closed first.
	if err := retain(); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	so, err := o.ortOptions()
	if err != nil {
		return nil, err
	}
	defer so.Destroy()
	info, err := m.inspect(so)
	if err != nil {
		return nil, err
	}
	s = &Session{name: m.name, model: info, opts: o, shared: new(atomic.Int32)}
	s.shared.Store(1)
	if s.input, err = pickInput(m.name, info, o); err != nil {
		return nil, err
	}
	if s.outputs, err = pickOutputs(m.name, info, o); err != nil {
		return nil, err
	}
	outNames := make([]string, len(s.outputs))
	for i, t := range s.outputs {
		outNames[i] = t.Name
	}
	if m.path != "" {
		s.sess, err = ort.NewDynamicAdvancedSession(m.path, []string{s.input.Name}, outNames, so)
	} else {
		s.sess, err = ort.NewDynamicAdvancedSessionWithONNXData(m.data, []string{s.input.Name}, outNames, so)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: ONNX Runtime session: %v", ErrModel, m.name, err)
	}
	if err = s.probeOutputs(); err != nil {
		s.sess.Destroy()
		return nil, err
	}
	s.table.Store(&table{})
	s.clock.calibrate()
	return s, nil
}

// retain takes a reference on an environment that is already loaded.
func retain() error {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.refs == 0 {
		return fmt.Errorf("environment: %w", ErrClosed)
	}
	env.refs++
	return nil
}

func pickInput(name string, info ModelInfo, o Options) (TensorInfo, error) {
	var in TensorInfo
	switch {
	case len(info.Inputs) == 0:
		return in, fmt.Errorf("%w: %s: the model has no input", ErrInput, name)
	case len(info.Inputs) > 1:
		names := make([]string, len(info.Inputs))
		for i, t := range info.Inputs {
			names[i] = t.String()
		}
		return in, fmt.Errorf("%w: %s: the model has %d inputs (%s); the engine feeds exactly one",
			ErrInput, name, len(info.Inputs), strings.Join(names, ", "))
	case o.Input != "" && o.Input != info.Inputs[0].Name:
		return in, fmt.Errorf("%w: %s: no input named %q; the model's input is %s", ErrInput, name, o.Input, info.Inputs[0])
	}
	in = info.Inputs[0]
	return in, fix(name, "input", &in, o.Shapes)
}

func pickOutputs(name string, info ModelInfo, o Options) ([]TensorInfo, error) {
	if len(info.Outputs) == 0 {
		return nil, fmt.Errorf("%w: %s: the model has no output", ErrInput, name)
	}
	var outs []TensorInfo
	if o.Outputs == nil {
		outs = slices.Clone(info.Outputs)
	} else {
		if len(o.Outputs) == 0 {
			return nil, fmt.Errorf("%w: %s: no output selected", ErrInput, name)
		}
		for _, want := range o.Outputs {
			i := slices.IndexFunc(info.Outputs, func(t TensorInfo) bool { return t.Name == want })
			if i < 0 {
				var have []string
				for _, t := range info.Outputs {
					have = append(have, t.String())
				}
				return nil, fmt.Errorf("%w: %s: no output named %q; the model's outputs are %s",
					ErrInput, name, want, strings.Join(have, ", "))
			}
			if slices.ContainsFunc(outs, func(t TensorInfo) bool { return t.Name == want }) {
				return nil, fmt.Errorf("%w: %s: output %q selected twice", ErrInput, name, want)
			}
			outs = append(outs, info.Outputs[i])
		}
	}
	for i := range outs {
		if _, given := o.Shapes[outs[i].Name]; !given && outs[i].Dynamic() && outs[i].DType != 0 {
			continue // Shape nil: probeOutputs fixes it from the input's
		}
		if err := fix(name, "output", &outs[i], o.Shapes); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// fix sets t.Shape: the model's shape with its free dimensions fixed by
// shapes[t.Name], checking that t can be bound at all.
func fix(model, kind string, t *TensorInfo, shapes map[string][]int64) error {
	if t.DType == 0 {
		return fmt.Errorf("%w: %s: %s %q is %s: the engine binds numeric tensors only", ErrInput, model, kind, t.Name, t.ElementType)
	}
	want, given := shapes[t.Name]
	if !given {
		if t.Dynamic() {
			return fmt.Errorf("%w: %s: %s %q declares %s; fix its free (?) dimensions with Options.Shapes[%q]",
				ErrDynamicDims, model, kind, t.Name, Declared(t.ModelShape), t.Name)
		}
		t.Shape = append([]int64{}, t.ModelShape...) // not nil for a scalar: nil is "not fixed"
		return nil
	}
	if len(want) != len(t.ModelShape) {
		return fmt.Errorf("%w: %s: %s %q: the model's shape %v has rank %d, Options.Shapes gives %v (rank %d)",
			ErrInput, model, kind, t.Name, t.ModelShape, len(t.ModelShape), want, len(want))
	}
	for i, d := range want {
		if d <= 0 {
			return fmt.Errorf("%w: %s: %s %q: Options.Shapes gives %v, dimension %d is %d: each must be > 0",
				ErrDynamicDims, model, kind, t.Name, want, i, d)
		}
		if m := t.ModelShape[i]; m >= 0 && m != d {
			return fmt.Errorf("%w: %s: %s %q: the model's shape is %v, Options.Shapes gives %v (dimension %d: %d, not %d)",
				ErrInput, model, kind, t.Name, t.ModelShape, want, i, m, d)
		}
	}
	t.Shape = append([]int64{}, want...)
	return nil
}

// Name returns the model's path (or the name given with its bytes).
func (s *Session) Name() string { return s.name }

// Model returns what the model declares (every input and output, -1 for
// free dimensions).
func (s *Session) Model() ModelInfo { return s.model }

// Input returns the input the session feeds, its Shape fixed.
func (s *Session) Input() TensorInfo { return s.input }

// Outputs returns the outputs the session binds, in BindOutput's order,
// their Shapes fixed.
func (s *Session) Outputs() []TensorInfo { return slices.Clone(s.outputs) }

// Close waits for a Run in progress, destroys every binding (current and
// retired; releasing the pins they cloned and the session's conversion
// memory), the session, and the session's reference on the environment.
// A second Close is a no-op. Run and bind after Close fail with ErrClosed.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.runMu.Lock()
	cur := s.table.Swap(nil)
	s.runMu.Unlock()
	if cur != nil {
		s.retired.table(cur)
	}
	s.retired.destroy()
	if s.conv != nil {
		s.conv.destroy()
		s.conv = nil
	}
	var err error
	if s.shared.Add(-1) == 0 {
		err = s.sess.Destroy()
	}
	if rerr := release(); err == nil {
		err = rerr
	}
	return err
}

// Reshaped returns a session over the same ONNX Runtime session (the
// model loaded once) whose input, and the outputs it gives no shape,
// have the shapes shapes gives them — the model's free dimensions fixed
// otherwise, as Options.Shapes fixes them (outputs whose size follows
// the input are probed: one run on a zero input). It has its own slots
// and bindings, and runs as any session does; runs of s and of its
// reshaped sessions may follow one another in any order. Each must be
// closed; the ONNX Runtime session goes with the last. Errors as
// NewSession's.
func (s *Session) Reshaped(shapes map[string][]int64) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if err := retain(); err != nil {
		return nil, err
	}
	o := s.opts
	o.Shapes = shapes
	r := &Session{name: s.name, sess: s.sess, shared: s.shared, opts: o, model: s.model}
	var err error
	if r.input, err = pickInput(s.name, s.model, o); err == nil {
		r.outputs, err = pickOutputs(s.name, s.model, o)
	}
	if err == nil {
		err = r.probeOutputs()
	}
	if err != nil {
		release()
		return nil, err
	}
	s.shared.Add(1)
	r.table.Store(&table{})
	r.clock.calibrate()
	return r, nil
}
