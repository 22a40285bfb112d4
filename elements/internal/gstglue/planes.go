package gstglue

/*
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/video/video.h>

static void
gstc_structure_set_uint (GstStructure * s, char *name, guint v)
{
  gst_structure_set (s, name, G_TYPE_UINT, v, NULL);
  free (name);
}

static GValue *
gstc_array_begin (GstStructure * s, const char *name)
{
  GValue *arr = g_new0 (GValue, 1);

  g_value_init (arr, GST_TYPE_ARRAY);
  return arr;
}

// gstc_array_append appends v to arr as a guint64, or a guint when
// narrow.
static void
gstc_array_append (GValue * arr, guint64 v, gboolean narrow)
{
  GValue x = G_VALUE_INIT;

  if (narrow) {
    g_value_init (&x, G_TYPE_UINT);
    g_value_set_uint (&x, (guint) v);
  } else {
    g_value_init (&x, G_TYPE_UINT64);
    g_value_set_uint64 (&x, v);
  }
  gst_value_array_append_and_take_value (arr, &x);
}

// gstc_array_end moves the array into s as field name.
static void
gstc_array_end (GstStructure * s, const char *name, GValue * arr)
{
  gst_structure_take_value (s, name, arr);
  g_free (arr);
}
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// VideoMetaPlanes is a buffer's GstVideoMeta, every plane: offsets from
// the start of the buffer (across its memories) and strides in bytes.
type VideoMetaPlanes struct {
	NPlanes       int
	Width, Height int
	Offsets       [MaxPlanes]int
	Strides       [MaxPlanes]int
}

// PlaneInfo is what a signal tells about one plane of a frame.
type PlaneInfo struct {
	Address, Size uint64
	Stride, Slot  uint32
	Offset        uint64 // in its memory's file (the dma-buf)
}

// NewPlanesStructure returns a new GstStructure named name describing
// planes, for signal handlers in other languages: "n-planes" (guint) and
// per-plane GstValueArrays "address", "size", "offset" (guint64) and
// "stride", "slot" (guint), index i for plane i. The caller owns it.
func NewPlanesStructure(name string, planes []PlaneInfo) *gst.Structure {
	st := gst.NewStructure(name)
	cst := (*C.GstStructure)(unsafe.Pointer(st.Instance()))
	C.gstc_structure_set_uint(cst, C.CString("n-planes"), C.guint(len(planes)))
	for _, f := range []struct {
		name string
		u64  func(PlaneInfo) uint64
		u32  func(PlaneInfo) uint32
	}{
		{name: "address", u64: func(p PlaneInfo) uint64 { return p.Address }},
		{name: "size", u64: func(p PlaneInfo) uint64 { return p.Size }},
		{name: "offset", u64: func(p PlaneInfo) uint64 { return p.Offset }},
		{name: "stride", u32: func(p PlaneInfo) uint32 { return p.Stride }},
		{name: "slot", u32: func(p PlaneInfo) uint32 { return p.Slot }},
	} {
		cname := C.CString(f.name)
		arr := C.gstc_array_begin(cst, cname)
		for _, p := range planes {
			if f.u64 != nil {
				C.gstc_array_append(arr, C.guint64(f.u64(p)), 0)
			} else {
				C.gstc_array_append(arr, C.guint64(f.u32(p)), 1)
			}
		}
		C.gstc_array_end(cst, cname, arr)
		C.free(unsafe.Pointer(cname))
	}
	return st
}
