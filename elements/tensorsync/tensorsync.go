// Package tensorsync builds and reads GstTensorSync events: the protocol
// by which gst-tensorpin's elements tell the rest of a pipeline about the
// CPU-access bracket of each fd-backed buffer. Third-party Go elements and
// pad probes use it; C code includes gsttensorsync.h from this directory,
// which documents the same format.
//
// # Event format
//
// A custom event (gst_event_new_custom) whose structure is named
// "GstTensorSync" with exactly these fields, all required:
//
//	phase   G_TYPE_STRING  "begin" or "end"
//	access  G_TYPE_STRING  "read", "write" or "readwrite"
//	dev     G_TYPE_UINT64  st_dev of the buffer's file (fstat of its fd)
//	ino     G_TYPE_UINT64  st_ino of the buffer's file
//	offset  G_TYPE_UINT64  byte offset of the tensor in that file
//	pts     G_TYPE_UINT64  PTS of the buffer in ns; ClockTimeNone if none
//	seqnum  G_TYPE_UINT    frame number: a begin and the ends about the
//	                       same frame carry the same value
//
// (dev, ino) identify a dma-buf or memfd across dup'd fds and imports.
// phase=begin travels downstream (GST_EVENT_CUSTOM_DOWNSTREAM, which is
// serialized) right before the buffer it announces: the producer has
// opened the buffer's CPU-access bracket (DMA_BUF_IOCTL_SYNC START for
// access), and the bracket stays open until the buffer's last holder frees
// it — every CPU reader in between works inside it. phase=end travels
// upstream (GST_EVENT_CUSTOM_UPSTREAM): one reader downstream is done with
// that frame (tensorpinsink sends one per delivered frame, so a tee with
// two of them sends two). Serialized (gst_structure_to_string) a begin
// reads
//
//	GstTensorSync, phase=(string)begin, access=(string)readwrite,
//	dev=(guint64)5, ino=(guint64)1234, offset=(guint64)0,
//	pts=(guint64)33333333, seqnum=(uint)7;
//
// The bracket itself is not carried by the event: it belongs to the buffer
// (package tensor's shared brackets), so readers that import the buffer
// with package tensor join it whether or not they see the event.
package tensorsync

