/* sinkext.c: C definitions of the base-sink helpers of package gstc (see
 * basesink.go for the ownership rules). */
#include "sinkext.h"
#include "_cgo_export.h"

typedef gboolean (*GstcSinkEventFunc) (GstBaseSink * sink, GstEvent * ev);

static GstFlowReturn
gstc_base_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  return gstcGoBaseSinkRender (sink, buf);
}

void
gstc_install_base_sink_render (gpointer klass)
{
  GST_BASE_SINK_CLASS (klass)->render = gstc_base_sink_render;
}

static GQuark
prev_event_quark (void)
{
  static gsize init = 0;
  static GQuark q = 0;

  if (g_once_init_enter (&init)) {
    q = g_quark_from_static_string ("gstc-base-sink-prev-event");
    g_once_init_leave (&init, 1);
  }
  return q;
}

static gboolean
gstc_base_sink_event (GstBaseSink * sink, GstEvent * ev)
{
  GstcTensorSync ts;
  GstcSinkEventFunc prev = NULL;
  GType t;

  if (gstc_tensor_sync_parse (ev, &ts) && ts.phase == 1) {
    gboolean ret = gstcGoBaseSinkTensorSyncBegin (sink, &ts);
    /* The base-sink event vfunc is transfer full. */
    gst_event_unref (ev);
    return ret;
  }
  /* The function the installing class had before: found on the instance's
   * type or, for a subclass of it, on the nearest ancestor. */
  for (t = G_OBJECT_TYPE (sink); t != 0 && prev == NULL; t = g_type_parent (t))
    prev = (GstcSinkEventFunc) g_type_get_qdata (t, prev_event_quark ());
  if (prev == NULL) {
    gst_event_unref (ev);
    return FALSE;
  }
  return prev (sink, ev);
}

void
gstc_install_base_sink_tensor_sync (gpointer klass)
{
  GstBaseSinkClass *k = GST_BASE_SINK_CLASS (klass);

  if (k->event == gstc_base_sink_event)
    return;
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), prev_event_quark (),
      (gpointer) k->event);
  k->event = gstc_base_sink_event;
}
