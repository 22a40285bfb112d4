/* srcframe.c: tensorsrc's frame (srcframe.h). */
#include "srcframe.h"
#include "videometa.h"
#include "message.h"

#include <poll.h>
#include <string.h>

#include "element.h"
#include "_cgo_export.h"

static GQuark
src_frame_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "tensorsrc-frame");
}

static gpointer
src_frame_new (void)
{
  GstcSrcFrame *s = g_new0 (GstcSrcFrame, 1);
  int i;

  s->sync_timeout_ms = -1;
  s->grow_after_us = GSTC_SRC_GROW_AFTER_US;
  for (i = 0; i < GSTC_OUT_MAX_SLOTS; i++)
    s->fence_fd[i] = -1;
  g_mutex_init (&s->app.lock);
  return s;
}

static void
src_frame_free (gpointer data)
{
  GstcSrcFrame *s = data;

  gstc_out_ring_unref (s->ring);
  gstc_counters_unref (s->counters);
  g_free (s->vmeta_error);
  g_mutex_clear (&s->app.lock);
  g_free (s);
}

GstcSrcFrame *
gstc_src_frame_of (GstElement * element)
{
  GstcSrcFrame *s = gstc_qdata_attach (element, src_frame_quark (),
      src_frame_new, src_frame_free);

  /* Here, before any frame: the application's push signals it. */
  if (s->wake == NULL)
    s->wake = gstc_wake_of (element);
  return s;
}

void
gstc_src_app_push (GstcSrcFrame * s, int slot, guint64 pts)
{
  GstcSrcAppQueue *q = &s->app;
  int tail;

  g_mutex_lock (&q->lock);
  /* A slot is queued once at most (Go's Push checks the application
   * holds it): the queue cannot overflow, unless that check broke. */
  if (G_UNLIKELY (q->n >= GSTC_OUT_MAX_SLOTS)) {
    g_mutex_unlock (&q->lock);
    g_critical ("tensorsrc: slot %d pushed into a full queue", slot);
    return;
  }
  tail = (q->head + q->n) % GSTC_OUT_MAX_SLOTS;
  q->slot[tail] = slot;
  q->pts[tail] = pts;
  q->n++;
  g_mutex_unlock (&q->lock);
  gstc_wake_signal (s->wake);
}

void
gstc_src_app_set_eos (GstcSrcFrame * s, gboolean eos)
{
  g_mutex_lock (&s->app.lock);
  s->app.eos = eos;
  g_mutex_unlock (&s->app.lock);
  if (eos)
    gstc_wake_signal (s->wake);
}

int
gstc_src_app_drain (GstcSrcFrame * s)
{
  GstcSrcAppQueue *q = &s->app;
  int slots[GSTC_OUT_MAX_SLOTS];
  int n, i;

  g_mutex_lock (&q->lock);
  n = q->n;
  for (i = 0; i < n; i++)
    slots[i] = q->slot[(q->head + i) % GSTC_OUT_MAX_SLOTS];
  q->head = q->n = 0;
  g_mutex_unlock (&q->lock);
  if (G_UNLIKELY (s->ring == NULL && n > 0))
    g_critical ("tensorsrc: %d queued slot(s) of no ring", n);
  if (s->ring == NULL)
    return n;
  for (i = 0; i < n; i++) {
    gstc_out_ring_close_writes (s->ring, slots[i]);
    gstc_out_ring_give (s->ring, slots[i]);
  }
  return n;
}

/* The application's oldest pushed slot, for gstc_wake_wait_until (the
 * wake's lock held): slot >= 0, or eos when none is left and the stream
 * ended. */
typedef struct
{
  GstcSrcAppQueue *q;
  int slot;
  guint64 pts;
} AppPop;

static gboolean
app_pop (gpointer data)
{
  AppPop *a = data;
  GstcSrcAppQueue *q = a->q;
  gboolean ready = TRUE;

  g_mutex_lock (&q->lock);
  if (q->n > 0) {
    a->slot = q->slot[q->head];
    a->pts = q->pts[q->head];
    q->head = (q->head + 1) % GSTC_OUT_MAX_SLOTS;
    q->n--;
  } else if (!q->eos)
    ready = FALSE;
  g_mutex_unlock (&q->lock);
  return ready;
}

