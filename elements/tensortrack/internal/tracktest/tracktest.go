// Package tracktest is what tensortrack's tests need from C and neither
// go-gst nor gstglue gives: every region of a buffer with its
// "detection" and "tracking" structures, regions without params, frames made
// wholly in C (for counting the element's Go allocations), and the
// element's GstBaseTransform vfuncs called directly.
package tracktest

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-base-1.0 gstreamer-app-1.0 gstreamer-video-1.0
#cgo CFLAGS: -I${SRCDIR}/../../../tensormeta
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <gst/app/gstappsrc.h>
#include <gst/base/base.h>
#include <gst/video/video.h>
#include "tensormeta.h"

typedef struct
{
  const gchar *type;
  guint x, y, w, h;
  gint id, parent_id;
  gboolean has_detection;
  const gchar *label;
  gint class_id;
  gdouble confidence;
  gboolean has_tracking;
  guint64 track_id, age;
  const gchar *state;
} TrackTestRegion;

static guint
tracktest_regions (GstBuffer * buf, TrackTestRegion * out, guint max)
{
  gpointer iter = NULL;
  GstMeta *meta;
  guint n = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;
    GstStructure *s;
    TrackTestRegion *r;

    if (n >= max) {
      n++;
      continue;
    }
    r = &out[n++];
    memset (r, 0, sizeof (*r));
    r->type = g_quark_to_string (m->roi_type);
    r->x = m->x; r->y = m->y; r->w = m->w; r->h = m->h;
    r->id = m->id; r->parent_id = m->parent_id;
    if ((s = gst_video_region_of_interest_meta_get_param (m, "detection")) != NULL) {
      r->has_detection = TRUE;
      r->label = gst_structure_get_string (s, "label");
      if (!gst_structure_get_int (s, "class-id", &r->class_id))
        r->class_id = -1;
      gst_structure_get_double (s, "confidence", &r->confidence);
    }
    if ((s = gst_video_region_of_interest_meta_get_param (m, "tracking")) != NULL) {
      r->has_tracking = TRUE;
      gst_structure_get_uint64 (s, "id", &r->track_id);
      gst_structure_get_uint64 (s, "age", &r->age);
      r->state = gst_structure_get_string (s, "state");
    }
  }
  return n;
}

static void
tracktest_add_plain (GstBuffer * buf, const gchar * type, guint x, guint y,
    guint w, guint h, gint id, gint parent)
{
  GstVideoRegionOfInterestMeta *m =
      gst_buffer_add_video_region_of_interest_meta (buf, type, x, y, w, h);
  m->id = id;
  m->parent_id = parent;
}

static void
tracktest_add_detection (GstBuffer * buf, const gchar * type, guint x, guint y,
    guint w, guint h, gint id, gint parent, const gchar * label, gint class_id,
    gdouble conf)
{
  GstVideoRegionOfInterestMeta *m =
      gst_buffer_add_video_region_of_interest_meta (buf, type, x, y, w, h);
  GstStructure *s = gst_structure_new ("detection", "class-id", G_TYPE_INT,
      class_id, "confidence", G_TYPE_DOUBLE, conf, NULL);

  if (label != NULL)
    gst_structure_set (s, "label", G_TYPE_STRING, label, NULL);
  m->id = id;
  m->parent_id = parent;
  gst_video_region_of_interest_meta_add_param (m, s);
}

// Adds a GstTensorPinMeta of run (no tensors: only the run is read),
// made by producer (NULL: none) to buf.
static void
tracktest_add_run (GstBuffer * buf, guint64 run, const gchar * producer)
{
  GstTensorPinMeta from = { {0}, };

  from.run = run;
  from.producer = producer;
  gst_tensor_pin_meta_add (buf, &from, NULL);
}

// A frame of n objects on circles inside a 640x480 frame (object i:
// class i % 3, label "obj-<class>"), each with a detection structure,
// made without Go; with run > 0 it carries a GstTensorPinMeta of that run.
static GstBuffer *
tracktest_frame (guint f, guint n, guint64 run)
{
  static const gchar *labels[] = { "obj-0", "obj-1", "obj-2" };
  GstBuffer *buf = gst_buffer_new ();
  guint i;

  for (i = 0; i < n; i++) {
    double a = 2 * G_PI * (f % 360) / 360.0 * (1 + i % 3) + i;
    guint x = (guint) (60 + 110 * (i % 5) + 30 * cos (a));
    guint y = (guint) (60 + 100 * (i / 5 % 4) + 30 * sin (a));
    GstVideoRegionOfInterestMeta *m =
        gst_buffer_add_video_region_of_interest_meta (buf, labels[i % 3], x, y, 36, 36);
    m->id = i;
    m->parent_id = -1;
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("detection",
            "class-id", G_TYPE_INT, (gint) (i % 3), "confidence", G_TYPE_DOUBLE, 0.9,
            "label", G_TYPE_STRING, labels[i % 3], NULL));
  }
  if (run > 0)
    tracktest_add_run (buf, run, NULL);
  return buf;
}

static gboolean
tracktest_set_caps (GstElement * e, const gchar * caps)
{
  GstCaps *c = gst_caps_from_string (caps);
  gboolean ok = GST_BASE_TRANSFORM_GET_CLASS (e)->set_caps (GST_BASE_TRANSFORM (e), c, c);
  gst_caps_unref (c);
  return ok;
}

static GstFlowReturn
tracktest_transform_ip (GstElement * e, GstBuffer * buf)
{
  return GST_BASE_TRANSFORM_GET_CLASS (e)->transform_ip (GST_BASE_TRANSFORM (e), buf);
}

