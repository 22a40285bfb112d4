package tensorinfer

// videoout.go: output=video — the input video pushed on with the frame's
// output tensors in a GstTensorPinMeta (package tensormeta) — as state on
// the element that its frame reads in C (gstc_infer_finish_frame), and
// interval's reuse of the last result, decided in C before the frame
// runs.

/*
#include "videoout.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
)

// videoOut is an element's output=video state (C memory on the element,
// freed with it). The zero value is none.
type videoOut struct{ p *C.GstcVideoOut }

// videoOutOf returns self's state, attaching it on the first call.
func videoOutOf(self gstglue.RawElement) videoOut {
	return videoOut{C.gstc_video_out_attach(elemP(self))}
}

// Set switches output=video on or off, with interval (≥ 1: run every
// interval-th frame, the others get the last result), the tensors' caps
// (other/tensors, describing the output frame's memories; nil: none) and
// the transform. It forgets the last result. Any thread.
func (v videoOut) Set(on bool, interval int, tensorCaps *gst.Caps, t tensormeta.Transform) {
	v.setCaps(on, interval, tensorCaps, t)
	v.Reset()
}

// SetProducer names the element the results come from, self (its name
// now: at start): every meta it adds says so.
func (v videoOut) SetProducer(self gstglue.RawElement) {
	C.gstc_video_out_set_producer(v.p, elemP(self))
}

func (v videoOut) setCaps(on bool, interval int, tensorCaps *gst.Caps, t tensormeta.Transform) {
	var caps *C.GstCaps
	if tensorCaps != nil && tensorCaps.Unsafe() != nil {
		caps = C.gst_caps_ref((*C.GstCaps)(tensorCaps.Unsafe()))
	}
	C.g_mutex_lock(&v.p.lock)
	old := v.p.caps
	v.p.on = cbool(on)
	v.p.interval = C.gint(max(interval, 1))
	v.p.caps = caps
	v.p.model_width, v.p.model_height = C.guint(t.ModelWidth), C.guint(t.ModelHeight)
	v.p.scale_x, v.p.scale_y = C.gdouble(t.ScaleX), C.gdouble(t.ScaleY)
	v.p.offset_x, v.p.offset_y = C.gdouble(t.OffsetX), C.gdouble(t.OffsetY)
	C.g_mutex_unlock(&v.p.lock)
	if old != nil {
		C.gst_mini_object_unref((*C.GstMiniObject)(unsafe.Pointer(old)))
	}
}

// Reset forgets the last result (its ring slot returns when its other
// holders drop it) and the frame count: flush, stop, new caps.
func (v videoOut) Reset() { C.gstc_video_out_reset(v.p) }

// Reused counts the frames given an earlier run's result (interval).
func (v videoOut) Reused() uint64 {
	C.g_mutex_lock(&v.p.lock)
	defer C.g_mutex_unlock(&v.p.lock)
	return uint64(v.p.reused)
}

// ClearReused zeroes Reused (a new run's count).
func (v videoOut) ClearReused() {
	C.g_mutex_lock(&v.p.lock)
	v.p.reused = 0
	C.g_mutex_unlock(&v.p.lock)
}
