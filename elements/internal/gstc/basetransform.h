/* basetransform.h: C side of basetransform.go — GstBaseTransformClass
 * vfuncs for an element that makes its own output buffers (tensorinfer):
 * prepare_output_buffer through an allocation-free trampoline, a
 * transform that does nothing (the work is done when the output buffer
 * is prepared), and a sink_event trampoline for GstTensorSync begin
 * events and EOS. */
#ifndef GSTC_BASETRANSFORM_H
#define GSTC_BASETRANSFORM_H

#include "cgo.h"
#include "gsttensorsync.h"

/* Replace prepare_output_buffer and transform of klass (a
 * GstBaseTransformClass), and its sink_event: serialized GstTensorSync
 * phase=begin events go to gstcGoTransformTensorSyncBegin (consumed),
 * out-of-band ones are refused, EOS, FLUSH_START and FLUSH_STOP call
 * gstcGoTransformSerializedEvent first, and every event goes on to the
 * sink_event klass had before. */
void gstc_install_base_transform (gpointer klass);

#endif /* GSTC_BASETRANSFORM_H */
