/* bufferview.c: one borrowed reading of a GstBuffer, filled by one call.
 * Each function's contract — what it owns, borrows and takes over, and who
 * may call it — is its comment in bufferview.h; the Go side is
 * bufferview.go. */
#include "bufferview.h"

void
gstc_read_buffer_view (GstBuffer * b, GQuark q, GstcBufferView * v)
{
  GstVideoMeta *m;
  guint i, n;

  v->pts = GST_BUFFER_PTS (b);
  v->dts = GST_BUFFER_DTS (b);
  v->duration = GST_BUFFER_DURATION (b);
  v->offset = GST_BUFFER_OFFSET (b);
  v->flags = GST_MINI_OBJECT_FLAGS (b);
  v->size = gst_buffer_get_size (b);
  v->n_memory = n = gst_buffer_n_memory (b);
  for (i = 0; i < n && i < GSTC_VIEW_MEMORIES; i++) {
    GstMemory *mem = gst_buffer_peek_memory (b, i);
    GstcViewMemory *vm = &v->mems[i];

    vm->mem = (uintptr_t) mem;
    vm->offset = mem->offset;
    vm->size = mem->size;
    vm->fd = gst_is_fd_memory (mem) ? gst_fd_memory_get_fd (mem) : -1;
    vm->qdata = q != 0 ?
        (uintptr_t) gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
        q) : 0;
  }
  m = gst_buffer_get_video_meta (b);
  v->has_meta = m != NULL;
  if (m != NULL) {
    v->meta_n_planes = MIN (m->n_planes, GST_VIDEO_MAX_PLANES);
    v->meta_width = m->width;
    v->meta_height = m->height;
    for (i = 0; i < v->meta_n_planes; i++) {
      v->meta_offset[i] = m->offset[i];
      v->meta_stride[i] = m->stride[i];
    }
  }
}
