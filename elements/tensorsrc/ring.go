package tensorsrc

import (
	"fmt"
	"sync/atomic"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Slot is one tensor of the ring: its storage, its pin (made once) and
// its persistent GstMemory (wrapped once, pushed in every buffer of the
// slot). Whether it is free, queued, downstream or open for writing is
// kept in C, in the ring's frameengine.OutRing; the application may use a slot
// from Acquire until it pushes or discards it (acquired).
type Slot struct {
	r   *ring
	idx int
	t   *tensor.Tensor
	pin pin.HostPin
	id  tensor.Identity
	// acquired: the application holds the slot (Acquire until Push or
	// Discard). Guarded by element.mu.
	acquired bool
}

// ring is the set of slots for one negotiated format. The slots' states
// — free, taken, queued by the application, in a buffer, the write
// bracket open or not — are kept in C (out, a frameengine.OutRing), where the
// create trampoline makes every frame (srcFrame) and a memory's
// return, on any thread, leaves the slot's bracket and frees it, neither
// calling into Go: a C streaming thread that calls into Go keeps a Go P,
// and Go's sysmon then never sleeps deeply (docs/design-notes.md, "A
// source with no Go in its frame"). The application's Acquire takes a
// slot from out as create does, and a free wakes its wait.
type ring struct {
	el     *element
	stats  *runStats
	format capslayout.Format
	slots  []*Slot // guarded by element.mu once the ring is current: it grows
	out    *frameengine.OutRing
	closed bool // retired: slots are not reused (guarded by element.mu)

	// What a slot is made of (newSlot), for the ring's growth: each
	// tensor's size and backend.
	size    int
	backend backendChoice
	// maxSlots: the most slots the ring grows to (max-pool-size, or its
	// size when that is no more; grow.go). growOff: an allocation for
	// the growth failed, the ring grows no more (guarded by element.mu).
	// growAfter: how long the application's Acquire waits for a free
	// slot before the ring grows (ns; create's is the C frame's own).
	maxSlots  int
	growOff   bool
	growAfter atomic.Int64

	// video meta of every buffer (hasVMeta false for other/tensors),
	// prepared once: attaching it allocates nothing. vmetaErr is the
	// preparation's error, reported at each create as attaching it was.
	hasVMeta bool
	vmeta    *gstglue.VideoMetaLayout
	vmetaErr error
}

// newRing allocates n tensors for format f from b. Each is pinned once
// and wrapped once as a recyclable GstMemory: when its last user drops it
// the C ring (out) takes it back; once the ring is retired it is freed
// instead, and its release releases the pin and closes the tensor.
// A free slot signals wake: the C frame's wait's (the element's), or
// with pattern=app the application's Acquire's.
func newRing(e *element, f capslayout.Format, b backendChoice, ends frameengine.EndTally, n, maxSlots int, stats *runStats, wake frameengine.Wake) (*ring, error) {
	g, err := f.Layout().Geometry()
	if err != nil {
		return nil, err
	}
	size := max(f.FrameSize, f.Layout().Offset+g.Extent)
	if n > frameengine.MaxOutSlots {
		return nil, fmt.Errorf("a ring of %d tensors: at most %d", n, frameengine.MaxOutSlots)
	}
	r := &ring{el: e, stats: stats, format: f, slots: make([]*Slot, 0, n), size: size, backend: b,
		maxSlots: min(max(maxSlots, n), frameengine.MaxOutSlots)}
	r.growAfter.Store(int64(growAfterFirst))
	r.out = frameengine.NewOutRing(stats.c, ends)
	r.out.SetWake(wake)
	if f.Media == capslayout.MediaVideo {
		r.hasVMeta = true
		r.vmeta, r.vmetaErr = gstglue.PrepareVideoMeta(f.VideoFormat, f.Width, f.Height, []int{g.Stride}, []int{f.Layout().Offset})
	}
	for i := 0; i < n; i++ {
		sl, err := newSlot(r, i, f.Layout(), false)
		if err != nil {
			e.mu.Lock()
			r.closed = true
			e.mu.Unlock()
			r.out.Close() // drops the memories it holds
			return nil, fmt.Errorf("tensor %d of %d (%d bytes) from %s: %w", i+1, n, size, b.name, err)
		}
		r.slots = append(r.slots, sl)
	}
	return r, nil
}

// allocTensor allocates a slot's tensor: tensor.Alloc, a variable so
// that this package's tests can make an allocation fail (a ring that
// cannot grow); production code never reassigns it.
var allocTensor = tensor.Alloc

// newSlot allocates, pins and wraps slot i of r (layout l) and adds it
// to the C ring: free, or taken for the caller (a slot the ring grew
// while others take from it: grow.go).
func newSlot(r *ring, i int, l tensor.Layout, taken bool) (*Slot, error) {
	size, b := r.size, r.backend
	// Allocate the whole frame as bytes (a padded video frame is larger
	// than the tensor's extent), then give the tensor its real layout.
	t, err := allocTensor(tensor.Layout{DType: tensor.U8, Shape: []int{size}},
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
	// The OutRing's memory id: slot i, tensor 0.
	m, err := r.out.Wrap(dmabuf, t.FD(), size, i*frameengine.MaxOutTensors, release)
	if err != nil {
		release()
		return nil, err
	}
	// The reference is the C ring's from here on.
	ot := frameengine.OutTensor{Mem: m, Tensor: t, Dev: sl.id.Dev, Ino: sl.id.Ino, Off: uint64(t.Offset())}
	add := r.out.AddSlot
	if taken {
		add = r.out.AddTakenSlot
	}
	k, err := add([]frameengine.OutTensor{ot})
	if err != nil {
		frameengine.UnrefRingMemory(m) // not the ring's: AddSlot took nothing
		return nil, err
	}
	if k != i {
		// Slots are added in order, so this cannot happen; if it did,
		// the memory is the C ring's now, and its Close drops it (a
		// taken slot's once given back).
		if taken {
			r.out.Give(k)
		}
		return nil, fmt.Errorf("the C ring made tensor %d its slot %d", i, k)
	}
	return sl, nil
}

// release gives back a slot the application held (Discard, or a Push
// or Acquire that failed): its write bracket is left and the slot freed
// — or, once its ring is retired, its memory dropped (the C ring kept it
// for the application). e.mu not held: a free may wake an Acquire.
func (sl *Slot) release() {
	sl.r.out.CloseWrites(sl.idx)
	sl.r.out.Give(sl.idx)
}

// retired collects what retireLocked hands back to do outside the lock.
type retired struct {
	outs     []*frameengine.OutRing
	inFlight int // slots still in buffers downstream
	appHeld  int // slots held by the application
}

// retireLocked stops reusing r: its C ring is closed in finish (the
// memories it holds dropped); slots in flight are freed when they come
// back, and app-held slots when the application pushes or discards
// them. The application's queue was given back first (srcFrame.SetRing).
func (r *ring) retireLocked(rel *retired) {
	if r.closed {
		return
	}
	r.closed = true
	rel.outs = append(rel.outs, r.out)
	held := 0
	for _, sl := range r.slots {
		if sl.acquired {
			held++
		}
	}
	rel.appHeld += held
	rel.inFlight += max(r.out.Busy()-held, 0)
}

// finish closes the retired rings: memories no buffer or application
// holds are freed now (their release closes the tensors).
func (rel *retired) finish() {
	for _, r := range rel.outs {
		r.Close()
	}
}
