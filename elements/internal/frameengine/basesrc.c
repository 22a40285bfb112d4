/* basesrc.c: C definitions of basesrc.go (see there for the ownership
 * rules). */
#include "basesrc.h"
#include "element.h"
#include "endtally.h"
#include "schedtick.h"
#include "srcsteady.h"
#include "_cgo_export.h"

typedef gboolean (*GstcSrcEventFunc) (GstBaseSrc * src, GstEvent * ev);

static GstFlowReturn
push_src_create (GstPushSrc * src, GstBuffer ** buf)
{
  GstFlowReturn ret;

  /* tensorsrc's frame never calls into Go (srcsteady.h); another
   * element's create is its Go CreateRaw. */
  if (gstc_src_steady_create (src, buf, &ret))
    return ret;
  ret = gstcGoPushSrcCreateRaw (src, gstc_instance_handle (src), buf);
  gstc_sched_tick ();
  return ret;
}

void
gstc_install_push_src_create (gpointer klass)
{
  GST_PUSH_SRC_CLASS (klass)->create = push_src_create;
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
    /* An element with an end tally counts its ends here; only an end
     * about no frame of it in flight reaches Go (to be logged). */
    tally = gstc_end_tally_of (src);
    if (tally != NULL && gstc_end_tally_count (tally, &ts))
      return TRUE;
    return gstcGoBaseSrcTensorSyncEnd (src, gstc_instance_handle (src), &ts);
  }
  prev = (GstcSrcEventFunc) gstc_vfunc_overridden (src,
      gstc_prev_event_quark ());
  if (prev == NULL)
    return FALSE;
  return prev (src, ev);
}

void
gstc_install_base_src_tensor_sync (gpointer klass)
{
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
gstc_base_src_parent_decide_allocation (GstBaseSrc * src, GstQuery * q)
{
  GstBaseSrcClass *p = PARENT_SRC_CLASS (src);
  return p->decide_allocation ? p->decide_allocation (src, q) : TRUE;
}

gboolean
gstc_base_src_parent_negotiate (GstBaseSrc * src)
{
  GstBaseSrcClass *p = PARENT_SRC_CLASS (src);
  return p->negotiate ? p->negotiate (src) : TRUE;
}
