/* basetransform.c: C definitions of basetransform.go (see there for the
 * ownership rules). */
#include "basetransform.h"
#include "syncpush.h"
#include "ringmem.h"
#include "element.h"
#include "schedtick.h"
#include "inferframe.h"
#include "wake.h"
#include "videoout.h"
#include "pending.h"
#include <sys/stat.h>
#include "_cgo_export.h"

typedef gboolean (*GstcTransformEventFunc) (GstBaseTransform * t,
    GstEvent * ev);

static GQuark
prev_sink_event_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-prev-transform-sink-event");
}

/* A frame output=video does not run (interval): its input's begin, if
 * announced, is answered as a run's would be. */
static void
skipped_input_end (GstBaseTransform * t, GstBuffer * in)
{
  GstcPending *p = gstc_pending_of (t);
  GstMemory *mem;
  GstVideoMeta *vm;
  struct stat sb;
  guint64 offset;
  GstcInferCounters *c;
  int end;

  if (p == NULL || gst_buffer_n_memory (in) != 1)
    return;
  mem = gst_buffer_peek_memory (in, 0);
  if (!gst_is_fd_memory (mem) || fstat (gst_fd_memory_get_fd (mem), &sb) != 0)
    return;
  offset = mem->offset;
  vm = gst_buffer_get_video_meta (in);
  if (vm != NULL && vm->n_planes > 0)
    offset += vm->offset[0];
  end = gstc_transform_end_input (t, p, sb.st_dev, sb.st_ino, offset,
      GST_BUFFER_OFFSET (in));
  c = gstc_infer_counters_of (GST_ELEMENT (t));
  if (c == NULL)
    return;
  if (end & 1)
    gstc_infer_count (c, GSTC_INFER_BEGINS_MATCHED, 1);
  if (end & 2)
    gstc_infer_count (c, GSTC_INFER_END_EVENTS_SENT, 1);
  if (end >> 2)
    gstc_infer_count (c, GSTC_INFER_BEGINS_EXPIRED, end >> 2);
}

static GstFlowReturn
transform_prepare (GstBaseTransform * t, GstBuffer * in, GstBuffer ** out)
{
  GstBuffer *buf = NULL;
  GstFlowReturn ret;
  GstcVideoOut *vo = gstc_video_out_of (t);

  /* output=video with interval: the last result on this frame. */
  if (vo != NULL && gstc_video_out_skip (vo, in, out)) {
    skipped_input_end (t, in);
    return GST_FLOW_OK;
  }
  /* Every frame is the engine's (inferframe.h); Go's prepare runs only
   * an element with none (tensorinfer's per-frame benchmark mode). */
  if (gstc_infer_frame (t, in, out, &ret))
    return ret;
  ret = gstcGoTransformPrepare (t, gstc_instance_handle (t), in, &buf);

  gstc_sched_tick ();

  *out = buf;
  if (ret != GST_FLOW_OK && buf != NULL) {
    gst_buffer_unref (buf);
    *out = NULL;
  }
  return ret;
}

static GstFlowReturn
transform_nothing (GstBaseTransform * t, GstBuffer * in, GstBuffer * out)
{
  return GST_FLOW_OK;
}

static gboolean
transform_sink_event (GstBaseTransform * t, GstEvent * ev)
{
  GstTensorSyncInfo ts;
  GstcTransformEventFunc prev;

  if (gst_tensor_sync_event_parse (ev, &ts) && ts.phase == GST_TENSOR_SYNC_BEGIN) {
    gboolean ret = FALSE;

    if (GST_EVENT_IS_SERIALIZED (ev)) {
      /* Kept in C for the frame's prepare to match: no Go callback. */
      gstc_pending_store (gstc_pending_attach (GST_ELEMENT (t)), &ts);
      ret = TRUE;
    }
    /* sink_event is transfer full; the begin is consumed here: the
     * element announces its own output downstream. */
    gst_event_unref (ev);
    return ret;
  }
  /* FLUSH_START is not serialized: it arrives on the flushing thread,
   * with the sink pad already FLUSHING, while the streaming thread may
   * be waiting inside prepare_output_buffer: the wake ends the wait. */
  if (GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_START)
    gstc_wake_set_flushing (gstc_wake_of (GST_ELEMENT (t)), TRUE);
  else if (GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_STOP)
    gstc_wake_set_flushing (gstc_wake_of (GST_ELEMENT (t)), FALSE);
  if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS || GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_STOP
      || GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_START)
    gstcGoTransformSerializedEvent (t, gstc_instance_handle (t),
        GST_EVENT_TYPE (ev));
  prev = (GstcTransformEventFunc) gstc_vfunc_overridden (t,
      prev_sink_event_quark ());
  if (prev == NULL) {
    gst_event_unref (ev);
    return FALSE;
  }
  return prev (t, ev);
}

static GQuark
prev_query_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-prev-transform-query");
}

/* The sink pad's CAPS query, answered with what transform_caps says the
 * sink pad takes (from the src pad's template: the element's sink caps
 * depend on what it is, not on downstream) — without the default's
 * "untransformed downstream caps first", which puts downstream's caps
 * ahead of ours whenever they intersect the sink template, so that an
 * upstream able to produce them (other/tensors) would pick the element's
 * own output caps as its input. Other queries go on to the class's
 * previous query. */