/*
#cgo pkg-config: gstreamer-1.0
#cgo noescape gst_tensor_sync_event_parse
#cgo nocallback gst_tensor_sync_event_parse
#cgo noescape gst_tensor_sync_event_new
#cgo nocallback gst_tensor_sync_event_new
#include "gsttensorsync.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// StructureName is the name of the event's structure (and of the bus
// messages the elements post about brackets).
const StructureName = "GstTensorSync"

// The structure's field names.
const (
	FieldPhase  = "phase"
	FieldAccess = "access"
	FieldDev    = "dev"
	FieldIno    = "ino"
	FieldOffset = "offset"
	FieldPTS    = "pts"
	FieldSeqnum = "seqnum"
)

// ErrInvalid: NewEvent was given a phase, access or direction out of range.
var ErrInvalid = errors.New("tensorsync: invalid event")

// Phase is what an event says about the bracket.
type Phase int

const (
	PhaseBegin Phase = 1 // downstream: the bracket is open, the buffer follows
	PhaseEnd   Phase = 2 // upstream: a reader is done with the frame
)

// phaseNames are the names String gives, by value.
var phaseNames = [...]string{
	PhaseBegin: "begin",
	PhaseEnd:   "end",
}

func (p Phase) String() string {
	if uint64(p) < uint64(len(phaseNames)) && phaseNames[p] != "" {
		return phaseNames[p]
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

// ClockTimeNone is GST_CLOCK_TIME_NONE, for Info.PTS.
const ClockTimeNone = ^uint64(0)

// Info holds the fields of a GstTensorSync event.
type Info struct {
	Phase  Phase
	Access Access
	Dev    uint64
	Ino    uint64
	Offset uint64
	PTS    uint64 // ns, or ClockTimeNone
	Seqnum uint32
}

// Direction selects the event type NewEvent builds.
type Direction int

const (
	// Downstream builds a GST_EVENT_CUSTOM_DOWNSTREAM (serialized) event,
	// to push from a source pad; used for phase begin.
	Downstream Direction = 1
	// Upstream builds a GST_EVENT_CUSTOM_UPSTREAM event, to push from a
	// sink pad; used for phase end.
	Upstream Direction = 2
)

// Valid reports whether info and dir make an event NewEvent can build.
func Valid(dir Direction, info Info) bool {
	return (info.Phase == PhaseBegin || info.Phase == PhaseEnd) && info.Access >= AccessRead &&
		info.Access <= AccessReadWrite && (dir == Downstream || dir == Upstream)
}

// NewEvent builds a GstTensorSync event. The returned wrapper owns the only
// reference; go-gst's Pad.PushEvent and Element.SendEvent add their own.
// An invalid phase, access or direction is ErrInvalid.
func NewEvent(dir Direction, info Info) (*gst.Event, error) {
	if !Valid(dir, info) {
		return nil, fmt.Errorf("%w: phase %v, access %v, direction %d", ErrInvalid, info.Phase, info.Access, dir)
	}
	ev := NewEventC(dir, info)
	if ev == nil {
		return nil, fmt.Errorf("%w: gst_event_new_custom failed", ErrInvalid)
	}
	return gst.FromGstEventUnsafeFull(ev), nil
}

// NewEventC builds the event and returns it as a raw GstEvent pointer with
// the caller's full reference (nil when invalid): for code that pushes it
// through C without a go-gst wrapper.
func NewEventC(dir Direction, info Info) unsafe.Pointer {
	if !Valid(dir, info) {
		return nil
	}
	c := C.GstTensorSyncInfo{
		phase:  C.int(info.Phase),
		access: C.int(info.Access),
		dev:    C.guint64(info.Dev),
		ino:    C.guint64(info.Ino),
		offset: C.guint64(info.Offset),
		pts:    C.guint64(info.PTS),
		seqnum: C.guint(info.Seqnum),
	}
	return unsafe.Pointer(C.gst_tensor_sync_event_new(C.gboolean(gboolean(dir == Upstream)), &c))
}

// Parse reads a GstTensorSync event. ok is false if ev is not a custom
// event named GstTensorSync, lacks a field or has one of the wrong type.
// ev is borrowed (no reference taken or dropped), so Parse can be called
// on the event handed to an event vfunc or a pad probe. One cgo call, no
// allocation.
func Parse(ev *gst.Event) (info Info, ok bool) {
	if ev == nil {
		return info, false
	}
	return ParseC(unsafe.Pointer(ev.Instance()))
}

// ParseC is Parse for a raw GstEvent pointer (borrowed).
func ParseC(ev unsafe.Pointer) (info Info, ok bool) {
	if ev == nil {
		return info, false
	}
	var c C.GstTensorSyncInfo
	if C.gst_tensor_sync_event_parse((*C.GstEvent)(ev), &c) == 0 {
		return info, false
	}
	return InfoFromC(unsafe.Pointer(&c)), true
}

// InfoFromC reads the GstTensorSyncInfo (gsttensorsync.h) that p points
// at, borrowed: for a cgo layer that parses the event in C
// (gst_tensor_sync_event_parse) and hands the struct to Go. No allocation.
func InfoFromC(p unsafe.Pointer) Info {
	c := (*C.GstTensorSyncInfo)(p)
	return Info{
		Phase:  Phase(c.phase),
		Access: Access(c.access),
		Dev:    uint64(c.dev),
		Ino:    uint64(c.ino),
		Offset: uint64(c.offset),
		PTS:    uint64(c.pts),
		Seqnum: uint32(c.seqnum),
	}
}

func gboolean(b bool) int {
	if b {
		return 1
	}
	return 0
}
