/* basesink.c: tensorpinsink's render and event vfuncs (basesink.h). */
#include "basesink.h"
#include "element.h"
#include "pending.h"
#include "sinkframe.h"

typedef gboolean (*GstcSinkEventFunc) (GstBaseSink * sink, GstEvent * ev);

static GstFlowReturn
base_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstFlowReturn ret;

  if (gstc_sink_frame_render (sink, buf, &ret))
    return ret;
  /* No engine: the sink is not between start and stop, where GstBaseSink
   * renders nothing; a render racing a stop ends as a flush does. */
  return GST_FLOW_FLUSHING;
}

static gboolean
base_sink_event (GstBaseSink * sink, GstEvent * ev)
{
  GstTensorSyncInfo ts;
  GstcSinkEventFunc prev;

  if (gst_tensor_sync_event_parse (ev, &ts) && ts.phase == GST_TENSOR_SYNC_BEGIN) {
    gboolean serialized = GST_EVENT_IS_SERIALIZED (ev);

    /* The base-sink event vfunc is transfer full. */
    gst_event_unref (ev);
    if (!serialized) {
      /* An out-of-band begin reaches us on the sender's thread, not in
       * order with the buffers: it cannot announce the next one.
       * Refused and counted here, so only the streaming thread ever
       * records a pending begin. */
      gstc_count (gstc_counters_of (GST_ELEMENT (sink)),
          GSTC_SINK_BEGINS_REJECTED, 1);
      return FALSE;
    }
    /* Kept in C for render to match. */
    gstc_pending_store (gstc_pending_attach (GST_ELEMENT (sink)), &ts);
    return TRUE;
  }
  prev = (GstcSinkEventFunc) gstc_vfunc_overridden (sink,
      gstc_prev_event_quark ());
  if (prev == NULL) {
    gst_event_unref (ev);
    return FALSE;
  }
  return prev (sink, ev);
}

void
gstc_install_base_sink (gpointer klass)
{
  GST_BASE_SINK_CLASS (klass)->render = base_sink_render;
  gstc_vfunc_override (klass, gstc_prev_event_quark (),
      (gpointer *) & GST_BASE_SINK_CLASS (klass)->event,
      (gpointer) base_sink_event);
}
