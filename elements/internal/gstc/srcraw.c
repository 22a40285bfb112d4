/* srcraw.c: C definitions of the raw base-src helpers of package gstc
 * (see basesrc.go for the ownership rules). */
#include "srcraw.h"
#include "_cgo_export.h"

typedef gboolean (*GstcSrcEventFunc) (GstBaseSrc * src, GstEvent * ev);

static GstFlowReturn
gstc_push_src_create_raw (GstPushSrc * src, GstBuffer ** buf)
{
  return gstcGoPushSrcCreateRaw (src, buf);
}

void
gstc_install_push_src_create_raw (gpointer klass)
{
  GST_PUSH_SRC_CLASS (klass)->create = gstc_push_src_create_raw;
}

static GQuark
prev_src_event_quark (void)
{
  static gsize init = 0;
  static GQuark q = 0;

  if (g_once_init_enter (&init)) {
    q = g_quark_from_static_string ("gstc-base-src-prev-event");
    g_once_init_leave (&init, 1);
  }
  return q;
}

static gboolean
gstc_base_src_event (GstBaseSrc * src, GstEvent * ev)
{
  GstcTensorSync ts;
  GstcSrcEventFunc prev = NULL;
  GType t;

  /* The base-src event vfunc is transfer none: the pad's event function
   * unrefs ev afterwards, whoever handles it. */
  if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM
      && gstc_tensor_sync_parse (ev, &ts) && ts.phase == 2)
    return gstcGoBaseSrcTensorSyncEnd (src, &ts);
  /* The function the installing class had before: found on the instance's
   * type or, for a subclass of it, on the nearest ancestor. */
  for (t = G_OBJECT_TYPE (src); t != 0 && prev == NULL; t = g_type_parent (t))
    prev = (GstcSrcEventFunc) g_type_get_qdata (t, prev_src_event_quark ());
  if (prev == NULL)
    return FALSE;
  return prev (src, ev);
}

void
gstc_install_base_src_tensor_sync (gpointer klass)
{
  GstBaseSrcClass *k = GST_BASE_SRC_CLASS (klass);

  if (k->event == gstc_base_src_event)
    return;
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), prev_src_event_quark (),
      (gpointer) k->event);
  k->event = gstc_base_src_event;
}
