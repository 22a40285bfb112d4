package tensorsrc

import (
	"fmt"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// slotState says who has a slot.
type slotState uint8

const (
	slotFree     slotState = iota
	slotApp                // acquired by the application (pattern=app)
	slotOpening            // taken by Acquire, waiting for its fences (e.mu not held)
	slotQueued             // pushed by the application, awaiting create
	slotInFlight           // in a buffer that has not been freed yet
)

// Slot is one tensor of the ring: its storage, its pin (made once) and
// its persistent GstMemory (wrapped once, pushed in every buffer of the
// slot, taken back when its last user drops it). The application may use
// a slot from Acquire until it pushes or discards it.
type Slot struct {
	// Fields other than r, idx, t, pin, m, id are guarded by element.mu.
	r   *ring
	idx int
	t   *tensor.Tensor
	pin pin.HostPin
	m   gstc.RawMemory // the slot's memory (pointer identity never changes)
	id  tensor.Identity

	// held: the ring (or the application holding the slot) owns a
	// reference of m — while free, app or queued; in flight the buffers
	// own it, and it comes back through onReturn. Always false for a
	// built-in pattern's slot: the C ring holds its reference.
	held  bool
	state slotState
	open  bool   // a CPU bracket opened by us is open on t
	seq   uint32 // seqnum of that bracket (the frame number)
	pts   uint64 // app: PTS given to Push
	// freedAt orders the free slots: the ring's freeClock when the slot
	// last became free (0: never used). takeFreeLocked takes the highest.
	freedAt uint64
}

// ring is the set of slots for one negotiated format.
//
// With a built-in pattern the slots' states — free or in a buffer, the
// write bracket open or not — are kept in C (out, a gstc.OutRing), where
// the create trampoline makes a steady frame (gstc.SrcSteady) and a
// memory's return, on any thread, leaves the slot's bracket and frees it,
// neither calling into Go: a C streaming thread that calls into Go keeps
// a Go P, and Go's sysmon then never sleeps deeply (docs/design-notes.md,
// "A source with no Go in its frame"). Go takes, opens and pushes a slot
// the same way for the frames it makes, and its Slot's state fields are
// unused. pattern=app keeps them in Go (out nil): the application's
// Acquire, Push and Discard move its slots through states C has not.
type ring struct {
	el     *element
	stats  *runStats
	format capslayout.Format
	slots  []*Slot
	mring  *gstc.MemRing
	out    *gstc.OutRing // built-in patterns; nil for pattern=app
	// freeClock counts the slots' transitions to free (Slot.freedAt).
	freeClock uint64
	closed    bool // retired: slots are not reused

	// video meta of every buffer (hasVMeta false for other/tensors),
	// prepared once: attaching it allocates nothing. vmetaErr is the
	// preparation's error, reported at each create as attaching it was.
	hasVMeta bool
	vmeta    *gstc.VideoMetaLayout
	vmetaErr error
}

// newRing allocates n tensors for format f from b. Each is pinned once
// and wrapped once as a recyclable GstMemory: when its last user drops it
// the ring takes it back (the C ring, out, when inC: a built-in pattern;
// else onReturn); once the ring is retired it is freed instead, and its
// release releases the pin and closes the tensor.
func newRing(e *element, f capslayout.Format, b backendChoice, ends gstc.EndTally, n int, stats *runStats, inC bool, wake gstc.Wake) (*ring, error) {
	g, err := f.Layout().Geometry()
	if err != nil {
		return nil, err
	}
	size := max(f.FrameSize, f.Layout().Offset+g.Extent)
	if inC && n > gstc.MaxOutSlots {
		return nil, fmt.Errorf("a ring of %d tensors: at most %d", n, gstc.MaxOutSlots)
	}
	r := &ring{el: e, stats: stats, format: f, slots: make([]*Slot, 0, n)}
	r.mring = gstc.NewMemRing(ends, r.onReturn)
	if inC {
		// A free slot wakes the C frame's wait (the element's wake).
		r.out = gstc.NewOutRing(stats.c, nil)
		r.out.SetWake(wake)
	}
	if f.Media == capslayout.MediaVideo {
		r.hasVMeta = true
		r.vmeta, r.vmetaErr = gstc.PrepareVideoMeta(f.VideoFormat, f.Width, f.Height, []int{g.Stride}, []int{f.Layout().Offset})
	}
	for i := 0; i < n; i++ {
		sl, err := newSlot(r, i, f.Layout(), size, b)
		if err != nil {
			e.mu.Lock()
			r.closed = true
			e.mu.Unlock()
			if r.out != nil {
				r.out.Close() // drops the memories it holds
			} else {
				for _, s := range r.slots {
					gstc.UnrefRingMemory(s.m)
				}
			}
			r.mring.Close()
			return nil, fmt.Errorf("tensor %d of %d (%d bytes) from %s: %w", i+1, n, size, b.name, err)
		}
		r.slots = append(r.slots, sl)
	}
	return r, nil
}

func newSlot(r *ring, i int, l tensor.Layout, size int, b backendChoice) (*Slot, error) {
	// Allocate the whole frame as bytes (a padded video frame is larger
	// than the tensor's extent), then give the tensor its real layout.
	t, err := tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{size}},
		tensor.AllocOptions{Source: b.source, Name: fmt.Sprintf("tensorsrc-%d", i)})
	if err != nil {
		return nil, err
	}
	if err := t.Reshape(l); err != nil {
		t.Close()
		return nil, err
	}
	p, err := t.PinHost()
	if err != nil {
		t.Close()
		return nil, err
	}
	r.stats.mmaps.Add(1)
	sl := &Slot{r: r, idx: i, t: t, id: t.Identity()}
	sl.pin = p.Move()
	// The memory never closes the fd (DONT_CLOSE): the tensor owns it and
	// is closed by the release, after GStreamer's last reference is gone.
	release := func() {
		sl.pin.Release()
		sl.t.Close()
	}
	dmabuf := t.Backend() == tensor.BackendDMABuf
	id := i
	if r.out != nil {
		id = i * gstc.MaxOutTensors // the OutRing's memory id: slot i, tensor 0
	}
	m, err := r.mring.Wrap(dmabuf, t.FD(), size, id, release)
	if err != nil {
		release()
		return nil, err
	}
	sl.m, sl.held = m, true
	if r.out != nil {
		// The reference is the C ring's from here on.
		ot := gstc.OutTensor{Mem: m, Tensor: t, Dev: sl.id.Dev, Ino: sl.id.Ino, Off: uint64(t.Offset())}
		k, err := r.out.AddSlot([]gstc.OutTensor{ot})
		if err != nil {
			gstc.UnrefRingMemory(m) // not the ring's: AddSlot took nothing
			return nil, err
		}
		sl.held = false
		if k != i {
			// Slots are added in order, so this cannot happen; if it did,
			// the memory is the C ring's now, and its Close drops it.
			return nil, fmt.Errorf("the C ring made tensor %d its slot %d", i, k)
		}
	}
	return sl, nil
}

