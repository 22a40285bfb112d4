/* videoout.c: tensorinfer's output=video (videoout.h). */
#include "videoout.h"

static gpointer
video_out_new (void)
{
  GstcVideoOut *vo = g_new0 (GstcVideoOut, 1);

  g_mutex_init (&vo->lock);
  vo->interval = 1;
  vo->scale_x = vo->scale_y = 1;
  return vo;
}

static void
video_out_free (gpointer data)
{
  GstcVideoOut *vo = data;

  gst_clear_buffer (&vo->last);
  gst_clear_caps (&vo->caps);
  g_mutex_clear (&vo->lock);
  g_free (vo);
}

GSTC_DEFINE_QDATA (GstcVideoOut, gstc_video_out, "gstc-video-out",
    video_out_new, video_out_free);

gboolean
gstc_video_out_on (gpointer obj)
{
  GstcVideoOut *vo = gstc_video_out_of (obj);
  gboolean on = FALSE;

  if (vo != NULL) {
    g_mutex_lock (&vo->lock);
    on = vo->on;
    g_mutex_unlock (&vo->lock);
  }
  return on;
}

/* Under vo->lock. */
static GstBuffer *
video_frame_locked (GstcVideoOut * vo, GstBuffer * in, GstBuffer * tensors,
    guint64 run)
{
  GstTensorPinMeta from = { {0}, NULL, vo->caps, vo->model_width,
    vo->model_height, vo->scale_x, vo->scale_y, vo->offset_x, vo->offset_y,
    run, vo->producer, 0, 0, NULL, NULL
  };
  /* The input itself when no one else holds it: GstBaseTransform's
   * reference becomes the output's (prepare_output_buffer may return its
   * input), and the memories go back to their pool writable, so a pooled
   * producer's buffers stay pinned and bound. Else a copy of it: the same
   * memories, timestamps and metas. */
  GstBuffer *out = gst_buffer_is_writable (in) ? in : gst_buffer_copy (in);

  gst_tensor_pin_meta_add (out, &from, tensors);
  return out;
}

GstBuffer *
gstc_video_out_frame (GstcVideoOut * vo, GstBuffer * in, GstBuffer * tensors,
    guint64 run)
{
  GstBuffer *out;

  GstBuffer *old = NULL;

  g_mutex_lock (&vo->lock);
  if (vo->interval > 1) {
    old = vo->last;
    vo->last = gst_buffer_ref (tensors);
    vo->last_run = run;
  }
  out = video_frame_locked (vo, in, tensors, run);
  g_mutex_unlock (&vo->lock);
  /* Outside the lock: the last reference returns a ring slot. */
  if (old != NULL)
    gst_buffer_unref (old);
  return out;
}

gboolean
gstc_video_out_skip (GstcVideoOut * vo, GstBuffer * in, GstBuffer ** out)
{
  gboolean skip;

  g_mutex_lock (&vo->lock);
  skip = vo->on && vo->interval > 1 && vo->count % vo->interval != 0
      && vo->last != NULL;
  vo->count++;
  if (skip) {
    *out = video_frame_locked (vo, in, gst_buffer_ref (vo->last),
        vo->last_run);
    vo->reused++;
  }
  g_mutex_unlock (&vo->lock);
  return skip;
}

void
gstc_video_out_reset (GstcVideoOut * vo)
{
  GstBuffer *last;

  g_mutex_lock (&vo->lock);
  last = vo->last;
  vo->last = NULL;
  vo->count = 0;
  g_mutex_unlock (&vo->lock);
  /* Outside the lock: the last reference returns the ring slot. */
  if (last != NULL)
    gst_buffer_unref (last);
}

void
gstc_video_out_set_producer (GstcVideoOut * vo, GstElement * element)
{
  gchar *name = gst_object_get_name (GST_OBJECT (element));
  const gchar *p = name != NULL ? g_intern_string (name) : NULL;

  g_free (name);
  g_mutex_lock (&vo->lock);
  vo->producer = p;
  g_mutex_unlock (&vo->lock);
}

GstBuffer *
gstc_video_out_buffer (GstcVideoOut * vo, GstBuffer * in)
{
  return gst_buffer_is_writable (in) ? in : gst_buffer_copy (in);
}

const gchar *
gstc_video_out_producer (GstcVideoOut * vo)
{
  const gchar *p;

  g_mutex_lock (&vo->lock);
  p = vo->producer;
  g_mutex_unlock (&vo->lock);
  return p;
}
