/* basetransform.h: tensorinfer's GstBaseTransformClass vfuncs, for an
 * element that makes its own output buffers: prepare_output_buffer makes
 * the frame (inferframe.h), transform does nothing, sink_event keeps
 * GstTensorSync begin events in C (pending.h) and tells Go of EOS and
 * flushes, and the sink pad's CAPS query follows from the model. */
#ifndef TENSORINFER_BASETRANSFORM_H
#define TENSORINFER_BASETRANSFORM_H

#include "cgo.h"
#include "gsttensorsync.h"

/* Replaces prepare_output_buffer (every frame made by gstc_infer_frame)
 * and transform of klass (a GstBaseTransformClass), and its sink_event:
 * serialized GstTensorSync phase=begin events are recorded in the
 * element's pending begins (gstc_pending_attach) and consumed,
 * out-of-band ones are refused; FLUSH_START sets the element's wake
 * flushing (ending the frame's waits) and FLUSH_STOP clears it; EOS and
 * FLUSH_STOP call gstcGoInferSinkEvent first; every event goes on to the
 * sink_event klass had before. Called once, from the class's init. */
void gstc_install_base_transform (gpointer klass);

/* Answers the sink pad's CAPS query of klass's instances with what
 * their transform_caps gives for the src pad's template (intersected
 * with the filter and the sink template), not GstBaseTransform's
 * default, which puts downstream's untransformed caps first when they
 * intersect the sink template. Other queries go to the class's previous
 * query vfunc. */
void gstc_install_transform_sink_caps (gpointer klass);

#endif /* TENSORINFER_BASETRANSFORM_H */
