// Package resultstest is what the tests of the results readers need
// from C and neither go-gst nor the code under test gives: regions of
// interest added with GStreamer's own API (any id, any params
// structure), removed, and read back with GStreamer's own API — a
// reference written independently of package gstglue's and package
// results' readers, with GStreamer's string-keyed accessors.
package resultstest

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-video-1.0
#include <stdlib.h>
#include <gst/video/video.h>

static GstVideoRegionOfInterestMeta *
rt_nth_region (GstBuffer * buf, int index)
{
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL)
    if (index-- == 0)
      return (GstVideoRegionOfInterestMeta *) meta;
  return NULL;
}

static int
rt_add_param (GstBuffer * buf, int index, const GstStructure * s)
{
  GstVideoRegionOfInterestMeta *m = rt_nth_region (buf, index);

  if (m == NULL)
    return 0;
  gst_video_region_of_interest_meta_add_param (m, gst_structure_copy (s));
  return 1;
}

static gboolean
rt_remove_region (GstBuffer * buf, GstMeta ** meta, gpointer data)
{
  if ((*meta)->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)
    *meta = NULL;
  return TRUE;
}

static void
rt_remove_regions (GstBuffer * buf)
{
  gst_buffer_foreach_meta (buf, rt_remove_region, NULL);
}

static int
rt_count (GstBuffer * buf)
{
  return gst_buffer_get_n_meta (buf, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
}

static GstStructure *
rt_param (GstVideoRegionOfInterestMeta * m, int i)
{
  return g_list_nth_data (m->params, i);
}

static int
rt_n_params (GstVideoRegionOfInterestMeta * m)
{
  return g_list_length (m->params);
}
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

func bufC(buf *gst.Buffer) *C.GstBuffer { return (*C.GstBuffer)(unsafe.Pointer(buf.Instance())) }

// AddRegion adds to buf (writable) a region of type typ at x, y, w × h
// with the given id and parent id and no params, as an element of
// another project would.
func AddRegion(buf *gst.Buffer, typ string, x, y, w, h uint, id, parentID int) error {
	b := bufC(buf)
	if C.gst_mini_object_is_writable((*C.GstMiniObject)(unsafe.Pointer(b))) == 0 {
		return errors.New("resultstest: buffer is not writable")
	}
	ct := C.CString(typ)
	defer C.free(unsafe.Pointer(ct))
	m := C.gst_buffer_add_video_region_of_interest_meta(b, ct, C.guint(x), C.guint(y), C.guint(w), C.guint(h))
	m.id = C.gint(id)
	m.parent_id = C.gint(parentID)
	return nil
}

// AddParam adds a copy of st to the index-th region of buf (in the order
// they were added) as a params structure.
func AddParam(buf *gst.Buffer, index int, st *gst.Structure) error {
	if C.rt_add_param(bufC(buf), C.int(index), (*C.GstStructure)(unsafe.Pointer(st.Instance()))) == 0 {
		return errors.New("resultstest: no such region")
	}
	return nil
}

// RemoveRegions removes every region of buf (writable), as a buffer
// pool's reset does.
func RemoveRegions(buf *gst.Buffer) { C.rt_remove_regions(bufC(buf)) }

// Count returns how many regions buf has.
func Count(buf *gst.Buffer) int { return int(C.rt_count(bufC(buf))) }

// Region is a region as GStreamer's API gives it: the meta's fields and
// each params structure, in order.
type Region struct {
	Type       string
	X, Y, W, H uint
	ID         int
	ParentID   int
	Params     []Param
}

// Param is one params structure: its name and fields (Go values of the
// fields' types: string, int, int64, uint, uint64, float64, …).
type Param struct {
	Name   string
	Fields map[string]any
}

// Get returns the first params structure called name, or nil.
func (r Region) Get(name string) *Param {
	for i := range r.Params {
		if r.Params[i].Name == name {
			return &r.Params[i]
		}
	}
	return nil
}

// All returns every params structure called name, in order.
func (r Region) All(name string) []Param {
	var out []Param
	for _, p := range r.Params {
		if p.Name == name {
			out = append(out, p)
		}
	}
	return out
}

// Read returns buf's regions (buf borrowed), read with GStreamer's API.
func Read(buf *gst.Buffer) []Region {
	b := bufC(buf)
	var out []Region
	for i := 0; ; i++ {
		m := C.rt_nth_region(b, C.int(i))
		if m == nil {
			return out
		}
		r := Region{Type: C.GoString(C.g_quark_to_string(m.roi_type)), X: uint(m.x), Y: uint(m.y), W: uint(m.w), H: uint(m.h),
			ID: int(m.id), ParentID: int(m.parent_id)}
		for j := 0; j < int(C.rt_n_params(m)); j++ {
			s := C.rt_param(m, C.int(j))
			// Borrowed: the meta owns the structure.
			st := gst.FromGstStructureUnsafe(unsafe.Pointer(s))
			r.Params = append(r.Params, Param{Name: st.Name(), Fields: st.Values()})
		}
		out = append(out, r)
	}
}
