package tensorpinsink

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// ErrStaleFrame: a Frame used after its Release. The sink recycles its
// frame records, so a stale Frame must not reach the buffer its record
// now describes; every method checks the frame's generation instead.
var ErrStaleFrame = errors.New("tensorpinsink: frame already released")

// Frame is one buffer delivered to the application as a pinned tensor.
//
// A Frame is a small value (copy it freely): a frame record of the sink
// and the generation it was delivered with. Until Release the record holds
// a lease on the GstBuffer (the buffer stays out of its pool), its
// pin-cache entry and a pin, and the frame is inside the CPU-access
// bracket of its buffer: read the bytes between delivery and Release.
// After Release (by any copy of the Frame) the Frame is stale: Release
// returns ErrStaleFrame, Valid false, Bytes nil, Tensor nil and Pin a
// released pin — it never acts on the buffer its record serves next.
type Frame struct {
	r   *frameRecord
	gen uint64
}

// frameState is where a Go record is in its cycle.
type frameState uint8

const (
	frameFree frameState = iota
	frameHeld            // delivered: the application owns it
)

// framePlane is one tensor of a delivered frame.
type framePlane struct {
	// view is the plane's lent tensor and pin, owned by its cache entry
	// (which the frame's lease holds a reference on): what the getters
	// hand out stays the entry's, never the record's, so it cannot come
	// to name the next buffer the record carries.
	view  *pincache.PlaneView
	entry int // index into frameRecord.mems
}

// frameRecord is what a Go consumer's Frame reads of one of the
// engine's max-leases leases.
type frameRecord struct {
	lessor *leases
	index  int // the lease's index in the engine
	// gen changes when a delivered frame is released, under lessor.mu and
	// readMu. Frame's getters hold readMu (read side) while they check gen
	// and read the record, so a Release through another copy cannot
	// recycle the record — and the streaming thread refill it — in
	// between: a getter reads its frame or nothing.
	gen    atomic.Uint64
	readMu sync.RWMutex
	// state and cgen (the engine's generation of the lease) are guarded
	// by lessor.mu.
	state frameState
	cgen  uint64

	// Written by the streaming thread while delivering; read-only while
	// held. mems are the distinct pinned regions of the frame (one per
	// memory, or the lease's copy).
	nmem    int
	mems    [maxPlanes]*pincache.Entry
	views   [maxPlanes]*pincache.ViewSet // per mems entry: its planes' views, a reference each
	newSlot [maxPlanes]bool
	nplanes int
	planes  [maxPlanes]framePlane

	pts, dur uint64
	caps     string
	copied   bool
}

// lock returns f's record with its readMu read-locked if f is not stale
// (the caller unlocks), or nil.
func (f Frame) lock() *frameRecord {
	r := f.r
	if r == nil {
		return nil
	}
	r.readMu.RLock()
	if r.gen.Load() != f.gen {
		r.readMu.RUnlock()
		return nil
	}
	return r
}

// plane returns plane i's view of a live frame, or nil.
func (f Frame) plane(i int) *pincache.PlaneView {
	r := f.lock()
	if r == nil {
		return nil
	}
	defer r.readMu.RUnlock()
	if i < 0 || i >= r.nplanes {
		return nil
	}
	return r.planes[i].view
}

// releasedPin is what Pin returns for a stale frame: valid to call, holds
// nothing.
var releasedPin pin.HostPin

// Valid reports whether the frame has not been released yet.
func (f Frame) Valid() bool { return f.r != nil && f.r.gen.Load() == f.gen }

// Planes returns the number of the frame's tensors: 1 for packed video
// and a single tensor, 2 or 3 for planar video (NV12: luma [H, W] and
// interleaved chroma [H/2, W/2, 2]; I420: luma and two chroma planes),
// one per tensor of other/tensors. 0 for a stale frame.
func (f Frame) Planes() int {
	if r := f.lock(); r != nil {
		defer r.readMu.RUnlock()
		return r.nplanes
	}
	return 0
}

// Tensor is PlaneTensor(0): the frame for packed video and one tensor.
func (f Frame) Tensor() *tensor.Tensor { return f.PlaneTensor(0) }

// Pin is PlanePin(0).
func (f Frame) Pin() *pin.HostPin { return f.PlanePin(0) }

// Bytes is PlaneBytes(0).
func (f Frame) Bytes() []byte { return f.PlaneBytes(0) }

// Slot is PlaneSlot(0).
func (f Frame) Slot() int { return f.PlaneSlot(0) }

// NewSlot is PlaneNewSlot(0).
func (f Frame) NewSlot() bool { return f.PlaneNewSlot(0) }

