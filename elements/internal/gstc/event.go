package gstc

/*
#cgo noescape gstc_tensor_sync_parse
#cgo nocallback gstc_tensor_sync_parse
#cgo noescape gstc_tensor_sync_new
#cgo nocallback gstc_tensor_sync_new
#include "gstc.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// TensorSyncName is the name of the GstTensorSync event structure.
//
// # Event format
//
// A GstTensorSync event brackets CPU access to one fd-backed region. It is
// a custom event (gst_event_new_custom) whose structure is named
// "GstTensorSync" and has exactly these fields, all required:
//
//	phase   G_TYPE_STRING  "begin" or "end"
//	access  G_TYPE_STRING  "read", "write" or "readwrite"
//	dev     G_TYPE_UINT64  st_dev of the underlying file (fstat of the fd)
//	ino     G_TYPE_UINT64  st_ino of the underlying file
//	offset  G_TYPE_UINT64  byte offset of the region in that file
//	pts     G_TYPE_UINT64  PTS of the buffer in ns (a GstClockTime);
//	                       G_MAXUINT64 (GST_CLOCK_TIME_NONE) if unknown
//	seqnum  G_TYPE_UINT    bracket number; begin and end of one bracket
//	                       carry the same value
//
// (dev, ino) identify a dma-buf or memfd across processes and dup'd fds.
// The "begin" event travels downstream as GST_EVENT_CUSTOM_DOWNSTREAM,
// which is serialized: it reaches each element just before the buffer it
// announces, after the producer did DMA_BUF_IOCTL_SYNC START for access.
// The "end" event travels upstream as GST_EVENT_CUSTOM_UPSTREAM once the
// sink has done DMA_BUF_IOCTL_SYNC END. In a pad probe (C):
//
//	const GstStructure *s = gst_event_get_structure (ev);
//	if (s && gst_structure_has_name (s, "GstTensorSync")) {
//	  guint64 pts; gst_structure_get_uint64 (s, "pts", &pts); ...
//	}
//
// Serialized (gst_structure_to_string) it reads
//
//	GstTensorSync, phase=(string)begin, access=(string)read,
//	dev=(guint64)5, ino=(guint64)1234, offset=(guint64)0,
//	pts=(guint64)33333333, seqnum=(uint)7;
const TensorSyncName = "GstTensorSync"

// Phase is the side of a CPU-access bracket.
type Phase int

const (
	PhaseBegin Phase = 1 // "begin": sync-for-CPU done, CPU access may start
	PhaseEnd   Phase = 2 // "end": CPU access over, sync-for-device done
)

func (p Phase) String() string {
	switch p {
	case PhaseBegin:
		return "begin"
	case PhaseEnd:
		return "end"
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// Access is the CPU access a bracket covers: package tensor's Access,
// whose values are the DMA_BUF_SYNC_READ/WRITE/RW bits of linux/dma-buf.h
// and whose names ("read", "write", "readwrite") the event carries.
type Access = tensor.Access

const (
	AccessRead      = tensor.AccessRead
	AccessWrite     = tensor.AccessWrite
	AccessReadWrite = tensor.AccessReadWrite
)

// ClockTimeNone is GST_CLOCK_TIME_NONE, for TensorSync.PTS.
const ClockTimeNone = ^uint64(0)

// TensorSync holds the fields of a GstTensorSync event (see
// TensorSyncName for the wire format).
type TensorSync struct {
	Phase  Phase
	Access Access
	Dev    uint64
	Ino    uint64
	Offset uint64
	PTS    uint64 // ns, or ClockTimeNone
	Seqnum uint32
}

// Direction selects the event type of NewTensorSyncEvent.
type Direction int

const (
	// Downstream builds a GST_EVENT_CUSTOM_DOWNSTREAM (serialized) event,
	// to push from a source pad; used for phase begin.
	Downstream Direction = 1
	// Upstream builds a GST_EVENT_CUSTOM_UPSTREAM event, to push from a
	// sink pad; used for phase end.
	Upstream Direction = 2
)

// NewTensorSyncEvent builds a GstTensorSync event. The returned wrapper
// owns the only reference; go-gst's Pad.PushEvent and Element.SendEvent
// add their own, so the wrapper's is dropped at garbage collection, which
// holds nothing but the event. It fails on an invalid phase, access or
// direction.
func NewTensorSyncEvent(dir Direction, ts TensorSync) (*gst.Event, error) {
	if ts.Phase != PhaseBegin && ts.Phase != PhaseEnd {
		return nil, fmt.Errorf("gstc: NewTensorSyncEvent: invalid phase %v", ts.Phase)
	}
	if ts.Access < AccessRead || ts.Access > AccessReadWrite {
		return nil, fmt.Errorf("gstc: NewTensorSyncEvent: invalid access %v", ts.Access)
	}
	if dir != Downstream && dir != Upstream {
		return nil, fmt.Errorf("gstc: NewTensorSyncEvent: invalid direction %d", dir)
	}
	ev := newTensorSync(dir, ts)
	if ev == nil {
		return nil, fmt.Errorf("gstc: NewTensorSyncEvent: cannot build event")
	}
	return gst.FromGstEventUnsafeFull(unsafe.Pointer(ev)), nil
}

// ParseTensorSyncEvent reads a GstTensorSync event. ok is false if ev is
// not a custom event named GstTensorSync or lacks a field or has one of
// the wrong type. ev is borrowed (no reference taken or dropped), so it
// can be called on the event handed to an event vfunc or pad probe. One
// cgo call, no allocation.
func ParseTensorSyncEvent(ev *gst.Event) (ts TensorSync, ok bool) {
	if ev == nil {
		return ts, false
	}
	var c C.GstcTensorSync
	if !gobool(C.gstc_tensor_sync_parse(evC(ev), &c)) {
		return ts, false
	}
	return tensorSyncFromC(&c), true
}

// IsSerializedEvent reports GST_EVENT_IS_SERIALIZED(ev): whether ev stays
// ordered with buffers. ev is borrowed.
func IsSerializedEvent(ev *gst.Event) bool {
	return gobool(C.gstc_event_is_serialized(evC(ev)))
}

// checkTensorSync validates what NewTensorSyncEvent validates.
func checkTensorSync(dir Direction, ts TensorSync) bool {
	return (ts.Phase == PhaseBegin || ts.Phase == PhaseEnd) && ts.Access >= AccessRead &&
		ts.Access <= AccessReadWrite && (dir == Downstream || dir == Upstream)
}

// newTensorSync builds the event in C and returns the caller's full
// reference (nil on failure).
func newTensorSync(dir Direction, ts TensorSync) *C.GstEvent {
	c := C.GstcTensorSync{
		phase:  C.int(ts.Phase),
		access: C.int(ts.Access),
		dev:    C.guint64(ts.Dev),
		ino:    C.guint64(ts.Ino),
		offset: C.guint64(ts.Offset),
		pts:    C.guint64(ts.PTS),
		seqnum: C.guint(ts.Seqnum),
	}
	up := C.int(0)
	if dir == Upstream {
		up = 1
	}
	return C.gstc_tensor_sync_new(up, &c)
}

// tensorSyncFromC converts the C form filled by gstc_tensor_sync_parse (and
// the ring memory's record) to TensorSync.
func tensorSyncFromC(c *C.GstcTensorSync) TensorSync {
	return TensorSync{
		Phase:  Phase(c.phase),
		Access: Access(c.access),
		Dev:    uint64(c.dev),
		Ino:    uint64(c.ino),
		Offset: uint64(c.offset),
		PTS:    uint64(c.pts),
		Seqnum: uint32(c.seqnum),
	}
}
