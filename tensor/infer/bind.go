package infer

import (
	"fmt"
	"slices"

	ort "github.com/yalue/onnxruntime_go"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// MaxSlots bounds slot numbers (input and output): a slot is an index
// into the session's tables, so a stray slot number must not allocate
// gigabytes.
const MaxSlots = 4096

// Input is memory given to the model's input for one input slot: a pinned
// address and how the bytes at it are laid out.
type Input struct {
	// Pin is where the slot's frames are: borrowed, BindInput clones it.
	// It starts at the first element (tensor.Tensor.PinHost's pins do).
	Pin *pin.HostPin
	// Layout is the layout of the bytes at Pin: element type, shape
	// (outermost first) and row stride. Offset must be 0.
	Layout tensor.Layout
	// Scale multiplies every element when the model takes float32: a
	// conversion (counted). 0 means 1 (none).
	Scale float32
	// Transpose says how the input's dimensions map onto the model's.
	// TransposeAuto (the zero value) decides from the shapes.
	Transpose Transpose
}

// Transpose is a dimension order conversion.
type Transpose uint8

const (
	// TransposeAuto: the input's shape (leading 1s aside) equal to the
	// model's is fed in order; an input [H W C] to a model [C H W] is
	// transposed (HWC→CHW); anything else is ErrInput.
	TransposeAuto Transpose = iota
	// TransposeNone: the shapes must be equal (leading 1s aside).
	TransposeNone
	// TransposeHWCToCHW: the input is [H W C] and the model takes
	// [C H W] (leading 1s aside on both).
	TransposeHWCToCHW
)

// table is a session's bindings at one moment. Bindings are never
// modified once published; a bind publishes a new table that shares what
// did not change.
type table struct {
	in    []*inBinding       // by input slot
	out   []*outBinding      // by output slot
	pairs [][]*ort.IoBinding // [input slot][output slot]: nil unless both are bound
}

func (t *table) clone() *table {
	n := &table{in: slices.Clone(t.in), out: slices.Clone(t.out), pairs: slices.Clone(t.pairs)}
	return n
}

// inBinding is an input slot bound once: the ORT tensor over its pin, or
// the conversion that feeds the session's conversion tensor from it.
type inBinding struct {
	slot  int
	pin   pin.HostPin           // a clone: the mapping outlives ORT's use of it
	value *ort.CustomDataTensor // over pin's bytes; nil when converted
	plan  *plan                 // nil when ORT reads pin in place
	conv  *convTarget           // the session's conversion tensor, when plan is set
	bound ort.Value             // what the slot's IoBindings bind: value, or the conversion tensor
	addr  uintptr               // where ORT reads the input
}

func (b *inBinding) destroy() {
	if b.value != nil {
		b.value.Destroy()
	}
	b.pin.Release()
}

// outBinding is an output slot bound once: one ORT tensor per output over
// the caller's pinned memory.
type outBinding struct {
	slot    int
	pins    []pin.HostPin // clones
	values  []*ort.CustomDataTensor
	scalars []*scalarValue // for outputs of rank 0, whose values are nil (scalar.go)
}

func (b *outBinding) destroy() {
	for _, v := range b.values {
		if v != nil {
			v.Destroy()
		}
	}
	for _, v := range b.scalars {
		if v != nil {
			v.destroy()
		}
	}
	for i := range b.pins {
		b.pins[i].Release()
	}
}

// retired holds what Close takes from the table, until it destroys it
// (binds replaced destroy theirs at once, afterRuns). A Run that loaded the
// previous table may still be using it.
type retired struct {
	io  []*ort.IoBinding
	in  []*inBinding
	out []*outBinding
}

func (r *retired) table(t *table) {
	for _, row := range t.pairs {
		for _, io := range row {
			if io != nil {
				r.io = append(r.io, io)
			}
		}
	}
	for _, b := range t.in {
		if b != nil {
			r.in = append(r.in, b)
		}
	}
	for _, b := range t.out {
		if b != nil {
			r.out = append(r.out, b)
		}
	}
}

// destroy releases IoBindings first (they hold the values), then the
// values and the pins.
func (r *retired) destroy() {
	for _, io := range r.io {
		io.Destroy()
	}
	for _, b := range r.in {
		b.destroy()
	}
	for _, b := range r.out {
		b.destroy()
	}
	*r = retired{}
}

// convTarget is the session's own input tensor that conversions write and
// converted slots bind: an anonymous mapping (memory Go does not manage,
// so ONNX Runtime may keep its address), one per session — runs are one
// at a time.
type convTarget struct {
	mem   []byte
	value *ort.CustomDataTensor
}

func newConvTarget(in TensorInfo) (*convTarget, error) {
	n := in.Bytes()
	page := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, (n+page-1)/page*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("conversion tensor for input %q (%d bytes): %w", in.Name, n, err)
	}
	c := &convTarget{mem: mem[:n:n]}
	if c.value, err = ort.NewCustomDataTensor(ort.Shape(in.Shape), c.mem, ortDType(in.DType)); err != nil {
		unix.Munmap(mem)
		return nil, fmt.Errorf("conversion tensor for input %q: %w", in.Name, err)
	}
	c.mem = mem
	return c, nil
}

