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
  GstcSinkEventFunc prev;
  gboolean stored;

  if (gstc_pending_take_begin (GST_ELEMENT (sink), ev, &stored)) {
    /* Kept in C for render to match; an out-of-band begin is refused
     * and counted. */
    if (!stored)
      gstc_count (gstc_counters_of (GST_ELEMENT (sink)),
          GSTC_SINK_BEGINS_REJECTED, 1);
    return stored;
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