static gboolean
tracktest_sink_event (GstElement * e, GstEvent * ev)
{
  return GST_BASE_TRANSFORM_GET_CLASS (e)->sink_event (GST_BASE_TRANSFORM (e), ev);
}
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	// GstTensorPinMeta's registration and add (tensormeta.c).
	_ "github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
)

// Region is one region of interest of a buffer, with its params.
type Region struct {
	Type         string
	X, Y, W, H   uint
	ID, ParentID int
	HasDetection bool
	Label        string
	ClassID      int
	Confidence   float64
	HasTracking  bool
	TrackID, Age uint64
	State        string
}

func bufC(buf *gst.Buffer) *C.GstBuffer { return (*C.GstBuffer)(unsafe.Pointer(buf.Instance())) }

// Regions returns buf's regions (buf borrowed), in order, strings copied.
func Regions(buf *gst.Buffer) []Region {
	n := C.tracktest_regions(bufC(buf), nil, 0)
	if n == 0 {
		return nil
	}
	cs := make([]C.TrackTestRegion, n)
	C.tracktest_regions(bufC(buf), &cs[0], n)
	out := make([]Region, n)
	for i, c := range cs {
		r := Region{Type: C.GoString(c._type), X: uint(c.x), Y: uint(c.y), W: uint(c.w), H: uint(c.h),
			ID: int(c.id), ParentID: int(c.parent_id), HasDetection: c.has_detection != 0, ClassID: int(c.class_id),
			Confidence: float64(c.confidence), HasTracking: c.has_tracking != 0, TrackID: uint64(c.track_id), Age: uint64(c.age)}
		if c.label != nil {
			r.Label = C.GoString(c.label)
		}
		if c.state != nil {
			r.State = C.GoString(c.state)
		}
		out[i] = r
	}
	return out
}

// AddPlain adds to buf (writable) a region of type typ with no params,
// and the given id and parent id.
func AddPlain(buf *gst.Buffer, typ string, x, y, w, h uint, id, parent int) {
	ct := C.CString(typ)
	defer C.free(unsafe.Pointer(ct))
	C.tracktest_add_plain(bufC(buf), ct, C.guint(x), C.guint(y), C.guint(w), C.guint(h), C.gint(id), C.gint(parent))
}

// AddDetection adds to buf (writable) a region with a "detection"
// structure (label left out when empty) and the given id and parent id,
// without counting the buffer's regions as gstglue.AddROI does (a
// frame of thousands).
func AddDetection(buf *gst.Buffer, typ string, x, y, w, h uint, id, parent int, label string, class int, conf float64) {
	ct := C.CString(typ)
	defer C.free(unsafe.Pointer(ct))
	var cl *C.gchar
	if label != "" {
		cl = C.CString(label)
		defer C.free(unsafe.Pointer(cl))
	}
	C.tracktest_add_detection(bufC(buf), ct, C.guint(x), C.guint(y), C.guint(w), C.guint(h), C.gint(id), C.gint(parent),
		cl, C.gint(class), C.gdouble(conf))
}

// AddRun adds to buf (writable) a GstTensorPinMeta of the given run made
// by producer ("": none), after the others (no tensors: only the run is
// read).
func AddRun(buf *gst.Buffer, run uint64, producer string) {
	var cp *C.gchar
	if producer != "" {
		cp = C.CString(producer)
		defer C.free(unsafe.Pointer(cp))
	}
	C.tracktest_add_run(bufC(buf), C.guint64(run), cp)
}

// RawFrame is a buffer made in C, owned by the caller (Unref).
type RawFrame struct{ p *C.GstBuffer }

// Frame makes frame f of n objects on circles in C (no Go allocation),
// with a GstTensorPinMeta of run when run > 0.
func Frame(f, n int, run uint64) RawFrame {
	return RawFrame{C.tracktest_frame(C.guint(f), C.guint(n), C.guint64(run))}
}

// Unref drops the caller's reference.
func (r RawFrame) Unref() { C.gst_mini_object_unref((*C.GstMiniObject)(unsafe.Pointer(r.p))) }

// Buffer borrows r as a go-gst buffer (no reference taken) to read it.
func (r RawFrame) Buffer() *gst.Buffer { return gst.FromGstBufferUnsafeNone(unsafe.Pointer(r.p)) }

// ErrRefused: a vfunc refused.
var ErrRefused = errors.New("tracktest: refused")

// SetCaps calls e's set_caps with caps (in and out).
func SetCaps(e *gst.Element, caps string) error {
	cc := C.CString(caps)
	defer C.free(unsafe.Pointer(cc))
	if C.tracktest_set_caps((*C.GstElement)(e.Unsafe()), cc) == 0 {
		return ErrRefused
	}
	return nil
}

// TransformIP calls e's transform_ip on r (borrowed, writable).
func TransformIP(e unsafe.Pointer, r RawFrame) gst.FlowReturn {
	return gst.FlowReturn(C.tracktest_transform_ip((*C.GstElement)(e), r.p))
}

// TransformIPBuffer calls e's transform_ip on buf (borrowed, writable).
func TransformIPBuffer(e unsafe.Pointer, buf *gst.Buffer) gst.FlowReturn {
	return gst.FlowReturn(C.tracktest_transform_ip((*C.GstElement)(e), bufC(buf)))
}

// SinkEvent calls e's sink_event with a new FLUSH_STOP (reset) or EOS
// event, which it takes.
func SinkEvent(e *gst.Element, eos bool) bool {
	var ev *C.GstEvent
	if eos {
		ev = C.gst_event_new_eos()
	} else {
		ev = C.gst_event_new_flush_stop(C.TRUE)
	}
	return C.tracktest_sink_event((*C.GstElement)(e.Unsafe()), ev) != 0
}
