/* sinkext.h: C side of the base-sink helpers of package gstc (our own
 * GstBaseSinkClass.render and .event trampolines, which reach Go without
 * go-gst's per-call wrappers). Declarations only; definitions live in
 * sinkext.c. */
#ifndef GSTC_SINKEXT_H
#define GSTC_SINKEXT_H

#include "gstc.h"

/* Replace GstBaseSinkClass.render of klass with a trampoline calling
 * gstcGoBaseSinkRender. */
void gstc_install_base_sink_render (gpointer klass);

/* Replace GstBaseSinkClass.event of klass with a trampoline that hands
 * GstTensorSync phase=begin events to gstcGoBaseSinkTensorSyncBegin
 * (parsed in C, consumed there) and every other event to the event
 * function klass had before (saved as type qdata). */
void gstc_install_base_sink_tensor_sync (gpointer klass);

#endif /* GSTC_SINKEXT_H */
