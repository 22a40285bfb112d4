/* basetransform.c: tensorinfer's GstBaseTransformClass vfuncs
 * (basetransform.h). */
#include "basetransform.h"
#include "element.h"
#include "inferframe.h"
#include "wake.h"
#include "videoout.h"
#include "pending.h"
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
  GstFlowReturn ret;
  GstcVideoOut *vo = gstc_video_out_of (t);

  /* output=video with interval: the last result on this frame. */
  if (vo != NULL && gstc_video_out_skip (vo, in, out)) {
    gstc_infer_skipped_input_end (t, in);
    return GST_FLOW_OK;
  }
  /* Every frame is the engine's (inferframe.h). */
  if (gstc_infer_frame (t, in, out, &ret))
    return ret;
  /* No engine: the element is not between start and stop, where
   * GstBaseTransform transforms nothing; a frame racing a stop ends as a
   * flush does. */
  *out = NULL;
  return GST_FLOW_FLUSHING;
}

static GstFlowReturn
transform_nothing (GstBaseTransform * t, GstBuffer * in, GstBuffer * out)
{
  return GST_FLOW_OK;
}

static gboolean
transform_sink_event (GstBaseTransform * t, GstEvent * ev)
{
  GstcTransformEventFunc prev;
  gboolean stored;

  /* A serialized begin is kept in C for the frame's prepare to match: no
   * Go callback. Begins are consumed here: the element announces its own
   * output downstream. */
  if (gstc_pending_take_begin (GST_ELEMENT (t), ev, &stored))
    return stored;
  /* FLUSH_START is not serialized: it arrives on the flushing thread,
   * with the sink pad already FLUSHING, while the streaming thread may
   * be waiting inside prepare_output_buffer: the wake ends the wait. */
  if (GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_START)
    gstc_wake_set_flushing (gstc_wake_of (GST_ELEMENT (t)), TRUE);
  else if (GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_STOP)
    gstc_wake_set_flushing (gstc_wake_of (GST_ELEMENT (t)), FALSE);
  /* A new segment (a seek, flushing or not; a loop) starts a new
   * interval count: no frame after it carries a run from before it. */
  if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT)
    gstc_video_out_reset (gstc_video_out_of (t));
  if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS
      || GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_STOP)
    gstcGoInferSinkEvent (t, gstc_instance_handle (t), GST_EVENT_TYPE (ev));
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

  gboolean video = gstc_video_out_on (t);

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

