package tensorinfer

import (
	"fmt"
	"sync"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
)

// outTensor is one output tensor of an output slot: pinned memory
// (dma-heap, else memfd) allocated once, pinned once, bound once as an
// ONNX Runtime output, and wrapped once as a recyclable fd GstMemory that
// comes back to the ring when its last holder drops it.
type outTensor struct {
	t   *tensor.Tensor
	pin pin.HostPin
	m   gstc.RawMemory
	id  tensor.Identity
	// held: the ring owns m's reference (the slot is free); out: m is in
	// a buffer downstream; open: our write bracket is open on t.
	held, out, open bool
}

// outSlot is one output slot: one tensor per model output.
type outSlot struct {
	idx     int
	tensors []*outTensor
	busy    bool // from take until every memory came back
	pending int  // memories still downstream
	// freedAt orders the free slots: the ring's freeClock when the slot
	// last became free (0: never used). take hands out the highest.
	freedAt uint64
}

// ring is the output ring of one run (or one output format). Its mutex
// guards the slots' state; it is never held across a wait, a push, a
// bus post or an unref of a ring memory (which re-enters onReturn).
type ring struct {
	mu    sync.Mutex
	slots []*outSlot
	mring *gstc.MemRing
	// freeClock counts the slots' transitions to free (outSlot.freedAt).
	freeClock uint64
	closed    bool
	// freed is signalled (without blocking) when a slot becomes free.
	freed chan struct{}
	stats *counters
	// endWriteHook, when set (tests), runs inside endWrite, after the
	// write bracket is left.
	endWriteHook func()
}

// newRing allocates n output slots for the session's outputs and binds
// each once (engine BindOutput). On error everything allocated is freed.
func newRing(sess *infer.Session, n int, stats *counters) (*ring, error) {
	outs := sess.Outputs()
	if len(outs) > capslayout.MaxTensors {
		return nil, fmt.Errorf("the model has %d outputs; other/tensors carries at most %d", len(outs), capslayout.MaxTensors)
	}
	r := &ring{freed: make(chan struct{}, 1), stats: stats}
	r.mring = gstc.NewMemRing(gstc.EndTally{}, r.onReturn)
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
	for {
		r.mu.Lock()
		i, closed := len(r.slots), r.closed
		r.mu.Unlock()
		if closed || i >= n {
			return nil
		}
		sl, err := r.makeSlot(sess, i, outs)
		if err != nil {
			return fmt.Errorf("output slot %d of %d: %w", i+1, n, err)
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			sl.drop()
			return nil
		}
		r.slots = append(r.slots, sl)
		r.mu.Unlock()
		r.stats.ringSize.Store(uint64(i + 1))
		r.signal()
	}
}

// makeSlot makes slot i, not yet in the ring: its memories, pinned and
// bound once as the session's output slot i. On error what it made is
// freed.
func (r *ring) makeSlot(sess *infer.Session, i int, outs []infer.TensorInfo) (*outSlot, error) {
	sl := &outSlot{idx: i}
	pins := make([]*pin.HostPin, len(outs))
	for k, o := range outs {
		t, err := tensor.Alloc(o.Layout(), tensor.AllocOptions{Name: fmt.Sprintf("tensorinfer-out-%d-%d", i, k)})
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
		m, err := r.mring.Wrap(t.Backend() == tensor.BackendDMABuf, t.FD(), o.Bytes(), i*capslayout.MaxTensors+k, release)
		if err != nil {
			release()
			sl.drop()
			return nil, fmt.Errorf("output %q: %w", o.Name, err)
		}
		ot.m, ot.held = m, true
		sl.tensors = append(sl.tensors, ot)
		pins[k] = &ot.pin
	}
	if err := sess.BindOutput(i, pins...); err != nil {
		sl.drop()
		return nil, err
	}
	return sl, nil
}

