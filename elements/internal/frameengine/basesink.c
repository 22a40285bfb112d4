/* basesink.c: C definitions of basesink.go (see there for the ownership
 * rules). */
#include "basesink.h"
#include "pending.h"
#include "element.h"
#include "schedtick.h"
#include "sinkframe.h"
#include "_cgo_export.h"

typedef gboolean (*GstcSinkEventFunc) (GstBaseSink * sink, GstEvent * ev);

static GstFlowReturn
base_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstFlowReturn ret;

  /* A sink with a frame engine (sinkframe.h) makes every frame there. */
  if (gstc_sink_frame_render (sink, buf, &ret))
    return ret;
  ret = gstcGoBaseSinkRender (sink, gstc_instance_handle (sink), buf);
  gstc_sched_tick ();
  return ret;
}

void
gstc_install_base_sink_render (gpointer klass)
{
  GST_BASE_SINK_CLASS (klass)->render = base_sink_render;
}

static gboolean
base_sink_event (GstBaseSink * sink, GstEvent * ev)
{
  GstTensorSyncInfo ts;
  GstcSinkEventFunc prev;

  if (gst_tensor_sync_event_parse (ev, &ts) && ts.phase == GST_TENSOR_SYNC_BEGIN) {
    gboolean ret;
    GstcPending *pending;

    if (!GST_EVENT_IS_SERIALIZED (ev)) {
      /* An out-of-band begin reaches us on the sender's thread, not in
       * order with the buffers: it cannot announce the next one. Refused
       * (and counted) here, so only the streaming thread ever records a
       * pending begin. */
      gstcGoBaseSinkTensorSyncRejected (sink, gstc_instance_handle (sink));
      gst_event_unref (ev);
      return FALSE;
    }
    pending = gstc_pending_of (sink);
    if (pending != NULL) {
      /* Kept in C for render to match: no Go callback. */
      gstc_pending_store (pending, &ts);
      ret = TRUE;
    } else
      ret = gstcGoBaseSinkTensorSyncBegin (sink, gstc_instance_handle (sink), &ts);
    /* The base-sink event vfunc is transfer full. */
    gst_event_unref (ev);
    return ret;
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
gstc_install_base_sink_tensor_sync (gpointer klass)
{
  gstc_vfunc_override (klass, gstc_prev_event_quark (),
      (gpointer *) & GST_BASE_SINK_CLASS (klass)->event,
      (gpointer) base_sink_event);
}

gboolean
gstc_base_sink_parent_query (GstBaseSink * sink, GstQuery * q)
{
  GstBaseSinkClass *p = GST_BASE_SINK_CLASS (GSTC_PARENT_CLASS (sink));
  return p->query ? p->query (sink, q) : FALSE;
}
