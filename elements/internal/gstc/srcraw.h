/* srcraw.h: C side of the raw base-src helpers of package gstc (our own
 * GstPushSrcClass.create and GstBaseSrcClass.event trampolines, which
 * reach Go without go-gst's per-call wrappers). Declarations only;
 * definitions live in srcraw.c. */
#ifndef GSTC_SRCRAW_H
#define GSTC_SRCRAW_H

#include "gstc.h"

/* Replace GstPushSrcClass.create of klass with a trampoline calling
 * gstcGoPushSrcCreateRaw. */
void gstc_install_push_src_create_raw (gpointer klass);

/* Replace GstBaseSrcClass.event of klass with a trampoline that hands
 * GST_EVENT_CUSTOM_UPSTREAM GstTensorSync phase=end events to
 * gstcGoBaseSrcTensorSyncEnd (parsed in C) and every other event to the
 * event function klass had before (saved as type qdata). */
void gstc_install_base_src_tensor_sync (gpointer klass);

#endif /* GSTC_SRCRAW_H */