func (c *convTarget) destroy() {
	c.value.Destroy()
	unix.Munmap(c.mem)
}

func checkSlot(kind string, slot int) error {
	if slot < 0 || slot >= MaxSlots {
		return fmt.Errorf("%w: %s slot %d: slots are 0 to %d", ErrInput, kind, slot, MaxSlots-1)
	}
	return nil
}

// CheckInput reports what BindInput would decide for memory laid out as
// in.Layout (with in.Scale and in.Transpose), assuming a pin of the
// layout's extent aligned to 64 bytes (in.Pin is not read): the
// conversion each run of such a slot would do ("" when ONNX Runtime
// reads it in place), or ErrInput naming the input, what the model takes
// and what was given. Nothing is bound; for checking negotiated caps
// before the first frame.
func (s *Session) CheckInput(in Input) (conversion string, err error) {
	g, err := in.Layout.Geometry()
	if err != nil {
		return "", fmt.Errorf("%s: %w: input %q: layout: %v", s.name, ErrInput, s.input.Name, err)
	}
	p, err := planLayout(s.input, in, g.Extent, 64)
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.name, err)
	}
	if p == nil {
		return "", nil
	}
	return p.desc, nil
}

// BindInput binds input slot slot to in, once: ONNX Runtime reads the
// slot's frames at in.Pin on every later Run of the slot. BindInput
// clones the pin; the clone is released at Close, so the mapping outlives
// every run that may read it. When the memory cannot be fed as it is (an
// element type, layout, row stride or alignment the model does not take)
// the slot is bound through the session's conversion tensor instead, and
// each Run of the slot converts into it first (counted in Stats); what
// cannot be converted is ErrInput naming the input, what the model takes
// and what was given.
//
// Binding a slot that is bound replaces its binding: the old one is
// destroyed once no Run uses it (a Run in progress on another goroutine
// finishes first), its pin clone with it. BindInput is safe to call while
// Run runs on another goroutine. UnbindInput removes a binding.
func (s *Session) BindInput(slot int, in Input) error {
	if err := checkSlot("input", slot); err != nil {
		return err
	}
	p, err := planInput(s.input, in)
	if err != nil {
		return fmt.Errorf("%s: input slot %d: %w", s.name, slot, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("%s: input slot %d: session %w", s.name, slot, ErrClosed)
	}
	b := &inBinding{slot: slot, plan: p}
	if b.pin, err = in.Pin.Clone(); err != nil {
		return fmt.Errorf("%s: input slot %d: %w", s.name, slot, err)
	}
	if p == nil {
		b.value, err = ort.NewCustomDataTensor(ort.Shape(s.input.Shape), b.pin.Bytes()[:s.input.Bytes()], ortDType(s.input.DType))
		if err != nil {
			b.destroy()
			return fmt.Errorf("%s: input slot %d: ONNX Runtime tensor over the pin: %w", s.name, slot, err)
		}
		b.bound, b.addr = b.value, b.pin.Addr()
	} else {
		if s.conv == nil {
			if s.conv, err = newConvTarget(s.input); err != nil {
				b.destroy()
				return fmt.Errorf("%s: input slot %d: %w", s.name, slot, err)
			}
		}
		b.conv, b.bound, b.addr = s.conv, s.conv.value, uintptr(unsafePointer(s.conv.mem))
	}
	cur := s.table.Load()
	next := cur.clone()
	for len(next.in) <= slot {
		next.in = append(next.in, nil)
		next.pairs = append(next.pairs, nil)
	}
	row := make([]*ort.IoBinding, len(next.out))
	for o, ob := range next.out {
		if ob == nil {
			continue
		}
		if row[o], err = s.pair(b, ob); err != nil {
			for _, io := range row {
				if io != nil {
					io.Destroy()
				}
			}
			b.destroy()
			return fmt.Errorf("%s: input slot %d with output slot %d: %w", s.name, slot, o, err)
		}
	}
	old, oldRow := next.in[slot], next.pairs[slot]
	next.in[slot], next.pairs[slot] = b, row
	s.table.Store(next)
	if old != nil {
		// Replaced: destroyed once the runs that may read it are done.
		s.afterRuns(func() { destroyInput(old, oldRow) })
	}
	s.stats.inputBinds.Add(1)
	return nil
}

// BindOutput binds output slot slot once: one pin per output, in
// Outputs' order, each holding at least the output's bytes (packed, the
// output's element type; one element for a scalar output, rank 0) and
// aligned to its element size. Every Run with this output slot writes the
// outputs there: no copy, no tensor made per run. BindOutput clones the
// pins (released at Close). Rebinding replaces the slot's binding as
// BindInput does; it is safe while Run runs on another goroutine.
func (s *Session) BindOutput(slot int, pins ...*pin.HostPin) error {
	if err := checkSlot("output", slot); err != nil {
		return err
	}
	if len(pins) != len(s.outputs) {
		return fmt.Errorf("%w: %s: output slot %d: %d pins for %d outputs (%s)",
			ErrInput, s.name, slot, len(pins), len(s.outputs), s.outputNames())
	}
	for i, p := range pins {
		t := s.outputs[i]
		switch {
		case p == nil || !p.Valid():
			return fmt.Errorf("%w: %s: output slot %d: output %q: no pin", ErrInput, s.name, slot, t.Name)
		case p.Len() < t.Bytes():
			return fmt.Errorf("%w: %s: output slot %d: output %q %s %v takes %d bytes, the pin holds %d",
				ErrInput, s.name, slot, t.Name, t.ElementType, t.Shape, t.Bytes(), p.Len())
		case p.Alignment() < uintptr(t.DType.Size()):
			return fmt.Errorf("%w: %s: output slot %d: output %q is %s, the pin at %#x is aligned to %d bytes, not %d",
				ErrInput, s.name, slot, t.Name, t.ElementType, p.Addr(), p.Alignment(), t.DType.Size())
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("%s: output slot %d: session %w", s.name, slot, ErrClosed)
	}
	b := &outBinding{slot: slot, pins: make([]pin.HostPin, len(pins)), values: make([]*ort.CustomDataTensor, len(pins)),
		scalars: make([]*scalarValue, len(pins))}
	for i, p := range pins {
		var err error
		if b.pins[i], err = p.Clone(); err == nil {
			t := s.outputs[i]
			if len(t.Shape) == 0 {
				b.scalars[i], err = newScalarValue(b.pins[i].Bytes()[:t.Bytes()], t.DType)
			} else {
				b.values[i], err = ort.NewCustomDataTensor(ort.Shape(t.Shape), b.pins[i].Bytes()[:t.Bytes()], ortDType(t.DType))
			}
		}
		if err != nil {
			b.destroy()
			return fmt.Errorf("%s: output slot %d: output %q: %w", s.name, slot, s.outputs[i].Name, err)
		}
	}
	cur := s.table.Load()
	next := cur.clone()
	for len(next.out) <= slot {
		next.out = append(next.out, nil)
	}
	made := make([]*ort.IoBinding, len(next.in))
	for i, ib := range next.in {
		if ib == nil {
			continue
		}
		var err error
		if made[i], err = s.pair(ib, b); err != nil {
			for _, io := range made {
				if io != nil {
					io.Destroy()
				}
			}
			b.destroy()
			return fmt.Errorf("%s: input slot %d with output slot %d: %w", s.name, i, slot, err)
		}
	}
	old := next.out[slot]
	var oldIO []*ort.IoBinding
	for i := range next.pairs {
		row := make([]*ort.IoBinding, len(next.out))
		copy(row, next.pairs[i])
		if io := row[slot]; io != nil {
			oldIO = append(oldIO, io)
		}
		row[slot] = made[i]
		next.pairs[i] = row
	}
	next.out[slot] = b
	s.table.Store(next)
	if old != nil {
		// Replaced: destroyed once the runs that may write it are done.
		s.afterRuns(func() {
			for _, io := range oldIO {
				io.Destroy()
			}
			old.destroy()
		})
	}
	s.stats.outputBinds.Add(1)
	return nil
}

// pair makes the IoBinding for one (input slot, output slot) pair.
func (s *Session) pair(in *inBinding, out *outBinding) (*ort.IoBinding, error) {
	io, err := s.sess.CreateIoBinding()
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime IoBinding: %w", err)
	}
	if err := io.BindInput(s.input.Name, in.bound); err != nil {
		io.Destroy()
		return nil, fmt.Errorf("binding input %q: %w", s.input.Name, err)
	}
	for i, v := range out.values {
		var err error
		if sv := out.scalars[i]; sv != nil {
			err = sv.bindOutput(io, s.outputs[i].Name)
		} else {
			err = io.BindOutput(s.outputs[i].Name, v)
		}
		if err != nil {
			io.Destroy()
			return nil, fmt.Errorf("binding output %q: %w", s.outputs[i].Name, err)
		}
	}
	return io, nil
}

func (s *Session) outputNames() string {
	var b []byte
	for i, t := range s.outputs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, t.String()...)
	}
	return string(b)
}

