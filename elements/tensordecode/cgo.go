package tensordecode

// cgo.go: what the element does in C — each tensor's memory mapped for
// reading and unmapped, the tensordecode-objects message built, and
// video mode's per-buffer passthrough — the few calls gstc does not
// offer (its memory map is its tests'), kept here, beside their only
// user.

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-base-1.0
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

// tdec_set_passthrough sets e's (a GstBaseTransform) passthrough.
static void
tdec_set_passthrough (GstElement * e, gboolean on)
{
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (e), on);
}

static guint
tdec_n_memory (GstBuffer * buf)
{
  return gst_buffer_n_memory (buf);
}

// tdec_map maps memories 0..n-1 of buf for reading into maps[0..n-1] and
// returns how many it mapped: n, or the index of the first that failed
// (the ones before it stay mapped: tdec_unmap them). Through each
// memory's allocator: fd memory is mmapped once and kept, and a
// tensorpin dma-buf's map joins its CPU-access bracket.
static guint
tdec_map (GstBuffer * buf, guint n, GstMapInfo * maps)
{
  guint i;
  for (i = 0; i < n; i++) {
    if (!gst_memory_map (gst_buffer_peek_memory (buf, i), &maps[i], GST_MAP_READ))
      return i;
  }
  return n;
}

static void
tdec_unmap (guint n, GstMapInfo * maps)
{
  guint i;
  for (i = 0; i < n; i++)
    gst_memory_unmap (maps[i].memory, &maps[i]);
}

// TdecObject is one object of the message: its ROI rectangle, class,
// confidence, label (NULL: none; borrowed) and the region whose result it
// is (region_id; -1: the frame's).
typedef struct
{
  guint x, y, w, h;
  gint class_id;
  gdouble confidence;
  const gchar *label;
  gint region_id;
} TdecObject;

// tdec_post_objects posts from e the element message
// tensordecode-objects: pts (guint64), and objects, a GstValueArray of
// "object" structures (x, y, w, h as guint, class-id, confidence, label
// when there is one, region-id for a region's result), in the order
// given.
static gboolean
tdec_post_objects (GstElement * e, guint64 pts, const TdecObject * objs, guint n)
{
  GValue arr = G_VALUE_INIT;
  GstStructure *s;
  guint i;

  g_value_init (&arr, GST_TYPE_ARRAY);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;
    GstStructure *o = gst_structure_new ("object",
        "x", G_TYPE_UINT, objs[i].x, "y", G_TYPE_UINT, objs[i].y,
        "w", G_TYPE_UINT, objs[i].w, "h", G_TYPE_UINT, objs[i].h,
        "class-id", G_TYPE_INT, objs[i].class_id,
        "confidence", G_TYPE_DOUBLE, objs[i].confidence, NULL);
    if (objs[i].label != NULL)
      gst_structure_set (o, "label", G_TYPE_STRING, objs[i].label, NULL);
    if (objs[i].region_id >= 0)
      gst_structure_set (o, "region-id", G_TYPE_INT, objs[i].region_id, NULL);
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, o);
    gst_value_array_append_and_take_value (&arr, &v);
  }
  s = gst_structure_new ("tensordecode-objects", "pts", G_TYPE_UINT64, pts, NULL);
  gst_structure_take_value (s, "objects", &arr);
  return gst_element_post_message (e, gst_message_new_element (GST_OBJECT (e), s));
}
*/
import "C"

import (
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// setPassthrough sets the element's GstBaseTransform passthrough: the
// buffer pushed as it came (never made writable), transform_ip still
// called (GstBaseTransform's transform_ip_on_passthrough, TRUE by
// default).
func setPassthrough(elem gstglue.RawElement, on bool) {
	v := C.gboolean(0)
	if on {
		v = 1
	}
	C.tdec_set_passthrough((*C.GstElement)(elem.Unsafe()), v)
}

// numMemory is buf's number of memories (buf borrowed).
func numMemory(buf gstglue.RawBuffer) int { return int(C.tdec_n_memory((*C.GstBuffer)(buf.Unsafe()))) }

// maps holds the GstMapInfo of each tensor of a frame, in C memory (C
// writes pointers into it, and Go hands it back to C): one per running
// element, from start to stop.
type maps struct{ p *C.GstMapInfo }

func newMaps() maps {
	return maps{(*C.GstMapInfo)(C.calloc(capslayout.MaxTensors, C.sizeof_GstMapInfo))}
}

func (m maps) free() { C.free(unsafe.Pointer(m.p)) }

// mapAll maps the first n memories of buf (borrowed; n ≤ MaxTensors, the
// buffer holding at least n) for reading and returns how many it mapped
// (n unless one failed); unmap must be given that count.
func (m maps) mapAll(buf gstglue.RawBuffer, n int) int {
	return int(C.tdec_map((*C.GstBuffer)(buf.Unsafe()), C.guint(n), m.p))
}

// bytes returns memory i's mapped bytes (valid until unmap).
func (m maps) bytes(i int) []byte {
	info := unsafe.Slice(m.p, capslayout.MaxTensors)[i]
	if info.size == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(info.data)), int(info.size))
}

func (m maps) unmap(n int) { C.tdec_unmap(C.guint(n), m.p) }

// cLabels are the labels as C strings, for the message (NULL for an
// empty label); made at start, freed at stop.
type cLabels []*C.gchar

func newCLabels(labels []string) cLabels {
	c := make(cLabels, len(labels))
	for i, l := range labels {
		if l != "" {
			c[i] = (*C.gchar)(C.CString(l))
		}
	}
	return c
}

// at is the C string of class id's label (label: the object's), nil
// without one.
func (c cLabels) at(id int, label string) *C.gchar {
	if label == "" || id < 0 || id >= len(c) {
		return nil
	}
	return c[id]
}

func (c cLabels) free() {
	for _, p := range c {
		C.free(unsafe.Pointer(p))
	}
}

// message is the tensordecode-objects message under construction: its
// objects in a C-typed slice reused from frame to frame, and the C
// copies of the labels no labels file has (ctc's texts), freed at the
// next reset.
type message struct {
	objs  []C.TdecObject
	owned []*C.gchar
}

func (m *message) reset() {
	m.objs = m.objs[:0]
	for _, p := range m.owned {
		C.free(unsafe.Pointer(p))
	}
	m.owned = m.owned[:0]
}

// add adds an object; cLabel is its label from the labels file (nil: its
// label is copied, when it has one).
func (m *message) add(x, y, w, h, classID int, confidence float64, label string, cLabel *C.gchar, regionID int) {
	if cLabel == nil && label != "" {
		cLabel = C.CString(label)
		m.owned = append(m.owned, cLabel)
	}
	m.objs = append(m.objs, C.TdecObject{x: C.guint(x), y: C.guint(y), w: C.guint(w), h: C.guint(h),
		class_id: C.gint(classID), confidence: C.gdouble(confidence), label: cLabel, region_id: C.gint(regionID)})
}

// post posts the message from elem with pts; false if elem has no bus.
func (m *message) post(elem gstglue.RawElement, pts uint64) bool {
	var p *C.TdecObject
	if len(m.objs) > 0 {
		p = &m.objs[0]
	}
	return C.tdec_post_objects((*C.GstElement)(elem.Unsafe()), C.guint64(pts), p, C.guint(len(m.objs))) != 0
}
