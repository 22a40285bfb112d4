/* basetransform.h: C side of basetransform.go — GstBaseTransformClass
 * vfuncs for an element that makes its own output buffers (tensorinfer):
 * prepare_output_buffer through an allocation-free trampoline, a
 * transform that does nothing (the work is done when the output buffer
 * is prepared), and a sink_event trampoline that keeps GstTensorSync
 * begin events in C (pending.h) and tells Go of EOS and flushes. */
#ifndef GSTC_BASETRANSFORM_H
#define GSTC_BASETRANSFORM_H

#include "cgo.h"
#include "gsttensorsync.h"
#include "pending.h"
#include "outring.h"

/* Replace prepare_output_buffer and transform of klass (a
 * GstBaseTransformClass), and its sink_event: serialized GstTensorSync
 * phase=begin events are recorded in the element's pending begins
 * (gstc_pending_attach) and consumed, out-of-band ones are refused; EOS,
 * FLUSH_START and FLUSH_STOP call gstcGoTransformSerializedEvent first,
 * and every event goes on to the sink_event klass had before. */
void gstc_install_base_transform (gpointer klass);

/* Matches the input buffer at offset of the dma-buf (dev, ino) with
 * GST_BUFFER_OFFSET buf_offset to its begin in p and, if there is one,
 * pushes the GstTensorSync end (the begin's access and seqnum) upstream
 * from t's sink pad. Returns bit 0: matched, bit 1: the end was handled,
 * bits 2 and up: the stale begins removed. No lock is held across the
 * push. */
int gstc_transform_end_input (GstBaseTransform * t, GstcPending * p,
    guint64 dev, guint64 ino, guint64 offset, guint64 buf_offset);

/* What gstc_transform_finish_frame did: the output buffer (the
 * caller's) and gstc_transform_end_input's return value. Returned by
 * value: the push of the end may call Go, so Go cannot pass a pointer to
 * its stack. */
typedef struct
{
  GstBuffer *buf;
  int end;
} GstcFinishedFrame;

/* The end of a frame's input (gstc_transform_end_input with dev ... 
 * buf_offset), then its output from output slot slot of ring: the slot's
 * memories pushed (gstc_out_ring_push) into a frame buffer with in's PTS,
 * DTS and duration and offset seq, and either — output=video (the
 * element's GstcVideoOut on) — in's video with those tensors in a
 * GstTensorPinMeta, or that buffer itself, its begin (the slot's first
 * tensor, seqnum seq) pushed downstream from t's src pad first: every
 * frame of tensorinfer's engine (inferframe.c). GstBaseTransform pushes
 * the returned buffer next. in is borrowed. */
GstcFinishedFrame gstc_transform_finish_frame (GstBaseTransform * t,
    GstcPending * p, guint64 dev, guint64 ino, guint64 offset,
    guint64 buf_offset, GstcOutRing * ring, int slot, GstBuffer * in,
    guint64 seq);

/* Answers the sink pad's CAPS query of klass's instances with what
 * their transform_caps gives for the src pad's template (intersected
 * with the filter and the sink template), not GstBaseTransform's
 * default, which puts downstream's untransformed caps first when they
 * intersect the sink template. Other queries go to the class's previous
 * query vfunc. */
void gstc_install_transform_sink_caps (gpointer klass);

#endif /* GSTC_BASETRANSFORM_H */
