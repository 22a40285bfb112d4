package main

import (
	_ "embed"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

//go:embed model/model.onnx
var modelONNX []byte

// model is an ONNX model this program can bind to pinned frames: one
// input tensor read in place from a pin, and one float32 output of
// Scores values.
type model struct {
	onnx          []byte
	input, output string                    // tensor names in the graph
	dtype         ort.TensorElementDataType // input element type
	elemName      string                    // its name, for messages: "uint8"
	elemSize      int                       // bytes per input element
	shape         ort.Shape                 // input shape, NHWC
}

// exampleModel is model/model.onnx: uint8 [1 H W C] → Scores scores.
var exampleModel = model{
	onnx: modelONNX, input: "image", output: "scores",
	dtype: ort.TensorElementDataTypeUint8, elemName: "uint8", elemSize: 1, shape: ort.NewShape(1, H, W, C),
}

// inputBytes is the size of one packed input tensor.
func (m model) inputBytes() int { return int(m.shape.FlattenedSize()) * m.elemSize }

// runtime is one ONNX Runtime session over a model and one binding per
// pool slot of the sink.
type runtime struct {
	model   model
	session *ort.DynamicAdvancedSession

	// slots is the current binding of each slot, indexed by slot number.
	// A frame reads it without a lock (one atomic load and an index: the
	// example's per-frame cost outside the model's run, with caches the
	// run has just emptied); bind replaces the whole slice under mu.
	slots   atomic.Pointer[[]*binding]
	mu      sync.Mutex // serialises bind, describe and close
	retired []*binding // replaced bindings, destroyed at close
}

// binding is a slot's input and output, bound once. The input tensor
// wraps the slot's pinned window — ORT's CreateTensorWithDataAsOrtValue
// keeps the pointer and never copies — so every frame of the slot is
// read where the producer wrote it. The output lives in an anonymous
// mapping: ONNX Runtime keeps both pointers after the call that received
// them, which cgo allows only for memory Go does not manage (an mmap, not
// the Go heap).
type binding struct {
	pin    pin.HostPin // a clone: keeps the mapping alive while ORT holds its address
	addr   uintptr
	input  *ort.CustomDataTensor // over pin's window, typed by the model
	out    []byte                // anonymous mapping holding the output
	output *ort.Tensor[float32]
	io     *ort.IoBinding
}

// newRuntime loads the ONNX Runtime library at lib (once per process
// until destroyRuntime) and creates the session over the example's model.
func newRuntime(lib string) (*runtime, error) {
	if err := initEnvironment(lib); err != nil {
		return nil, err
	}
	r, err := newSession(exampleModel)
	if err != nil {
		ort.DestroyEnvironment()
		return nil, err
	}
	return r, nil
}

// initEnvironment loads the library at lib and creates ONNX Runtime's
// process-wide environment; ort.DestroyEnvironment undoes it.
func initEnvironment(lib string) error {
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(ort.WithLogLevelWarning()); err != nil {
		return fmt.Errorf("ONNX Runtime (%s): %w", lib, err)
	}
	return nil
}

// newSession creates a session over m, with no bindings yet, in the
// environment initEnvironment made. Every session gets the same options
// (the benchmarks rely on it to compare input handling only). The caller
// owns the runtime: closeSession (or close) destroys it.
func newSession(m model) (*runtime, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime session options: %w", err)
	}
	defer opts.Destroy()
	// Small models: threads would cost more than they give, and one
	// thread that never spins keeps the timings steady.
	for _, set := range []func() error{
		func() error { return opts.SetIntraOpNumThreads(1) },
		func() error { return opts.SetInterOpNumThreads(1) },
		func() error { return opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0") },
	} {
		if err := set(); err != nil {
			return nil, fmt.Errorf("ONNX Runtime session options: %w", err)
		}
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(m.onnx, nil, nil, opts)
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime session: %w", err)
	}
	return &runtime{model: m, session: s}, nil
}

// bind creates slot's binding over p (borrowed; bind clones it). It runs
// on the streaming thread (PinSink.OnSlot), once per slot.
func (r *runtime) bind(slot int, p *pin.HostPin) error {
	m := r.model
	if p.Len() != m.inputBytes() {
		return fmt.Errorf("slot %d: %d bytes pinned, the model takes %d (%v %v, packed rows)",
			slot, p.Len(), m.inputBytes(), m.elemName, m.shape)
	}
	b := &binding{addr: p.Addr()}
	var err error
	if b.pin, err = p.Clone(); err != nil {
		return err
	}
	if err = b.make(r.session, m); err != nil {
		b.destroy()
		return fmt.Errorf("slot %d: %w", slot, err)
	}
	r.mu.Lock()
	var next []*binding
	if cur := r.slots.Load(); cur != nil {
		next = append(next, *cur...)
	}
	for len(next) <= slot {
		next = append(next, nil)
	}
	if old := next[slot]; old != nil {
		r.retired = append(r.retired, old)
	}
	next[slot] = b
	r.slots.Store(&next)
	r.mu.Unlock()
	return nil
}

func (b *binding) make(s *ort.DynamicAdvancedSession, m model) error {
	var err error
	if b.input, err = ort.NewCustomDataTensor(m.shape, b.pin.Bytes(), m.dtype); err != nil {
		return err
	}
	if b.out, err = unix.Mmap(-1, 0, unix.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		return fmt.Errorf("output memory: %w", err)
	}
	scores := unsafe.Slice((*float32)(unsafe.Pointer(&b.out[0])), Scores)
	if b.output, err = ort.NewTensor(ort.NewShape(1, Scores), scores); err != nil {
		return err
	}
	if b.io, err = s.CreateIoBinding(); err != nil {
		return err
	}
	if err = b.io.BindInput(m.input, b.input); err != nil {
		return err
	}
	return b.io.BindOutput(m.output, b.output)
}

// inputAddr is where the ORT input tensor's data is: the pin's address.
func (b *binding) inputAddr() uintptr { return uintptr(unsafe.Pointer(&b.input.GetData()[0])) }

func (b *binding) destroy() {
	if b.io != nil {
		b.io.Destroy()
	}
	if b.output != nil {
		b.output.Destroy()
	}
	if b.out != nil {
		unix.Munmap(b.out)
	}
	if b.input != nil {
		b.input.Destroy()
	}
	b.pin.Release()
}

// slot returns slot's current binding (nil if none).
func (r *runtime) slot(slot int) *binding {
	cur := r.slots.Load()
	if cur == nil || slot < 0 || slot >= len(*cur) {
		return nil
	}
	return (*cur)[slot]
}

// bindings returns the current bindings by slot (nil for a slot without
// one); the slice is not to be modified.
func (r *runtime) bindings() []*binding {
	if cur := r.slots.Load(); cur != nil {
		return *cur
	}
	return nil
}

// run runs the model on b's input, writing b's output.
func (r *runtime) run(b *binding) ([Scores]float32, error) {
	var out [Scores]float32
	if err := r.session.RunWithBinding(b.io); err != nil {
		return out, err
	}
	copy(out[:], b.output.GetData())
	return out, nil
}

// close destroys the bindings (releasing their pins), the session and the
// ONNX Runtime environment.
func (r *runtime) close() {
	r.closeSession()
	ort.DestroyEnvironment()
}

// closeSession destroys the bindings (releasing their pins) and the
// session, leaving the environment to other sessions.
func (r *runtime) closeSession() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.bindings() {
		if b != nil {
			b.destroy()
		}
	}
	for _, b := range r.retired {
		b.destroy()
	}
	r.slots.Store(nil)
	r.retired = nil
	r.session.Destroy()
}
