package gstc

/*
#include <gst/gst.h>
#include <gst/video/video.h>

static gboolean
gstc_find_memory (GstBuffer * b, gsize offset, guint * idx, gsize * skip)
{
  guint len;

  return gst_buffer_find_memory (b, offset, 1, idx, &len, skip);
}

static gboolean
gstc_video_meta_planes (GstBuffer * b, guint * n, guint * w, guint * h,
    gsize * offsets, gint * strides)
{
  GstVideoMeta *m = gst_buffer_get_video_meta (b);
  guint i;

  if (m == NULL)
    return FALSE;
  *n = m->n_planes;
  *w = m->width;
  *h = m->height;
  for (i = 0; i < m->n_planes && i < GST_VIDEO_MAX_PLANES; i++) {
    offsets[i] = m->offset[i];
    strides[i] = m->stride[i];
  }
  return TRUE;
}
*/
import "C"

// VideoMetaPlanes is a buffer's GstVideoMeta, every plane: offsets from
// the start of the buffer (across its memories) and strides in bytes.
type VideoMetaPlanes struct {
	NPlanes       int
	Width, Height int
	Offsets       [MaxPlanes]int
	Strides       [MaxPlanes]int
}

// ReadVideoMetaPlanes reads b's GstVideoMeta (ok false without one). b is
// borrowed; nothing is allocated.
func ReadVideoMetaPlanes(b RawBuffer) (m VideoMetaPlanes, ok bool) {
	var n, w, h C.guint
	var off [MaxPlanes]C.gsize
	var str [MaxPlanes]C.gint
	if !gobool(C.gstc_video_meta_planes(b.p, &n, &w, &h, &off[0], &str[0])) {
		return m, false
	}
	m.NPlanes, m.Width, m.Height = int(n), int(w), int(h)
	for i := 0; i < m.NPlanes && i < MaxPlanes; i++ {
		m.Offsets[i], m.Strides[i] = int(off[i]), int(str[i])
	}
	return m, true
}

// FindMemory returns the index of b's memory that holds byte offset of
// the buffer, and where in that memory it lies (ok false when offset is
// past the end). b is borrowed.
func FindMemory(b RawBuffer, offset int) (idx, skip int, ok bool) {
	if offset < 0 {
		return 0, 0, false
	}
	var i C.guint
	var s C.gsize
	if !gobool(C.gstc_find_memory(b.p, C.gsize(offset), &i, &s)) {
		return 0, 0, false
	}
	return int(i), int(s), true
}
