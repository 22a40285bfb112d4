/* basesrc.h: tensorsrc's GstPushSrcClass vfuncs in C — create, which
 * makes every frame in the element's frame (srcframe.h), and event,
 * which counts the GstTensorSync end events readers send upstream in the
 * element's end tally — and the parent-class chain-ups go-gst lacks. */
#ifndef TENSORSRC_BASESRC_H
#define TENSORSRC_BASESRC_H

#include "cgo.h"

/* Replaces klass's create with gstc_src_frame_create's and its event
 * with one that counts GST_EVENT_CUSTOM_UPSTREAM GstTensorSync phase=end
 * events in the element's end tally (outring.h; one about no frame in
 * flight is logged) and consumes them, handing every other event to the
 * event function klass had before (go-gst's trampoline to the element's
 * Event). Called once, from the class's init. */
void gstc_install_push_src (gpointer klass);

gboolean gstc_base_src_parent_event (GstBaseSrc * src, GstEvent * ev);
gboolean gstc_base_src_parent_query (GstBaseSrc * src, GstQuery * q);
gboolean gstc_base_src_parent_negotiate (GstBaseSrc * src);

#endif /* TENSORSRC_BASESRC_H */