// drop frees the memories of a slot that is not in the ring: their
// return finds no slot of that index, so they are freed (their release
// closes the tensors).
func (sl *outSlot) drop() {
	for _, ot := range sl.tensors {
		ot.held = false
		gstc.UnrefRingMemory(ot.m)
	}
	sl.tensors = nil
}

// take returns the free slot freed last, or nil. Most recently freed
// first keeps the outputs' working set in the CPU cache (as tensorsrc's
// ring and the proposed pool): when every frame comes back before the
// next run, one slot is written and read over and over, and the ring's
// other slots serve only the frames still downstream (round-robin
// rotated all of them through the cache). Never-used slots come last,
// lowest index first.
func (r *ring) take() *outSlot {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	var newest *outSlot
	for _, sl := range r.slots {
		if !sl.busy && (newest == nil || sl.freedAt > newest.freedAt) {
			newest = sl
		}
	}
	if newest != nil {
		newest.busy = true
	}
	return newest
}

// freeLocked makes sl free, the first to be taken again (take). Every
// transition of a slot to free goes through it; r.mu is held.
func (r *ring) freeLocked(sl *outSlot) {
	sl.busy = false
	r.freeClock++
	sl.freedAt = r.freeClock
}

// give puts back a slot taken but not pushed (a failed run).
func (r *ring) give(sl *outSlot) {
	r.mu.Lock()
	r.freeLocked(sl)
	r.mu.Unlock()
	r.signal()
}

func (r *ring) signal() {
	select {
	case r.freed <- struct{}{}:
	default:
	}
}

// onReturn runs when the last holder of an output memory drops it (any
// thread): our write bracket on it is left (the END ioctl when no reader
// is still inside), and when every memory of the slot is back — each
// one's bracket left — the slot is free again. A closed ring lets the
// memory be freed.
//
// The slot is freed only after the END: take hands out the slot freed
// last first, so a slot freed before its memory's bracket is left would
// be taken at once by a streaming thread on another thread, whose
// BeginCPUAccess would join the old bracket instead of opening its own
// (one START and one END for two frames on a dma-buf).
func (r *ring) onReturn(id int, _ uint32) (keep bool) {
	idx, k := id/capslayout.MaxTensors, id%capslayout.MaxTensors
	r.mu.Lock()
	if idx < 0 || idx >= len(r.slots) || k >= len(r.slots[idx].tensors) {
		r.mu.Unlock()
		return false
	}
	sl := r.slots[idx]
	ot := sl.tensors[k]
	wasOut := ot.out
	ot.out = false
	open := ot.open
	ot.open = false
	closed := r.closed
	ot.held = !closed
	r.mu.Unlock()
	if open {
		r.endWrite(ot)
	}
	if wasOut {
		r.mu.Lock()
		sl.pending--
		if sl.pending == 0 {
			r.freeLocked(sl)
		}
		r.mu.Unlock()
	}
	if closed {
		return false
	}
	r.signal()
	return true
}

func (r *ring) endWrite(ot *outTensor) {
	if _, err := ot.t.EndCPUAccess(tensor.AccessReadWrite); err != nil {
		cat.LogWarning(fmt.Sprintf("ending the write bracket of an output tensor: %v", err))
	}
	r.stats.outBracketsClosed.Add(1)
	if r.endWriteHook != nil {
		r.endWriteHook()
	}
}

// close retires the ring: memories it holds are dropped now (freed: their
// release closes the tensors), memories downstream are freed when they
// come back. Call with no lock held; idempotent.
func (r *ring) close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	var drop []gstc.RawMemory
	var ends []*outTensor
	for _, sl := range r.slots {
		for _, ot := range sl.tensors {
			if ot.held {
				drop = append(drop, ot.m)
				ot.held = false
				if ot.open {
					ot.open = false
					ends = append(ends, ot)
				}
			}
		}
	}
	r.mu.Unlock()
	for _, ot := range ends {
		r.endWrite(ot)
	}
	for _, m := range drop {
		gstc.UnrefRingMemory(m)
	}
	r.mring.Close()
}