// InputBinding describes an input slot's binding.
type InputBinding struct {
	Slot      int
	PinAddr   uintptr // the slot's pinned address
	PinLen    int     // the pin's length
	Alignment uintptr // the pin's alignment
	// Addr is where ONNX Runtime reads the slot's input: PinAddr when it
	// reads the frame in place, the session's conversion tensor when not.
	Addr uintptr
	// Conversion says what each run of the slot converts, and why; ""
	// when ONNX Runtime reads the pin in place.
	Conversion string
}

func (b *inBinding) info() InputBinding {
	i := InputBinding{Slot: b.slot, PinAddr: b.pin.Addr(), PinLen: b.pin.Len(), Alignment: b.pin.Alignment(), Addr: b.addr}
	if b.plan != nil {
		i.Conversion = b.plan.desc
	}
	return i
}

// InputBinding returns slot's current binding, if it is bound. It does
// not allocate.
func (s *Session) InputBinding(slot int) (InputBinding, bool) {
	t := s.table.Load()
	if t == nil || slot < 0 || slot >= len(t.in) || t.in[slot] == nil {
		return InputBinding{}, false
	}
	return t.in[slot].info(), true
}

// InputBindings returns the current input bindings, by slot.
func (s *Session) InputBindings() []InputBinding {
	t := s.table.Load()
	if t == nil {
		return nil
	}
	var out []InputBinding
	for _, b := range t.in {
		if b != nil {
			out = append(out, b.info())
		}
	}
	return out
}
