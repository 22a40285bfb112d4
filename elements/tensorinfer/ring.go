package tensorinfer

import (
	"fmt"
	"sync"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
)

// outTensor is one output tensor of an output slot: pinned memory
// (dma-heap, else memfd) allocated once, pinned once, bound once as an
// ONNX Runtime output, and wrapped once as a recyclable fd GstMemory that
// comes back to the ring when its last holder drops it. The tensor and
// its pin live until the memory is freed (its release).
type outTensor struct {
	t   *tensor.Tensor
	pin pin.HostPin
	m   gstglue.RawMemory
	id  tensor.Identity
}

// outSlot is one output slot: one tensor per model output.
type outSlot struct {
	idx     int
	tensors []*outTensor
}

// ring is the output ring of one session. Which slots are free, which
// memories are downstream and which write brackets are open is kept in C
// (frameengine.OutRing), where the frame engine takes a slot and a memory's
// return — on any thread — leaves its write bracket and frees its slot,
// the slot freed last handed out first (most recently freed first keeps
// the outputs' working set in the CPU cache: when every frame comes back
// before the next run, one slot is written and read over and over;
// never-used slots come last, lowest index first). The slot is freed only
// after its memories' write brackets are left: taken at once by the
// streaming thread, it would otherwise join the old bracket instead of
// opening its own (one START and one END for two frames on a dma-buf).
//
// Go keeps each slot's tensors (their ownership) in slots, guarded by mu,
// which is never held across a wait, a push or an unref of a ring memory.
type ring struct {
	mu     sync.Mutex
	slots  []*outSlot
	c      *frameengine.OutRing
	closed bool
	stats  *counters
}

// newRing allocates n output slots for the session's outputs and binds
// each once (engine BindOutput). On error everything allocated is freed.
func newRing(sess *infer.Session, n int, stats *counters, cc frameengine.Counters) (*ring, error) {
	outs := sess.Outputs()
	if len(outs) > capslayout.MaxTensors || len(outs) > frameengine.MaxOutTensors {
		return nil, fmt.Errorf("the model has %d outputs; other/tensors carries at most %d", len(outs), capslayout.MaxTensors)
	}
	r := &ring{stats: stats}
	r.c = frameengine.NewOutRing(cc, frameengine.EndTally{})
	if err := r.grow(sess, n); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// grow adds slots, each bound once, until the ring has n: downstream's
// allocation answer says it holds that many output frames at once (a
// tensorpinsink's leases), and a smaller ring would make this element
// wait for a slot while downstream waits for a frame. Called by newRing
// and on the streaming thread (decide_allocation), which alone adds
// slots. A slot that cannot be made is an error; the ring keeps the
// slots it has.
func (r *ring) grow(sess *infer.Session, n int) error {
	outs := sess.Outputs()
	n = min(n, frameengine.MaxOutSlots)
	for {
		r.mu.Lock()
		i := len(r.slots)
		r.mu.Unlock()
		if i >= n {
			return nil
		}
		sl, err := r.makeSlot(sess, i, outs)
		if err != nil {
			return fmt.Errorf("output slot %d of %d: %w", i+1, n, err)
		}
		ts := make([]frameengine.OutTensor, len(sl.tensors))
		for k, ot := range sl.tensors {
			ts[k] = frameengine.OutTensor{Mem: ot.m, Tensor: ot.t, Dev: ot.id.Dev, Ino: ot.id.Ino, Off: uint64(ot.t.Offset())}
		}
		idx, err := r.c.AddSlot(ts)
		if err != nil || idx != i {
			// A closed ring (or one full): its memories are freed.
			sl.drop()
			return nil
		}
		r.mu.Lock()
		r.slots = append(r.slots, sl)
		r.mu.Unlock()
		r.stats.ringSize.Store(uint64(i + 1))
	}
}

// makeSlot makes slot i, not yet in the ring: its memories, pinned and
// bound once as the session's output slot i. On error what it made is
// freed.
func (r *ring) makeSlot(sess *infer.Session, i int, outs []infer.TensorInfo) (*outSlot, error) {
	sl := &outSlot{idx: i}
	pins := make([]*pin.HostPin, len(outs))
	for k, o := range outs {
		l := o.Layout()
		if len(l.Shape) == 0 {
			// A scalar output (rank 0) is one element, as its caps say
			// ("1"); package tensor has no rank 0.
			l.Shape = []int{1}
		}
		t, err := tensor.Alloc(l, tensor.AllocOptions{Name: fmt.Sprintf("tensorinfer-out-%d-%d", i, k)})
		if err != nil {
			sl.drop()
			return nil, fmt.Errorf("output %q: %w", o.Name, err)
		}
		p, err := t.PinHost()
		if err != nil {
			t.Close()
			sl.drop()
			return nil, fmt.Errorf("output %q: %w", o.Name, err)
		}
		r.stats.mmaps.Add(1)
		ot := &outTensor{t: t, id: t.Identity()}
		ot.pin = p.Move()
		release := func() {
			ot.pin.Release()
			ot.t.Close()
		}
		m, err := r.c.Wrap(t.Backend() == tensor.BackendDMABuf, t.FD(), o.Bytes(), i*frameengine.MaxOutTensors+k, release)
		if err != nil {
			release()
			sl.drop()
			return nil, fmt.Errorf("output %q: %w", o.Name, err)
		}
		ot.m = m
		sl.tensors = append(sl.tensors, ot)
		pins[k] = &ot.pin
	}
	if err := sess.BindOutput(i, pins...); err != nil {
		sl.drop()
		return nil, err
	}
	return sl, nil
}

// drop frees the memories of a slot that is not in the ring (their
// release closes the tensors).
func (sl *outSlot) drop() {
	for _, ot := range sl.tensors {
		frameengine.UnrefRingMemory(ot.m)
	}
	sl.tensors = nil
}

// close retires the ring: memories it holds are dropped now (their write
// brackets left first; freed: their release closes the tensors),
// memories downstream are freed when they come back. Call with no lock
// held; idempotent.
func (r *ring) close() {
	r.mu.Lock()
	closed := r.closed
	r.closed = true
	r.mu.Unlock()
	if closed {
		return
	}
	r.c.Close()
}

// slotPins returns pins over output slot k's tensors, each narrowed to
// the bytes of outs' tensor (a shape no larger than the slot's), for a
// reshaped session's outputs: the caller releases them.
func (r *ring) slotPins(k int, outs []infer.TensorInfo) ([]*pin.HostPin, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if k < 0 || k >= len(r.slots) || len(r.slots[k].tensors) != len(outs) {
		return nil, fmt.Errorf("output slot %d of %d has no tensors for %d outputs", k, len(r.slots), len(outs))
	}
	pins := make([]*pin.HostPin, len(outs))
	for i, o := range outs {
		p, err := r.slots[k].tensors[i].pin.Narrow(0, o.Bytes())
		if err != nil {
			for _, q := range pins[:i] {
				q.Release()
			}
			return nil, fmt.Errorf("output %q (%d bytes) in output slot %d: %w", o.Name, o.Bytes(), k, err)
		}
		pins[i] = &p
	}
	return pins, nil
}