static gboolean
transform_query (GstBaseTransform * t, GstPadDirection dir, GstQuery * q)
{
  GstBaseTransformClass *k = GST_BASE_TRANSFORM_GET_CLASS (t);
  gboolean (*prev) (GstBaseTransform *, GstPadDirection, GstQuery *);

  GstcVideoOut *vo = gstc_video_out_of (t);
  gboolean video = FALSE;

  if (vo != NULL) {
    g_mutex_lock (&vo->lock);
    video = vo->on;
    g_mutex_unlock (&vo->lock);
  }
  /* output=video passes the video on: downstream's caps are the default's
   * to weigh. */
  if (dir == GST_PAD_SINK && GST_QUERY_TYPE (q) == GST_QUERY_CAPS
      && k->transform_caps != NULL && !video) {
    GstCaps *filter, *src_templ, *sink_templ, *caps, *res;

    gst_query_parse_caps (q, &filter);
    src_templ = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SRC_PAD (t));
    sink_templ =
        gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (t));
    caps = k->transform_caps (t, GST_PAD_SRC, src_templ, filter);
    gst_caps_unref (src_templ);
    if (caps == NULL)
      caps = gst_caps_new_empty ();
    res = gst_caps_intersect_full (caps, sink_templ, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    gst_caps_unref (sink_templ);
    gst_query_set_caps_result (q, res);
    gst_caps_unref (res);
    return TRUE;
  }
  prev = gstc_vfunc_overridden (t, prev_query_quark ());
  return prev != NULL && prev (t, dir, q);
}

void
gstc_install_transform_sink_caps (gpointer klass)
{
  GstBaseTransformClass *k = GST_BASE_TRANSFORM_CLASS (klass);

  gstc_vfunc_override (klass, prev_query_quark (), (gpointer *) & k->query,
      (gpointer) transform_query);
}

void
gstc_install_base_transform (gpointer klass)
{
  GstBaseTransformClass *k = GST_BASE_TRANSFORM_CLASS (klass);

  k->prepare_output_buffer = transform_prepare;
  k->transform = transform_nothing;
  k->transform_ip = NULL;
  k->passthrough_on_same_caps = FALSE;
  gstc_vfunc_override (klass, prev_sink_event_quark (),
      (gpointer *) & k->sink_event, (gpointer) transform_sink_event);
}

int
gstc_transform_end_input (GstBaseTransform * t, GstcPending * p,
    guint64 dev, guint64 ino, guint64 offset, guint64 buf_offset)
{
  GstTensorSyncInfo ts;
  int expired = 0, r = 0;

  if (gstc_pending_match (p, dev, ino, offset, buf_offset, &ts, &expired)) {
    r |= 1;
    ts.phase = GST_TENSOR_SYNC_END;
    if (gstc_push_tensor_sync (GST_BASE_TRANSFORM_SINK_PAD (t), TRUE, &ts))
      r |= 2;
  }
  return r | expired << 2;
}

GstcFinishedFrame
gstc_transform_finish_frame (GstBaseTransform * t, GstcPending * p,
    guint64 dev, guint64 ino, guint64 offset, guint64 buf_offset,
    GstcOutRing * ring, int slot, GstBuffer * in, guint64 seq)
{
  GstcFinishedFrame f;
  GstMemory *first, *rest[GSTC_OUT_MAX_TENSORS];
  GstcOutTensor *t0 = &ring->slots[slot].t[0];
  GstcVideoOut *vo = gstc_video_out_of (t);
  gboolean video = FALSE;
  int n, k;
  GstTensorSyncInfo ts = { GST_TENSOR_SYNC_BEGIN, GST_TENSOR_SYNC_READWRITE,
    t0->dev, t0->ino, t0->offset, GST_BUFFER_PTS (in), (guint) seq
  };

  f.end = gstc_transform_end_input (t, p, dev, ino, offset, buf_offset);
  first = gstc_out_ring_push (ring, slot, &n, rest);
  f.buf = gstc_ring_frame_new (first, ts.pts, GST_BUFFER_DURATION (in), seq,
      FALSE, ts.phase, ts.access, ts.dev, ts.ino, ts.offset, ts.seqnum);
  GST_BUFFER_DTS (f.buf) = GST_BUFFER_DTS (in);
  for (k = 1; k < n; k++)
    gst_buffer_append_memory (f.buf, rest[k - 1]);
  if (vo != NULL) {
    g_mutex_lock (&vo->lock);
    video = vo->on;
    g_mutex_unlock (&vo->lock);
  }
  if (video) {
    /* The input goes on with the tensors in its meta; their write
     * bracket ends when the meta's last holder drops them. Nobody reads
     * them as the buffer: no announcement. */
    f.buf = gstc_video_out_frame (vo, in, f.buf, seq);
    return f;
  }
  /* The frame's announcement, right before its buffer: GstBaseTransform
   * pushes the buffer prepare_output_buffer returns as soon as the
   * (empty) transform is done — its QoS drop comes before prepare — and a
   * serialized event pushes the pad's pending sticky events first
   * (stream-start, caps, segment), as a probe before the buffer would
   * see them. No probe on the pad: a push through a pad with probes
   * costs their hook list, buffer and events alike. */
  gstc_push_tensor_sync (GST_BASE_TRANSFORM_SRC_PAD (t), FALSE, &ts);
  return f;
}
