/* basesink.h: C side of basesink.go — our own GstBaseSinkClass.render and
 * .event trampolines, which reach Go without go-gst's per-call wrappers,
 * and the parent-class chain-up go-gst lacks. */
#ifndef GSTC_BASESINK_H
#define GSTC_BASESINK_H

#include "cgo.h"
#include "gsttensorsync.h"

/* Replace GstBaseSinkClass.render of klass with a trampoline calling
 * gstcGoBaseSinkRender. */
void gstc_install_base_sink_render (gpointer klass);

/* Replace GstBaseSinkClass.event of klass with a trampoline that hands
 * serialized GstTensorSync phase=begin events to
 * gstcGoBaseSinkTensorSyncBegin (parsed in C, consumed there), refuses
 * out-of-band ones (gstcGoBaseSinkTensorSyncRejected; consumed, not
 * handled), and hands every other event to the event function klass had
 * before. */
void gstc_install_base_sink_tensor_sync (gpointer klass);

gboolean gstc_base_sink_parent_query (GstBaseSink * sink, GstQuery * q);

#endif /* GSTC_BASESINK_H */
