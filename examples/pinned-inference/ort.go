package main

import (
	_ "embed"
	"fmt"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
)

//go:embed model/model.onnx
var modelONNX []byte

// model is an ONNX model this program can bind to pinned frames: one
// input read in place from a pin, and one float32 output of Scores
// values.
type model struct {
	name string // for messages
	onnx []byte
}

// exampleModel is model/model.onnx: uint8 [1 H W C] → Scores scores.
var exampleModel = model{name: "model/model.onnx", onnx: modelONNX}

// runtime is the example's use of package infer: a session over a model,
// one input slot bound per pool slot of the sink (by the sink's OnSlot
// hook), and one output slot, whose memory every frame's scores are
// written into and read from before the next frame runs.
type runtime struct {
	env     *infer.Environment // nil for a session made on an environment the caller owns
	session *infer.Session
	out     *tensor.Tensor // the output slot's memory (memfd: coherent, no bracket needed)
	outPin  pin.HostPin
	scores  []float32 // outPin's bytes as the Scores values
}

// newRuntime loads the ONNX Runtime library at lib ("" = $ONNXRUNTIME_LIB,
// then the loader's search path) and creates the session over the
// example's model.
func newRuntime(lib string) (*runtime, error) {
	env, err := infer.Load(lib)
	if err != nil {
		return nil, err
	}
	r, err := newSession(env, exampleModel)
	if err != nil {
		env.Close()
		return nil, err
	}
	r.env = env
	return r, nil
}

// newSession creates a session over m in env with package infer's default
// options (one thread, no spinning; the benchmarks rely on every session
// getting the same), and binds its output slot 0. The caller owns the
// runtime: closeSession (or close) destroys it.
func newSession(env *infer.Environment, m model) (r *runtime, err error) {
	s, err := env.NewSessionBytes(m.name, m.onnx, infer.Options{})
	if err != nil {
		return nil, err
	}
	r = &runtime{session: s}
	defer func() {
		if err != nil {
			r.closeSession()
		}
	}()
	outs := s.Outputs()
	if len(outs) != 1 || outs[0].DType != tensor.F32 || outs[0].Bytes() != 4*Scores {
		return nil, fmt.Errorf("%s: outputs %v: this program reads one float32 output of %d scores", m.name, outs, Scores)
	}
	// The output slot's memory: a memfd tensor, pinned once and bound
	// once. memfd rather than the DMA heap: the program reads the scores
	// on the CPU right after the run, and memfd needs no sync bracket.
	if r.out, err = tensor.Alloc(outs[0].Layout(), tensor.AllocOptions{Source: tensor.SourceMemfd, Name: "scores"}); err != nil {
		return nil, fmt.Errorf("output memory: %w", err)
	}
	if r.outPin, err = r.out.PinHost(); err != nil {
		return nil, fmt.Errorf("output memory: %w", err)
	}
	if err = s.BindOutput(0, &r.outPin); err != nil {
		return nil, err
	}
	r.scores = unsafe.Slice((*float32)(r.outPin.Pointer()), Scores)
	return r, nil
}

// bind binds slot's input once over p (borrowed; package infer clones
// it). It runs on the streaming thread (PinSink.OnSlot), once per slot.
func (r *runtime) bind(slot int, p *pin.HostPin) error {
	in := r.session.Input()
	if p.Len() != in.Bytes() {
		return fmt.Errorf("slot %d: %d bytes pinned, the model takes %d (%v %v, packed rows)",
			slot, p.Len(), in.Bytes(), in.ElementType, in.Shape)
	}
	return r.session.BindInput(slot, infer.Input{Pin: p, Layout: in.Layout()})
}

// binding returns slot's binding (false if none).
func (r *runtime) binding(slot int) (infer.InputBinding, bool) {
	return r.session.InputBinding(slot)
}

// run runs the model on slot's input and returns the scores.
func (r *runtime) run(slot int) ([Scores]float32, error) {
	var out [Scores]float32
	if err := r.session.Run(slot, 0); err != nil {
		return out, err
	}
	copy(out[:], r.scores)
	return out, nil
}

// close destroys the session (releasing the pins its bindings cloned) and
// drops the runtime's reference on the ONNX Runtime environment.
func (r *runtime) close() {
	r.closeSession()
	if r.env != nil {
		r.env.Close()
	}
}

// closeSession destroys the session and the output memory, leaving the
// environment to its other users.
func (r *runtime) closeSession() {
	if r.session != nil {
		r.session.Close()
	}
	r.outPin.Release()
	if r.out != nil {
		r.out.Close()
	}
}
