/* basesrc.c: tensorsrc's create and event vfuncs and chain-ups
 * (basesrc.h). */
#include "basesrc.h"
#include "element.h"
#include "outring.h"
#include "srcframe.h"

GST_DEBUG_CATEGORY_STATIC (tensorsrc_debug);
#define GST_CAT_DEFAULT tensorsrc_debug

typedef gboolean (*GstcSrcEventFunc) (GstBaseSrc * src, GstEvent * ev);

static GstFlowReturn
push_src_create (GstPushSrc * src, GstBuffer ** buf)
{
  GstFlowReturn ret;

  if (gstc_src_frame_create (src, buf, &ret))
    return ret;
  /* No frame attached: the element was never started. */
  *buf = NULL;
  return GST_FLOW_FLUSHING;
}

static gboolean
base_src_event (GstBaseSrc * src, GstEvent * ev)
{
  GstTensorSyncInfo ts;
  GstcSrcEventFunc prev;
  GstcEndTally *tally;

  /* The base-src event vfunc is transfer none: the pad's event function
   * unrefs ev afterwards, whoever handles it. */
  if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM
      && gst_tensor_sync_event_parse (ev, &ts)
      && ts.phase == GST_TENSOR_SYNC_END) {
    /* A reader is done with a frame: counted; the frame's bracket ends
     * when the slot's memory comes back from its last holder. */
    tally = gstc_end_tally_of (src);
    if (tally == NULL || !gstc_end_tally_count (tally, &ts))
      GST_DEBUG_OBJECT (src, "GstTensorSync end for (%" G_GUINT64_FORMAT ",%"
          G_GUINT64_FORMAT ")+%" G_GUINT64_FORMAT " seqnum %u is about no "
          "frame of this source in flight", ts.dev, ts.ino, ts.offset,
          ts.seqnum);
    return TRUE;
  }
  prev = (GstcSrcEventFunc) gstc_vfunc_overridden (src,
      gstc_prev_event_quark ());
  if (prev == NULL)
    return FALSE;
  return prev (src, ev);
}

void
gstc_install_push_src (gpointer klass)
{
  /* The element's own category: the same one its Go side logs to. */
  GST_DEBUG_CATEGORY_INIT (tensorsrc_debug, "tensorsrc", 0,
      "tensorsrc: a ring of pinned tensors pushed as DMA-BUF/fd buffers");
  GST_PUSH_SRC_CLASS (klass)->create = push_src_create;
  gstc_vfunc_override (klass, gstc_prev_event_quark (),
      (gpointer *) & GST_BASE_SRC_CLASS (klass)->event,
      (gpointer) base_src_event);
}

#define PARENT_SRC_CLASS(src) GST_BASE_SRC_CLASS (GSTC_PARENT_CLASS (src))

gboolean
gstc_base_src_parent_event (GstBaseSrc * src, GstEvent * ev)
{
  GstBaseSrcClass *p = PARENT_SRC_CLASS (src);
  return p->event ? p->event (src, ev) : FALSE;
}

gboolean
gstc_base_src_parent_query (GstBaseSrc * src, GstQuery * q)
{
  GstBaseSrcClass *p = PARENT_SRC_CLASS (src);
  return p->query ? p->query (src, q) : FALSE;
}

gboolean
gstc_base_src_parent_negotiate (GstBaseSrc * src)
{
  GstBaseSrcClass *p = PARENT_SRC_CLASS (src);
  return p->negotiate ? p->negotiate (src) : TRUE;
}