// PlaneTensor returns plane i's tensor (its layout from the caps and
// GstVideoMeta: shape, row stride, offset in its memory), or nil for a
// stale frame or no such plane. It is lent (tensor.Lend): Close, Reshape
// and bracket calls on it return tensor.ErrLent, so the application
// cannot unbalance or reshape the frames that follow; Map, PinHost, View
// and Alias work. It stays the tensor of this plane's buffer memory (the
// same one for every frame of the slot) until the sink lets go of that
// memory; read its bytes only until Release.
func (f Frame) PlaneTensor(i int) *tensor.Tensor {
	if v := f.plane(i); v != nil {
		return v.Tensor
	}
	return nil
}

// PlanePin returns plane i's pin: the address of its first element, the
// same for every frame of its slot. It is borrowed; Clone it to keep the
// address beyond Release (the mapping then outlives the element too). The
// pointer belongs to the slot, not to the frame: kept past Release it
// still names this plane's memory (whose content the producer may
// rewrite) or, once the sink lets go of that memory, reads as released —
// it never comes to name another buffer. For a stale frame or no such
// plane it is a released pin (Clone fails, Bytes is nil).
func (f Frame) PlanePin(i int) *pin.HostPin {
	if v := f.plane(i); v != nil {
		return &v.Pin
	}
	return &releasedPin
}

// PlaneBytes returns plane i's bytes (its padded extent: rows with their
// stride), or nil. Valid until Release.
func (f Frame) PlaneBytes(i int) []byte {
	if v := f.plane(i); v != nil {
		return v.Pin.Bytes()
	}
	return nil
}

// PlaneSlot returns the pool slot of the memory holding plane i: a small
// index that stays with the same buffer memory (dma-buf) while it stays
// in the pin cache, so a runtime can bind the plane's address once per
// slot. Planes in one memory share a slot. Slot numbers are the sink's:
// one is not given to another memory while any pin of it lives, across
// stops and restarts. -1 for a stale frame or no such plane.
func (f Frame) PlaneSlot(i int) int {
	r := f.lock()
	if r == nil {
		return -1
	}
	defer r.readMu.RUnlock()
	if i < 0 || i >= r.nplanes {
		return -1
	}
	return r.mems[r.planes[i].entry].Slot()
}

// PlaneNewSlot reports whether plane i's memory was just imported and
// pinned (this is the first frame of its slot): the moment to bind.
func (f Frame) PlaneNewSlot(i int) bool {
	r := f.lock()
	if r == nil {
		return false
	}
	defer r.readMu.RUnlock()
	return i >= 0 && i < r.nplanes && r.newSlot[r.planes[i].entry]
}

// PTS returns the buffer's presentation timestamp, or -1 if it had none
// (or the frame is stale).
func (f Frame) PTS() time.Duration {
	if r := f.lock(); r != nil {
		defer r.readMu.RUnlock()
		return clockTime(r.pts)
	}
	return -1
}

// Duration returns the buffer's duration, or -1 if it had none (or the
// frame is stale).
func (f Frame) Duration() time.Duration {
	if r := f.lock(); r != nil {
		defer r.readMu.RUnlock()
		return clockTime(r.dur)
	}
	return -1
}

func clockTime(t uint64) time.Duration {
	if t == gstglue.ClockTimeNone {
		return -1
	}
	return time.Duration(t)
}

// Caps returns the caps the frame was negotiated with, as a string
// (gst.NewCapsFromString parses it); the tensors' layouts already reflect
// them. "" for a stale frame.
func (f Frame) Caps() string {
	if r := f.lock(); r != nil {
		defer r.readMu.RUnlock()
		return r.caps
	}
	return ""
}

// Copied reports whether the buffer was not fd memory and was copied into
// the sink's own pinned memory.
func (f Frame) Copied() bool {
	if r := f.lock(); r != nil {
		defer r.readMu.RUnlock()
		return r.copied
	}
	return false
}

// Buffer returns the GstBuffer with a new reference the caller owns, or
// nil for a stale frame (it allocates a wrapper; not needed on the
// per-frame path).
func (f Frame) Buffer() *gst.Buffer {
	if r := f.lock(); r != nil {
		defer r.readMu.RUnlock()
		l := r.lessor.engine.LeaseBuffer(r.index, r.cgen)
		defer l.Release()
		return l.Buffer()
	}
	return nil
}

// Release ends the frame: leaves the buffer's CPU-access bracket
// (SyncForDevice; the END ioctl if this sink was the last reader inside)
// and, for a buffer announced by a GstTensorSync begin event, tells
// upstream with a phase=end event; then releases the pin, the cache entry
// and the buffer, and lets the streaming thread go on if it waited for a
// lease. Any goroutine may call it, once per frame: a second call (through
// any copy of the Frame) does nothing and returns ErrStaleFrame.
func (f Frame) Release() error {
	if f.r == nil {
		return ErrStaleFrame
	}
	return f.r.lessor.release(f.r, f.gen)
}
