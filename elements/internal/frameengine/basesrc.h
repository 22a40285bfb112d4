/* basesrc.h: C side of basesrc.go — our own GstPushSrcClass.create and
 * GstBaseSrcClass.event trampolines, which reach Go without go-gst's
 * per-call wrappers, and the parent-class chain-ups go-gst lacks. */
#ifndef GSTC_BASESRC_H
#define GSTC_BASESRC_H

#include "cgo.h"
#include "gsttensorsync.h"

/* Replace GstPushSrcClass.create of klass with a trampoline calling
 * gstcGoPushSrcCreateRaw. */
void gstc_install_push_src_create (gpointer klass);

/* Replace GstBaseSrcClass.event of klass with a trampoline that hands
 * GST_EVENT_CUSTOM_UPSTREAM GstTensorSync phase=end events to
 * gstcGoBaseSrcTensorSyncEnd (parsed in C; if the element has an end
 * tally, counted there first and passed on only if about no frame in
 * flight) and every other event to the event function klass had
 * before. */
void gstc_install_base_src_tensor_sync (gpointer klass);

gboolean gstc_base_src_parent_event (GstBaseSrc * src, GstEvent * ev);
gboolean gstc_base_src_parent_query (GstBaseSrc * src, GstQuery * q);
gboolean gstc_base_src_parent_decide_allocation (GstBaseSrc * src,
    GstQuery * q);
gboolean gstc_base_src_parent_negotiate (GstBaseSrc * src);

#endif /* GSTC_BASESRC_H */
