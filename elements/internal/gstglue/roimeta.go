package gstglue

// roimeta.go: GStreamer 1.22's own region-of-interest metadata, which any
// C or Python application reads without this project: a
// GstVideoRegionOfInterestMeta per object, in frame pixels, with the
// params structures of the project's conventions (docs/design.md):
// "detection" (label, class-id, confidence), any number of
// "classification" (label, class-id, confidence, model) and "tracking"
// (id, age, state).

/*
#include <string.h>
#include "roimeta.h"
*/
import "C"

import (
	"errors"
	"fmt"
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
	// Tracked is whether the "tracking" params structure is there;
	// TrackID, TrackAge and TrackState are its fields (id, age, state;
	// zero or empty when the structure lacks one).
	Tracked    bool
	TrackID    uint64
	TrackAge   uint64
	TrackState string
}

// Classification is one "classification" params structure of a region:
// a second model's class (or, with ClassID -1, a recognised text).
type Classification struct {
	Label      string  // "" when the structure has none
	ClassID    int     // -1 when the structure has none
	Confidence float64 // 0 when the structure has none
	Model      string  // the model that produced it; "" when not named
}

// Region is a region of interest with its classifications, in the order
// they were added. ROI stays comparable with ==; Region is not.
type Region struct {
	ROI
	Classifications []Classification
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

// AddRegion adds a region of type typ at (x, y) w×h, parent parentID
// (-1: none), to buf (borrowed, writable) as a
// GstVideoRegionOfInterestMeta with no params structure — a model's
// result is added to it by its id (AddClassification) — numbered as
// AddROI numbers regions; returns its id. The metas belong to buf.
func AddRegion(buf RawBuffer, typ string, x, y, w, h uint, parentID int) (int, error) {
	t := C.CString(typ)
	defer C.free(unsafe.Pointer(t))
	id := C.gstc_roi_add_region(buf.p, t, C.guint(x), C.guint(y), C.guint(w), C.guint(h), C.gint(parentID))
	if id < 0 {
		return 0, ErrBufferNotWritable
	}
	return int(id), nil
}

// ErrNoRegion: a buffer has no region of interest of the id asked for.
var ErrNoRegion = errors.New("gstc: no region of interest of that id")

// AddClassification adds c to the region of buf (borrowed, writable)
// whose id is id, as a "classification" params structure after the ones
// it has (its label and model left out when empty, its class-id when
// negative), and returns the region's rectangle. Errors: ErrNoRegion,
// ErrBufferNotWritable.
func AddClassification(buf RawBuffer, id int, c Classification) (x, y, w, h uint, err error) {
	var label, model *C.gchar
	if c.Label != "" {
		label = C.CString(c.Label)
		defer C.free(unsafe.Pointer(label))
	}
	if c.Model != "" {
		model = C.CString(c.Model)
		defer C.free(unsafe.Pointer(model))
	}
	var rect [4]C.guint
	switch C.gstc_roi_add_classification(buf.p, C.gint(id), label, C.gint(c.ClassID), C.gdouble(c.Confidence), model, &rect[0]) {
	case C.GSTC_ROI_NO_REGION:
		return 0, 0, 0, 0, fmt.Errorf("region %d: %w", id, ErrNoRegion)
	case C.GSTC_ROI_NOT_WRITABLE:
		return 0, 0, 0, 0, ErrBufferNotWritable
	}
	return uint(rect[0]), uint(rect[1]), uint(rect[2]), uint(rect[3]), nil
}

// TrackedRegions fills ids and tracks with the region id and the
// "tracking" structure's id of each region of buf (borrowed) that has
// one, in the order they were added, as many as the shorter slice holds;
// it returns how many buf has (more than fit: call again with longer
// slices). Allocates nothing.
func TrackedRegions(buf RawBuffer, ids []int32, tracks []uint64) int {
	n := min(len(ids), len(tracks))
	var pi *C.gint
	var pt *C.guint64
	if n > 0 {
		pi, pt = (*C.gint)(unsafe.Pointer(&ids[0])), (*C.guint64)(unsafe.Pointer(&tracks[0]))
	}
	return int(C.gstc_roi_tracked(buf.p, pi, pt, C.guint(n)))
}

// ROIs returns buf's regions of interest (buf borrowed), in the order
// they were added; their strings are copied.
func ROIs(buf RawBuffer) []ROI {
	rs := Regions(buf)
	out := make([]ROI, len(rs))
	for i := range rs {
		out[i] = rs[i].ROI
	}
	return out
}

// Regions returns buf's regions of interest (buf borrowed) with every
// params kind, in the order they were added; their strings are copied.
// (The per-frame readers are in C: gstc_roi_list_full.)
func Regions(buf RawBuffer) []Region {
	var small [16]C.GstcRoi
	var smallc [16]C.GstcRoiClass
	var nc C.guint
	n := C.gstc_roi_list_full(buf.p, &small[0], C.guint(len(small)), &smallc[0], C.guint(len(smallc)), &nc)
	cs, cc := small[:], smallc[:]
	if int(n) > len(small) || int(nc) > len(smallc) {
		cs, cc = make([]C.GstcRoi, n+1), make([]C.GstcRoiClass, nc+1)
		n = C.gstc_roi_list_full(buf.p, &cs[0], C.guint(len(cs)), &cc[0], C.guint(len(cc)), &nc)
	}
	cs = cs[:min(int(n), len(cs))]
	out := make([]Region, len(cs))
	for i, c := range cs {
		r := ROI{Type: C.GoString(c._type), X: uint(c.x), Y: uint(c.y), W: uint(c.w), H: uint(c.h),
			ID: int(c.id), ParentID: int(c.parent_id), Detection: c.has_detection != 0, Tracked: c.has_tracking != 0}
		if r.Detection {
			r.Label = goStringOrEmpty(c.label)
			r.ClassID, r.Confidence = int(c.class_id), float64(c.confidence)
		}
		if r.Tracked {
			r.TrackID, r.TrackAge = uint64(c.track_id), uint64(c.track_age)
			r.TrackState = goStringOrEmpty(c.track_state)
		}
		out[i].ROI = r
		for _, k := range cc[min(int(c.class_first), len(cc)):min(int(c.class_first+c.n_classes), len(cc))] {
			out[i].Classifications = append(out[i].Classifications, Classification{Label: goStringOrEmpty(k.label),
				ClassID: int(k.class_id), Confidence: float64(k.confidence), Model: goStringOrEmpty(k.model)})
		}
	}
	return out
}

func goStringOrEmpty(s *C.gchar) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// roiNumberingVisits is how many metas AddROI has visited to number the
// regions it added, since the process started (for the tests of its cost).
func roiNumberingVisits() uint64 { return uint64(C.gstc_roi_numbering_visits()) }