// takeFreeLocked returns the free slot freed last, or nil. Most recently
// freed first keeps the frames' working set in the CPU cache: when every
// frame comes back before the next is made, one slot is written and read
// over and over, and the ring's other slots serve only the frames still
// in flight (a round-robin ring rotated all of them through the cache).
// Never-used slots come last, lowest index first.
func (r *ring) takeFreeLocked() *Slot {
	if r.closed {
		return nil
	}
	var newest *Slot
	for _, sl := range r.slots {
		if sl.state == slotFree && (newest == nil || sl.freedAt > newest.freedAt) {
			newest = sl
		}
	}
	return newest
}

// freeLocked makes sl free, the first to be taken again
// (takeFreeLocked). Every transition to slotFree goes through it.
func (sl *Slot) freeLocked() {
	sl.state = slotFree
	sl.r.freeClock++
	sl.freedAt = sl.r.freeClock
}

// closeBracketLocked leaves our bracket on sl (SyncForDevice). The
// bracket belongs to the dma-buf and is shared with every reader that
// joined it (tensor.SyncForCPU); the last one out does the END ioctl —
// with handoff=adopt that is us, since every reader holds the memory we
// are waiting for.
func (sl *Slot) closeBracketLocked() {
	if !sl.open {
		return
	}
	sl.open = false
	ended, err := sl.t.EndCPUAccess(tensor.AccessReadWrite)
	if err != nil {
		sl.r.stats.syncErrors.Add(1)
		cat.LogError(fmt.Sprintf("slot %d: closing bracket %d: %v", sl.idx, sl.seq, err))
	}
	sl.r.stats.closed.Add(1)
	if ended {
		sl.r.stats.ended.Add(1)
	}
}

