package tensordecode

// cgo.go: each tensor's memory mapped for reading and unmapped, and the
// labels as C strings — the few calls the glue does not offer (its
// memory map is its tests'), kept here, beside their only user. The
// frame itself is decodeframe.[ch].

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-base-1.0
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

// tdec_name returns e's name (g_free it).
static gchar *
tdec_name (GstElement * e)
{
  return gst_object_get_name (GST_OBJECT (e));
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

*/
import "C"

import (
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// elementName returns elem's name.
func elementName(elem gstglue.RawElement) string {
	c := C.tdec_name((*C.GstElement)(elem.Unsafe()))
	defer C.g_free(C.gpointer(c))
	return C.GoString(c)
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

// cLabels are the labels as C strings, for the regions and the message
// (NULL for an empty label); made at start, freed at stop (the C frame
// borrows them meanwhile).
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
