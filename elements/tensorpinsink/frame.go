package tensorpinsink

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
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

// frameState is where a frame record is in its cycle.
type frameState uint8

const (
	frameFree      frameState = iota
	frameFilling              // taken by the streaming thread, not delivered yet
	frameHeld                 // delivered: the application owns it
	frameReleasing            // Release is tearing it down
)

// frameRecord is one of the sink's max-leases frame records.
type frameRecord struct {
	lessor *leases
	index  int // position in the lessor's table
	// gen changes whenever a delivered frame ends (Release or abandon),
	// under lessor.mu; reads are atomic so Frame's getters take no lock.
	gen atomic.Uint64
	// state and closed are guarded by lessor.mu.
	state  frameState
	closed bool // the bracket was left (by Release, or by stop for a held frame)

	// Written by the streaming thread while filling; read-only while held.
	entry     *pincache.Entry
	lease     gstc.Lease
	pin       pin.HostPin
	pts, dur  uint64
	caps      string
	slot      int
	newSlot   bool
	copied    bool
	access    tensor.Access
	announced bool            // a GstTensorSync begin announced this buffer
	sync      tensorsync.Info // that begin event
}

// live returns f's record if f is not stale.
func (f Frame) live() *frameRecord {
	if f.r == nil || f.r.gen.Load() != f.gen {
		return nil
	}
	return f.r
}

// releasedPin is what Pin returns for a stale frame: valid to call, holds
// nothing.
var releasedPin pin.HostPin

// Valid reports whether the frame has not been released yet.
func (f Frame) Valid() bool { return f.live() != nil }

// Tensor returns the frame's tensor (layout from the caps and
// GstVideoMeta), or nil for a stale frame. It is borrowed: valid until
// Release, not to be closed.
func (f Frame) Tensor() *tensor.Tensor {
	if r := f.live(); r != nil {
		return r.entry.Tensor()
	}
	return nil
}

// Pin returns the frame's pin: the address of the first element, stable
// for every frame of the same slot. It is borrowed; Clone it to keep the
// address beyond Release (the mapping then outlives the element too). For
// a stale frame it is a released pin (Clone fails, Bytes is nil).
func (f Frame) Pin() *pin.HostPin {
	if r := f.live(); r != nil {
		return &r.pin
	}
	return &releasedPin
}

// Bytes returns the frame's bytes (the padded extent: rows with their
// stride), or nil for a stale frame. Valid until Release.
func (f Frame) Bytes() []byte {
	if r := f.live(); r != nil {
		return r.pin.Bytes()
	}
	return nil
}

// PTS returns the buffer's presentation timestamp, or -1 if it had none
// (or the frame is stale).
func (f Frame) PTS() time.Duration {
	if r := f.live(); r != nil {
		return clockTime(r.pts)
	}
	return -1
}

// Duration returns the buffer's duration, or -1 if it had none (or the
// frame is stale).
func (f Frame) Duration() time.Duration {
	if r := f.live(); r != nil {
		return clockTime(r.dur)
	}
	return -1
}

func clockTime(t uint64) time.Duration {
	if t == gstc.ClockTimeNone {
		return -1
	}
	return time.Duration(t)
}

// Caps returns the caps the frame was negotiated with, as a string
// (gst.NewCapsFromString parses it); the tensor's layout already reflects
// them. "" for a stale frame.
func (f Frame) Caps() string {
	if r := f.live(); r != nil {
		return r.caps
	}
	return ""
}

// Slot returns the pool slot: a small index that stays with the same buffer
// (dma-buf) while it stays in the pin cache, so a runtime can bind the
// slot's address once. -1 for a stale frame.
func (f Frame) Slot() int {
	if r := f.live(); r != nil {
		return r.slot
	}
	return -1
}

// NewSlot reports whether this frame is the first of its slot (the slot's
// buffer was just imported and pinned): the moment to bind its address.
func (f Frame) NewSlot() bool {
	r := f.live()
	return r != nil && r.newSlot
}

// Copied reports whether the buffer was not fd memory and was copied into
// the sink's own pinned memory.
func (f Frame) Copied() bool {
	r := f.live()
	return r != nil && r.copied
}

// Buffer returns the GstBuffer with a new reference the caller owns, or
// nil for a stale frame (it allocates a wrapper; not needed on the
// per-frame path).
func (f Frame) Buffer() *gst.Buffer {
	if r := f.live(); r != nil {
		return r.lease.Buffer()
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
