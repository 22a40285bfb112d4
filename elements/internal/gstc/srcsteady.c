/* srcsteady.c: C definitions of srcsteady.go (see srcsteady.h). */
#include "srcsteady.h"
#include "ringmem.h"
#include "videometa.h"

#include <poll.h>
#include <string.h>

static GQuark
src_steady_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-src-steady");
}

static gpointer
src_steady_new (void)
{
  return g_new0 (GstcSrcSteady, 1);
}

static void
src_steady_free (gpointer data)
{
  GstcSrcSteady *s = data;

  gstc_out_ring_unref (s->ring);
  gstc_infer_counters_unref (s->counters);
  g_free (s);
}

GstcSrcSteady *
gstc_src_steady_of (GstElement * element)
{
  return gstc_qdata_attach (element, src_steady_quark (), src_steady_new,
      src_steady_free);
}

void
gstc_src_steady_set_ring (GstcSrcSteady * s, GstcOutRing * r,
    GstcInferCounters * c)
{
  GstcOutRing *old = s->ring;
  GstcInferCounters *oldc = s->counters;

  s->enabled = FALSE;
  if (r != NULL)
    g_atomic_int_inc (&r->refs);
  s->ring = r;
  s->counters = c != NULL ? gstc_infer_counters_ref (c) : NULL;
  memset (s->data, 0, sizeof s->data);
  memset (s->size, 0, sizeof s->size);
  gstc_out_ring_unref (old);
  gstc_infer_counters_unref (oldc);
}

void
gstc_src_fill (guint8 * data, gsize size, int pattern, guint64 n)
{
  guint8 base = 0;
  gsize k, i;

  switch (pattern) {
    case GSTC_SRC_BLACK:
      memset (data, 0, size);
      return;
    case GSTC_SRC_NONE:
      return;
    case GSTC_SRC_COUNTER:
      base = (guint8) (n * 7);
      break;
  }
  /* One 256-byte period, then doubled: a few memmoves a frame. */
  k = MIN (256, size);
  for (i = 0; i < k; i++)
    data[i] = (guint8) (base + i);
  while (k < size) {
    gsize c = MIN (k, size - k);

    memcpy (data + k, data, c);
    k += c;
  }
}

void
gstc_src_frame_times (guint64 n, gint fps_n, gint fps_d, guint64 * pts,
    guint64 * dur)
{
  guint64 per, next;

  *pts = *dur = GST_CLOCK_TIME_NONE;
  if (fps_n <= 0 || fps_d <= 0)
    return;
  /* gst_util_uint64_scale: exact (128-bit), G_MAXUINT64 = NONE when the
   * time does not fit. */
  per = (guint64) fps_d * GST_SECOND;
  *pts = gst_util_uint64_scale (n, per, fps_n);
  next = gst_util_uint64_scale (n + 1, per, fps_n);
  if (*pts != GST_CLOCK_TIME_NONE && next != GST_CLOCK_TIME_NONE)
    *dur = next - *pts;
}

gboolean
gstc_src_steady_create (GstPushSrc * src, GstBuffer ** out)
{
  GstcSrcSteady *s = g_object_get_qdata (G_OBJECT (src), src_steady_quark ());
  GstcOutTensor *t;
  GstMemory *mem, *rest[GSTC_OUT_MAX_TENSORS];
  GstBuffer *buf;
  guint64 n, pts, dur;
  int slot, nt, err;

  if (s == NULL || !s->enabled || s->ring == NULL
      || g_atomic_int_get (&s->flushing))
    return FALSE;
  slot = gstc_out_ring_take (s->ring);
  if (slot < 0)
    return FALSE;
  t = &s->ring->slots[slot].t[0];
  if (s->data[slot] == NULL || (t->bracket.ioctl && !gstc_fences_signalled (t->bracket.fd, POLLOUT))) {
    gstc_out_ring_give (s->ring, slot);
    return FALSE;
  }
  err = gstc_out_ring_open_writes (s->ring, slot, FALSE);
  if (err != 0) {
    /* A busy word (-1) is Go's to wait out; a failed START is counted
     * here, and Go tries again and reports it if it fails again. */
    if (err > 0)
      gstc_infer_count (s->counters, GSTC_INFER_OUT_SYNC_ERRORS, 1);
    gstc_out_ring_give (s->ring, slot);
    return FALSE;
  }
  n = s->frame++;
  gstc_src_fill (s->data[slot], s->size[slot], s->pattern, n);
  if (s->close_after_write)
    gstc_out_ring_close_writes (s->ring, slot);
  gstc_src_frame_times (n, s->fps_n, s->fps_d, &pts, &dur);
  mem = gstc_out_ring_push (s->ring, slot, &nt, rest);
  buf = gstc_ring_frame_new (mem, pts, dur, n, !s->close_after_write,
      GST_TENSOR_SYNC_BEGIN, GST_TENSOR_SYNC_READWRITE, t->dev, t->ino,
      t->offset, (guint) n);
  if (s->has_vmeta && gstc_add_video_meta (buf, s->vformat, s->width,
          s->height, s->n_planes, s->offsets, s->strides) != GSTC_VMETA_OK) {
    /* Go made the same meta on this ring's buffers; let it run the frame
     * again and report what is wrong. The memory comes back to the ring
     * (its bracket left) as the buffer goes. */
    gst_buffer_unref (buf);
    s->frame = n;
    s->enabled = FALSE;
    return FALSE;
  }
  gstc_infer_count (s->counters, GSTC_INFER_FRAMES, 1);
  *out = buf;
  return TRUE;
}