// onReturn runs when the last user of slot idx's memory drops it (any
// thread; the memory and tensor are still valid): every reader is done,
// so the slot's bracket is left here — the END ioctl of the frame — and
// the slot is free again, unless the ring is retired, in which case the
// memory is let go (freed).
func (r *ring) onReturn(idx int, seqnum uint32) (keep bool) {
	e := r.el
	e.mu.Lock()
	defer e.mu.Unlock()
	if idx < 0 || idx >= len(r.slots) {
		return false
	}
	sl := r.slots[idx]
	if sl.state == slotInFlight && sl.seq == seqnum {
		sl.closeBracketLocked()
		sl.freeLocked()
	}
	if r.closed {
		sl.held = false
		if st := e.st; st != nil && r.doneLocked() {
			st.pruneRetiredLocked()
		}
		return false
	}
	sl.held = true
	e.cond.Broadcast()
	return true
}

// retired collects what retireLocked hands back to do outside the lock
// (dropping a ring memory's last reference calls onReturn, which locks).
type retired struct {
	mems     []gstc.RawMemory
	mrings   []*gstc.MemRing
	outs     []*gstc.OutRing
	closed   int // brackets closed at retirement
	inFlight int // slots still in buffers downstream
	appHeld  int // slots held by the application
}

// retireLocked stops reusing r: queued slots have their bracket closed,
// the ring's memory references are collected to drop; slots in flight are
// freed when they come back, and app-held slots when the application
// pushes or discards them.
func (r *ring) retireLocked(rel *retired) {
	if r.closed {
		return
	}
	r.closed = true
	rel.mrings = append(rel.mrings, r.mring)
	if r.out != nil {
		// C frees the slots downstream as they come back; Close (in
		// finish) drops the others.
		rel.outs = append(rel.outs, r.out)
		rel.inFlight += r.out.Busy()
		return
	}
	for _, sl := range r.slots {
		switch sl.state {
		case slotApp, slotOpening:
			// The application (or the Acquire waiting for the slot's
			// fences) releases it.
			rel.appHeld++
			continue
		case slotQueued:
			if sl.open {
				rel.closed++
			}
			sl.closeBracketLocked()
			sl.freeLocked()
		case slotInFlight:
			rel.inFlight++
		}
		if sl.held {
			rel.mems = append(rel.mems, sl.m)
			sl.held = false
		}
	}
}

// doneLocked reports whether r is retired with nothing of it out any
// more: no slot in a buffer downstream, held by the application, or
// keeping its memory.
func (r *ring) doneLocked() bool {
	if !r.closed {
		return false
	}
	if r.out != nil {
		return true // its slots are C's
	}
	for _, sl := range r.slots {
		if sl.held || sl.state == slotInFlight || sl.state == slotApp {
			return false
		}
	}
	return true
}

// pruneRetiredLocked forgets the retired rings that are done, so a stream
// renegotiated again and again keeps only the rings whose slots are still
// out (no allocation).
func (st *state) pruneRetiredLocked() {
	kept := st.retired[:0]
	for _, r := range st.retired {
		if !r.doneLocked() {
			kept = append(kept, r)
		}
	}
	clear(st.retired[len(kept):])
	st.retired = kept
}

// finish drops the collected references; memories no buffer holds are
// freed now (their release closes the tensors).
func (rel *retired) finish() {
	for _, m := range rel.mems {
		gstc.UnrefRingMemory(m)
	}
	for _, r := range rel.outs {
		r.Close()
	}
	for _, r := range rel.mrings {
		r.Close()
	}
}
