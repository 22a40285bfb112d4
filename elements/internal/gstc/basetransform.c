/* basetransform.c: C definitions of basetransform.go (see there for the
 * ownership rules). */
#include "basetransform.h"
#include "syncpush.h"
#include "ringmem.h"
#include "element.h"
#include "schedtick.h"
#include "steady.h"
#include "_cgo_export.h"

typedef gboolean (*GstcTransformEventFunc) (GstBaseTransform * t,
    GstEvent * ev);

static GQuark
prev_sink_event_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-prev-transform-sink-event");
}

static GstFlowReturn
transform_prepare (GstBaseTransform * t, GstBuffer * in, GstBuffer ** out)
{
  GstBuffer *buf = NULL;
  GstFlowReturn ret;

  /* A steady frame needs no Go (steady.h). */
  if (gstc_steady_frame (t, in, out))
    return GST_FLOW_OK;
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
   * be waiting inside prepare_output_buffer; the element wakes it. */
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

  if (dir == GST_PAD_SINK && GST_QUERY_TYPE (q) == GST_QUERY_CAPS
      && k->transform_caps != NULL) {
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
    GstMemory * mem, guint64 pts, guint64 dts, guint64 duration,
    guint64 frame_offset, int phase, int access, guint64 out_dev,
    guint64 out_ino, guint64 out_offset, guint seqnum)
{
  GstcFinishedFrame f;
  GstTensorSyncInfo ts = { phase, access, out_dev, out_ino, out_offset, pts,
    seqnum
  };

  f.end = gstc_transform_end_input (t, p, dev, ino, offset, buf_offset);
  f.buf = gstc_ring_frame_new (mem, pts, duration, frame_offset, FALSE, phase,
      access, out_dev, out_ino, out_offset, seqnum);
  GST_BUFFER_DTS (f.buf) = dts;
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
