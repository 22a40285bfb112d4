package tensorpinsink

import (
	"sync/atomic"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Frame is one buffer delivered to the application as a pinned tensor.
//
// A Frame holds a lease on its GstBuffer (the buffer stays out of its pool),
// its pin-cache entry and a pin until Release. The CPU-access bracket is
// open while the frame is held: read the tensor's bytes between delivery
// and Release. Release exactly once (further calls do nothing) and do not
// use the Frame afterwards: frames are recycled.
type Frame struct {
	lessor   *leases
	index    int // position in the lessor's frame table
	entry    *pincache.Entry
	lease    gstc.Lease
	pin      pin.HostPin
	pts, dur uint64
	caps     string
	slot     int
	newSlot  bool
	copied   bool
	access   tensor.Access
	adopted  bool // the bracket was opened upstream (GstTensorSync begin)
	sync     gstc.TensorSync
	released atomic.Bool
	// closed is set when the bracket has been closed (by Release or, for a
	// frame still held then, by the element's stop).
	closed atomic.Bool
}

// Tensor returns the frame's tensor (layout from the caps and GstVideoMeta).
// It is borrowed: valid until Release, not to be closed.
func (f *Frame) Tensor() *tensor.Tensor { return f.entry.Tensor() }

// Pin returns the frame's pin: the address of the first element, stable for
// every frame of the same slot. It is borrowed; Clone it to keep the address
// beyond Release (the mapping then outlives the element too).
func (f *Frame) Pin() *pin.HostPin { return &f.pin }

// Bytes returns the frame's bytes (the padded extent: rows with their
// stride). Valid until Release.
func (f *Frame) Bytes() []byte { return f.pin.Bytes() }

// PTS returns the buffer's presentation timestamp, or -1 if it had none.
func (f *Frame) PTS() time.Duration { return clockTime(f.pts) }

// Duration returns the buffer's duration, or -1 if it had none.
func (f *Frame) Duration() time.Duration { return clockTime(f.dur) }

func clockTime(t uint64) time.Duration {
	if t == gstc.ClockTimeNone {
		return -1
	}
	return time.Duration(t)
}

// Caps returns the caps the frame was negotiated with, as a string
// (gst.NewCapsFromString parses it); the tensor's layout already reflects
// them.
func (f *Frame) Caps() string { return f.caps }

// Slot returns the pool slot: a small index that stays with the same buffer
// (dma-buf) while it stays in the pin cache, so a runtime can bind the
// slot's address once.
func (f *Frame) Slot() int { return f.slot }

// NewSlot reports whether this frame is the first of its slot (the slot's
// buffer was just imported and pinned): the moment to bind its address.
func (f *Frame) NewSlot() bool { return f.newSlot }

// Copied reports whether the buffer was not fd memory and was copied into
// the sink's own pinned memory.
func (f *Frame) Copied() bool { return f.copied }

// Buffer returns the GstBuffer with a new reference the caller owns (it
// allocates a wrapper; not needed on the per-frame path).
func (f *Frame) Buffer() *gst.Buffer { return f.lease.Buffer() }

// Release ends the frame: closes the CPU-access bracket (SyncForDevice; and
// for an adopted bracket, sends GstTensorSync phase=end upstream), releases
// the pin, the cache entry and the buffer, and lets the streaming thread go
// on if it waited for a lease. Only the first call does anything.
func (f *Frame) Release() {
	if f == nil || !f.released.CompareAndSwap(false, true) {
		return
	}
	l := f.lessor
	if f.closed.CompareAndSwap(false, true) {
		l.closeBracket(f)
	}
	f.pin.Release()
	f.entry.Release()
	f.entry = nil
	f.lease.Release()
	f.lease = gstc.Lease{}
	l.give(f)
}
