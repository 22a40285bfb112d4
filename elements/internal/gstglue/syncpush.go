package gstglue

// syncpush.go: GstTensorSync events pushed through a pad from a few
// events the pad keeps. Building an event — a structure of seven fields,
// each a GValue, and the event around it — and freeing it cost about
// 0.4 µs on this project's test VM, most of what a frame's event costs
// (the push itself about 0.17 µs); an element sends one or two a frame.
// A pushed event comes back to the pad's cache when every receiver has
// dropped it, and is rewritten in place for the next one.

/*
#include "syncpush.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// pushTensorSync pushes a GstTensorSync event for ts through pad in
// direction dir (see gstc_push_tensor_sync: a cached event that no one
// else holds, rewritten, or a new one). It reports whether the event was
// handled; an invalid ts is not sent. pad is borrowed. No Go allocation.
func pushTensorSync(pad *C.GstPad, dir tensorsync.Direction, ts tensorsync.Info) bool {
	if pad == nil || !tensorsync.Valid(dir, ts) {
		return false
	}
	return gobool(C.gstc_push_tensor_sync_fields(pad, cbool(dir == tensorsync.Upstream),
		C.int(ts.Phase), C.int(ts.Access), C.guint64(ts.Dev), C.guint64(ts.Ino),
		C.guint64(ts.Offset), C.guint64(ts.PTS), C.guint(ts.Seqnum)))
}

// eventRefCount is the reference count of a GstEvent (for tests).
func eventRefCount(ev unsafe.Pointer) int {
	return int((*C.GstEvent)(ev).mini_object.refcount)
}

// eventSeqnum is GST_EVENT_SEQNUM of a GstEvent (for tests).
func eventSeqnum(ev unsafe.Pointer) uint32 {
	return uint32(C.gst_event_get_seqnum((*C.GstEvent)(ev)))
}
