/* basesink.h: tensorpinsink's GstBaseSinkClass vfuncs in C — render,
 * which makes every frame in the sink's frame engine (sinkframe.h), and
 * event, which keeps GstTensorSync begins for render to match. */
#ifndef TENSORPINSINK_BASESINK_H
#define TENSORPINSINK_BASESINK_H

#include "cgo.h"

/* Replaces klass's render with one calling the frame engine
 * (gstc_sink_frame_render; a buffer before start is refused with an
 * error) and its event with one that records serialized GstTensorSync
 * phase=begin events in the element's pending begins (pending.h) and
 * consumes them, refuses out-of-band ones (counted in the sink's
 * begins-rejected; consumed, not handled), and hands every other event
 * to the event function klass had before (go-gst's trampoline to the
 * element's Event). Called once, from the class's init. */
void gstc_install_base_sink (gpointer klass);

#endif /* TENSORPINSINK_BASESINK_H */
