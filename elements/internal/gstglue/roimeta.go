package gstglue

// roimeta.go: GStreamer 1.22's own region-of-interest metadata, which any
// C or Python application reads without this project: a
// GstVideoRegionOfInterestMeta per object, in frame pixels, with a
// "detection" params structure (label, class-id, confidence).

/*
#include <string.h>
#include "roimeta.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// ROI is one region of interest as the meta holds it.
type ROI struct {
	// Type is the meta's roi_type: the object's label, or a kind of
	// region ("classification" for a whole-frame result).
	Type       string
	X, Y, W, H uint
	ID         int // the meta's id, unique in its buffer
	ParentID   int // -1: none
	// Detection is whether the "detection" params structure is there;
	// Label, ClassID and Confidence are its fields.
	Detection  bool
	Label      string
	ClassID    int
	Confidence float64
}

// ErrBufferNotWritable: a meta cannot be added to a buffer others share.
var ErrBufferNotWritable = errors.New("gstc: buffer is not writable")

// AddROI adds r to buf (borrowed, writable) as a
// GstVideoRegionOfInterestMeta with a "detection" structure (label left
// out when empty); r.ID is ignored (the meta's own is returned). The
// metas belong to buf.
func AddROI(buf RawBuffer, r ROI) (int, error) {
	typ := C.CString(r.Type)
	defer C.free(unsafe.Pointer(typ))
	var label *C.gchar
	if r.Label != "" {
		label = C.CString(r.Label)
		defer C.free(unsafe.Pointer(label))
	}
	id := C.gstc_roi_add(buf.p, typ, C.guint(r.X), C.guint(r.Y), C.guint(r.W), C.guint(r.H),
		C.gint(r.ParentID), label, C.gint(r.ClassID), C.gdouble(r.Confidence))
	if id < 0 {
		return 0, ErrBufferNotWritable
	}
	return int(id), nil
}

// ROIs returns buf's regions of interest (buf borrowed), in the order
// they were added; their strings are copied.
func ROIs(buf RawBuffer) []ROI {
	var small [16]C.GstcRoi
	n := C.gstc_roi_list(buf.p, &small[0], C.guint(len(small)))
	cs := small[:min(int(n), len(small))]
	if int(n) > len(small) {
		big := make([]C.GstcRoi, n)
		n = C.gstc_roi_list(buf.p, &big[0], n)
		cs = big[:n]
	}
	out := make([]ROI, len(cs))
	for i, c := range cs {
		r := ROI{Type: C.GoString(c._type), X: uint(c.x), Y: uint(c.y), W: uint(c.w), H: uint(c.h),
			ID: int(c.id), ParentID: int(c.parent_id), Detection: c.has_detection != 0}
		if r.Detection {
			if c.label != nil {
				r.Label = C.GoString(c.label)
			}
			r.ClassID, r.Confidence = int(c.class_id), float64(c.confidence)
		}
		out[i] = r
	}
	return out
}
