package results

// read.go: Frames filled from the regions gstc_roi_list_full reads
// (elements/internal/gstglue/roimeta.h): borrowed, for an element's frame
// in C, or copied, for a Go program.

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-allocators-1.0 gstreamer-video-1.0 gstreamer-base-1.0
#cgo CFLAGS: -I${SRCDIR}/../internal/gstglue -I${SRCDIR}/../tensorsync -I${SRCDIR}/../tensormeta
#include "roimeta.h"
*/
import "C"

import (
	"strings"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Reader makes a Frame's objects from the arrays an element's C frame
// read (gstc_roi_list_full), reusing its own memory: once its arrays are
// as large as the largest frame's, it allocates nothing. The zero Reader
// is ready. Not safe for concurrent use.
type Reader struct {
	objects []Object
	tracks  []Track
	classes []Classification
}

// Borrow sets f.Objects to the n regions at rois (a C array of GstcRoi)
// with the nc classifications at classes (a C array of GstcRoiClass), as
// gstc_roi_list_full filled them for one buffer. The strings are
// borrowed from that buffer's metas, and the objects from r: f is valid
// while the buffer is and until r's next Borrow, and must not be kept
// (Clone it to keep it). It is how tensorpublish makes a frame's JSON
// with no allocation.
func (r *Reader) Borrow(f *Frame, rois unsafe.Pointer, n int, classes unsafe.Pointer, nc int) {
	var cs []C.GstcRoi
	var cc []C.GstcRoiClass
	if n > 0 {
		cs = unsafe.Slice((*C.GstcRoi)(rois), n)
	}
	if nc > 0 {
		cc = unsafe.Slice((*C.GstcRoiClass)(classes), nc)
	}
	if cap(r.objects) < n {
		r.objects = make([]Object, n)
	}
	if cap(r.tracks) < n {
		r.tracks = make([]Track, n)
	}
	if cap(r.classes) < nc {
		r.classes = make([]Classification, nc)
	}
	f.Objects = fill(r.objects[:n], r.tracks[:n], r.classes[:nc], cs, cc, borrowString)
}

// fill makes objs from cs and cc (the C arrays of one read), with str
// making each string of the metas' structures; tracks and classes hold
// the objects' tracks and classifications (one track per object, nc
// classifications).
func fill(objs []Object, tracks []Track, classes []Classification, cs []C.GstcRoi, cc []C.GstcRoiClass,
	str func(*C.gchar) string) []Object {
	for i := range cs {
		c := &cs[i]
		o := &objs[i]
		// A roi_type is a quark's string: static, never copied.
		*o = Object{ID: int(c.id), ParentID: int(c.parent_id), X: uint(c.x), Y: uint(c.y), W: uint(c.w), H: uint(c.h),
			Label: borrowString(c._type), ClassID: -1}
		if o.ParentID < 0 {
			o.ParentID = -1
		}
		if c.has_detection != 0 {
			o.Detection, o.ClassID, o.Confidence = true, int(c.class_id), float64(c.confidence)
			if c.label != nil && *c.label != 0 {
				o.Label = str(c.label)
			}
		}
		if c.has_tracking != 0 {
			tracks[i] = Track{ID: uint64(c.track_id), Age: uint64(c.track_age), State: str(c.track_state)}
			o.Track = &tracks[i]
		}
		first, end := int(c.class_first), int(c.class_first)+int(c.n_classes)
		if c.n_classes > 0 && end <= len(cc) && end <= len(classes) {
			for j := first; j < end; j++ {
				k := &cc[j]
				classes[j] = Classification{Label: str(k.label), ClassID: int(k.class_id),
					Confidence: float64(k.confidence), Model: str(k.model)}
			}
			o.Classifications = classes[first:end:end]
		}
	}
	return objs
}

// borrowString is the NUL-terminated C string at p as a Go string over
// the same bytes (no copy, no cgo call); "" for NULL.
func borrowString(p *C.gchar) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return unsafe.String((*byte)(unsafe.Pointer(p)), n)
}

// copyString is the C string at p copied into Go memory.
func copyString(p *C.gchar) string {
	if p == nil {
		return ""
	}
	return strings.Clone(borrowString(p))
}

// readObjects returns the objects of the GstBuffer at buf (borrowed), in
// memory of their own.
func readObjects(buf unsafe.Pointer) []Object {
	b := (*C.GstBuffer)(buf)
	var small [16]C.GstcRoi
	var smallc [16]C.GstcRoiClass
	var nc C.guint
	n := C.gstc_roi_list_full(b, &small[0], C.guint(len(small)), &smallc[0], C.guint(len(smallc)), &nc)
	if n == 0 {
		return nil
	}
	cs, cc := small[:], smallc[:]
	if int(n) > len(cs) || int(nc) > len(cc) {
		cs, cc = make([]C.GstcRoi, n), make([]C.GstcRoiClass, nc+1)
		n = C.gstc_roi_list_full(b, &cs[0], C.guint(len(cs)), &cc[0], C.guint(len(cc)), &nc)
	}
	cs, cc = cs[:min(int(n), len(cs))], cc[:min(int(nc), len(cc))]
	return fill(make([]Object, len(cs)), make([]Track, len(cs)), make([]Classification, len(cc)), cs, cc, copyString)
}

// Read returns the results of buf (borrowed: a buffer from a pad probe, an
// appsink's sample) with the frame size width × height and source, in
// memory of their own.
func Read(buf *gst.Buffer, width, height int, source string) Frame {
	raw := gstglue.BorrowBuffer(buf)
	f := Frame{Width: width, Height: height, Source: source, Objects: readObjects(raw.Unsafe())}
	setPTS(&f, gstglue.BufferPTS(raw))
	return f
}

// setPTS sets f's PTS from a GstClockTime (GST_CLOCK_TIME_NONE: none).
func setPTS(f *Frame, pts uint64) {
	f.PTS, f.HasPTS = 0, false
	if pts != gstglue.ClockTimeNone {
		f.PTS, f.HasPTS = time.Duration(pts), true
	}
}