/* Puts a popped slot back first in the queue (a live wait a flush
 * ended: the frame is still the next one to send). */
static void
app_unpop (GstcSrcAppQueue * q, int slot, guint64 pts)
{
  g_mutex_lock (&q->lock);
  q->head = (q->head + GSTC_OUT_MAX_SLOTS - 1) % GSTC_OUT_MAX_SLOTS;
  q->slot[q->head] = slot;
  q->pts[q->head] = pts;
  q->n++;
  g_mutex_unlock (&q->lock);
}

void
gstc_src_frame_set_ring (GstcSrcFrame * s, GstcOutRing * r,
    GstcCounters * c)
{
  GstcOutRing *old = s->ring;
  GstcCounters *oldc = s->counters;

  s->enabled = FALSE;
  /* The queued slots are the old ring's. */
  if (r != old)
    gstc_src_app_drain (s);
  if (r != NULL)
    g_atomic_int_inc (&r->refs);
  s->ring = r;
  s->counters = c != NULL ? gstc_counters_ref (c) : NULL;
  memset (s->data, 0, sizeof s->data);
  memset (s->size, 0, sizeof s->size);
  gstc_out_ring_unref (old);
  gstc_counters_unref (oldc);
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

guint64
gstc_src_frame_at (guint64 pos, gint fps_n, gint fps_d)
{
  if (fps_n <= 0 || fps_d <= 0 || pos == GST_CLOCK_TIME_NONE)
    return 0;
  /* Exact (128-bit); G_MAXUINT64 when the frame does not fit. */
  return gst_util_uint64_scale (pos, fps_n, (guint64) fps_d * GST_SECOND);
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

/* Waits for slot's fences (its dma-buf's, or a test's stand-in).
 * GST_FLOW_OK: signalled; else FLUSHING, or an error posted. */
static GstFlowReturn
wait_fences (GstcSrcFrame * s, GstPushSrc * src, int slot)
{
  GstcOutTensor *t = &s->ring->slots[slot].t[0];
  int fd = s->fence_fd[slot];
  short events = s->fence_events[slot];
  GstcFencesWait e;
  GstcFencesResult r;

  if (fd < 0) {
    if (!t->bracket.ioctl)
      return GST_FLOW_OK;
    fd = t->bracket.fd;
    events = POLLOUT;
  }
  r = gstc_fences_wait (fd, events, s->wake, s->sync_timeout_ms, &e);
  if (e.waited) {
    gstc_count (s->counters, GSTC_SRC_FENCE_WAITS, 1);
    gstc_count (s->counters, GSTC_SRC_FENCE_WAIT_NS,
        MAX (e.waited_ns, 0));
    gstc_counter_max (s->counters, GSTC_SRC_FENCE_WAIT_MAX_NS,
        MAX (e.waited_ns, 0));
  }
  switch (r) {
    case GSTC_FENCES_SIGNALLED:
      return GST_FLOW_OK;
    case GSTC_FENCES_ENDED:
      return GST_FLOW_FLUSHING;
    case GSTC_FENCES_TIMED_OUT:
      gstc_count (s->counters, GSTC_SRC_FENCE_TIMEOUTS, 1);
      GSTC_POST_ERROR (src, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
          "slot %d: opening its CPU bracket: dma-buf %" G_GUINT64_FORMAT ":%"
          G_GUINT64_FORMAT " (fd %d): fences for readwrite access not "
          "signalled after %.3f ms (limit %d ms): tensor: dma-buf fences not "
          "signalled in time", slot, t->dev, t->ino, fd, e.waited_ns / 1e6,
          s->sync_timeout_ms);
      return GST_FLOW_ERROR;
    default:
      GSTC_POST_ERROR (src, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
          "slot %d: opening its CPU bracket: polling dma-buf %"
          G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT " (fd %d) for its fences: %s",
          slot, t->dev, t->ino, fd, g_strerror (e.err));
      return GST_FLOW_ERROR;
  }
}

void
gstc_src_frame_set_growth (GstcSrcFrame * s, int max_slots)
{
  s->max_slots = max_slots;
  s->grow_after_us = GSTC_SRC_GROW_AFTER_US;
}

gboolean
gstc_src_preroll_waits (GstElement * src)
{
  GstObject *o, *parent;
  gboolean paused, pending = FALSE;

  GST_OBJECT_LOCK (src);
  paused = GST_STATE (src) == GST_STATE_PAUSED;
  parent = GST_OBJECT_PARENT (src);
  if (parent != NULL)
    gst_object_ref (parent);
  GST_OBJECT_UNLOCK (src);
  if (!paused) {
    if (parent != NULL)
      gst_object_unref (parent);
    return FALSE;
  }
  /* Any bin up to the top: a pipeline's pending state stays while a sink
   * of it prerolls (an inner bin's may be done already). */
  for (o = parent; o != NULL && !pending; o = parent) {
    GST_OBJECT_LOCK (o);
    pending = GST_IS_ELEMENT (o)
        && GST_STATE_PENDING (o) != GST_STATE_VOID_PENDING;
    parent = GST_OBJECT_PARENT (o);
    if (parent != NULL)
      gst_object_ref (parent);
    GST_OBJECT_UNLOCK (o);
    gst_object_unref (o);
  }
  if (parent != NULL)
    gst_object_unref (parent);
  return pending;
}

/* A free slot of s's ring, waiting while every slot is downstream (the
 * wait counted as it begins); -1 when a flush, a stop or a seek ended
 * the wait. A ring that may grow waits grow_after_us at a time: when no
 * slot came back meanwhile and a preroll waits, one more slot from Go
 * (gstcGoSrcGrow: allocated, pinned and added taken, for this frame) —
 * the only call into Go of the frame, and only then. */
static int
take_slot (GstcSrcFrame * s, GstPushSrc * src)
{
  int slot = gstc_out_ring_take (s->ring);

  if (slot >= 0) {
    s->grow_after_us = GSTC_SRC_GROW_AFTER_US;
    return slot;
  }
  /* Counted as it begins: a wait under way shows in the stats. */
  gstc_count (s->counters, GSTC_RING_WAITS, 1);
  for (;;) {
    if (s->max_slots <= gstc_out_ring_size (s->ring))
      /* Back-pressure only: the ring is as large as it may grow. */
      return gstc_out_ring_take_waiting_until (s->ring, s->wake, -1);
    slot = gstc_out_ring_take_waiting_until (s->ring, s->wake,
        g_get_monotonic_time () + s->grow_after_us);
    if (slot >= 0) {
      s->grow_after_us = GSTC_SRC_GROW_AFTER_US;
      return slot;
    }
    if (slot == -1)
      return -1;
    if (!gstc_src_preroll_waits (GST_ELEMENT (src)))
      continue;
    slot = gstcGoSrcGrow (src, gstc_instance_handle (src), s->ring);
    if (slot >= 0) {
      s->grow_after_us = MIN (2 * s->grow_after_us,
          GSTC_SRC_GROW_AFTER_MAX_US);
      return slot;
    }
    /* No slot from Go — the allocation failed (a warning says why), or
     * the ring is at its bound: this ring grows no more. */
    s->max_slots = 0;
  }
}

gboolean
gstc_src_frame_create (GstPushSrc * src, GstBuffer ** out,
    GstFlowReturn * ret)
{
  GstcSrcFrame *s = g_object_get_qdata (G_OBJECT (src), src_frame_quark ());
  GstcOutTensor *t;
  GstMemory *mem, *rest[GSTC_OUT_MAX_TENSORS];
  GstBuffer *buf;
  guint64 n, pts, dur;
  int nt, err;
  GstFlowReturn r;
  gboolean announce;
  AppPop app = { NULL, -1, GST_CLOCK_TIME_NONE };
  int slot;

  if (s == NULL)
    return FALSE;
  *out = NULL;
  if (!s->enabled || s->ring == NULL) {
    GSTC_POST_ERROR (src, GSTC_DOMAIN_CORE, GST_CORE_ERROR_NEGOTIATION,
        "no caps were negotiated before the first buffer");
    *ret = GST_FLOW_NOT_NEGOTIATED;
    return TRUE;
  }
  if (s->is_app) {
    /* The application's next frame, waiting while it has pushed none. */
    app.q = &s->app;
    if (!gstc_wake_wait_until (s->wake, app_pop, &app)) {
      *ret = GST_FLOW_FLUSHING;
      return TRUE;
    }
    if (app.slot < 0) {
      *ret = GST_FLOW_EOS;
      return TRUE;
    }
    slot = app.slot;
  } else {
    /* Every slot downstream is back-pressure, not a drop: wait (or
     * grow the ring, when a preroll waits in vain). */
    slot = take_slot (s, src);
    if (slot < 0) {
      *ret = GST_FLOW_FLUSHING;
      return TRUE;
    }
  }
  if (s->seek_pending) {
    /* The frame at the segment's position, now that the rate is known. */
    s->frame = gstc_src_frame_at (s->seek_pos, s->fps_n, s->fps_d);
    s->seek_pending = FALSE;
  }
  n = s->frame;
  gstc_src_frame_times (n, s->fps_n, s->fps_d, &pts, &dur);
  if (s->is_app)
    pts = app.pts;
  if (s->pacer != NULL
      && gstc_live_pacer_wait (s->pacer, GST_ELEMENT (src), &pts) ==
      GST_CLOCK_UNSCHEDULED) {
    if (s->is_app)
      app_unpop (&s->app, slot, app.pts);
    else
      gstc_out_ring_give (s->ring, slot);
    *ret = GST_FLOW_FLUSHING;
    return TRUE;
  }
  t = &s->ring->slots[slot].t[0];
  if (!s->is_app) {
    /* The bracket opens before the CPU writes and stays open while the
     * buffer travels (handoff=adopt): downstream readers run inside it.
     * (The application's Acquire opened an app slot's.) */
    r = wait_fences (s, src, slot);
    if (r != GST_FLOW_OK) {
      gstc_out_ring_give (s->ring, slot);
      *ret = r;
      return TRUE;
    }
    err = gstc_out_ring_open_writes (s->ring, slot, TRUE);
    if (err != 0) {
      gstc_count (s->counters, GSTC_RING_SYNC_ERRORS, 1);
      gstc_out_ring_give (s->ring, slot);
      GSTC_POST_ERROR (src, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
          "slot %d: opening its CPU bracket: DMA_BUF_IOCTL_SYNC START: %s",
          slot, err > 0 ? g_strerror (err) : "busy");
      *ret = GST_FLOW_ERROR;
      return TRUE;
    }
    if (s->data[slot] != NULL)  /* Go gives every slot's bytes (SetSlot) */
      gstc_src_fill (s->data[slot], s->size[slot], s->pattern, n);
  }
  s->frame = n + 1;
  /* A slot whose bracket is closed (the application's SetWriteFence: a
   * device wrote it) has none to announce: readers open their own and
   * wait for the device's fence. The flag is the slot's taker's, and the
   * push into the queue published it. */
  announce = !s->close_after_write && t->open;
  if (s->close_after_write)
    gstc_out_ring_close_writes (s->ring, slot);
  mem = gstc_out_ring_push (s->ring, slot, &nt, rest);
  buf = gstc_ring_frame_new (mem, pts, dur, n, announce,
      GST_TENSOR_SYNC_BEGIN, GST_TENSOR_SYNC_READWRITE, t->dev, t->ino,
      t->offset, (guint) n);
  if (s->vmeta_error != NULL || (s->has_vmeta
          && (err = gstc_add_video_meta (buf, s->vformat, s->width,
                  s->height, s->n_planes, s->offsets,
                  s->strides)) != GSTC_VMETA_OK)) {
    /* The memory comes back to the ring (its bracket left) as the buffer
     * goes; the frame was not made, its number is the next one's. */
    gst_buffer_unref (buf);
    s->frame = n;
    if (s->vmeta_error != NULL)
      GSTC_POST_ERROR (src, GSTC_DOMAIN_CORE, GST_CORE_ERROR_FAILED, "video meta: %s",
          s->vmeta_error);
    else
      GSTC_POST_ERROR (src, GSTC_DOMAIN_CORE, GST_CORE_ERROR_FAILED,
          "video meta: cannot add it to the frame (error %d)", err);
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  gstc_count (s->counters, GSTC_SRC_FRAMES, 1);
  *out = buf;
  *ret = GST_FLOW_OK;
  return TRUE;
}
