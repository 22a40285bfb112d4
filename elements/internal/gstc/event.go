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

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// The GstTensorSync types are package tensorsync's (the public protocol);
// these aliases keep the layer's signatures short.
type (
	TensorSync = tensorsync.Info
	Phase      = tensorsync.Phase
	Direction  = tensorsync.Direction
	Access     = tensor.Access
)

const (
	TensorSyncName  = tensorsync.StructureName
	PhaseBegin      = tensorsync.PhaseBegin
	PhaseEnd        = tensorsync.PhaseEnd
	Downstream      = tensorsync.Downstream
	Upstream        = tensorsync.Upstream
	AccessRead      = tensor.AccessRead
	AccessWrite     = tensor.AccessWrite
	AccessReadWrite = tensor.AccessReadWrite
)

// ClockTimeNone is GST_CLOCK_TIME_NONE.
const ClockTimeNone = ^uint64(0)

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
