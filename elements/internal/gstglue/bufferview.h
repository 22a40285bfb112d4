/* bufferview.h: C side of bufferview.go — one borrowed reading of a
 * GstBuffer, filled by one call. */
#ifndef GSTC_BUFFERVIEW_H
#define GSTC_BUFFERVIEW_H

#include "cgo.h"

#define GSTC_VIEW_MEMORIES 16

/* No member is a pointer type (the memory is kept as an integer), so
 * cgo does not check the Go memory a view lives in when it is passed to
 * gstc_read_buffer_view (cgoCheckPointer, a few % of a frame's own cost
 * in tensorinfer's profile). */
typedef struct
{
  uintptr_t mem;                /* GstMemory *, borrowed from the buffer */
  guint64 offset, size;         /* GstMemory offset and size */
  gint fd;                      /* gst_fd_memory_get_fd, or -1 */
  uintptr_t qdata;              /* the qdata under the view's quark, or 0 */
} GstcViewMemory;

typedef struct
{
  guint64 pts, dts, duration, offset;
  guint32 flags;
  guint64 size;
  guint n_memory;
  GstcViewMemory mems[GSTC_VIEW_MEMORIES];
  gboolean has_meta;
  guint meta_n_planes, meta_width, meta_height;
  guint64 meta_offset[GST_VIDEO_MAX_PLANES];
  gint meta_stride[GST_VIDEO_MAX_PLANES];
} GstcBufferView;

void gstc_read_buffer_view (GstBuffer * b, GQuark q, GstcBufferView * v);

#endif /* GSTC_BUFFERVIEW_H */
