/* publish.h: tensorpublish's per-frame path, in C — the GstBaseTransform
 * vfuncs that read each frame's regions of interest (transform_ip,
 * set_caps) and hold EOS until what was published is flushed
 * (sink_event), and the counters Go reads for the stats property. A frame
 * with objects (or any frame, with add-empty-frames) is one call into Go,
 * with the regions read into C arrays the state reuses.
 *
 * Ownership: the instance's state (TensorPublishState, publish.c) is
 * allocated by tensor_publish_attach and belongs to the GstElement, as
 * object qdata freed with it; its arrays grow to the largest frame's and
 * are freed with it. The functions below borrow the element. */
#ifndef TENSOR_PUBLISH_H
#define TENSOR_PUBLISH_H

#include <stdint.h>
#include <gst/gst.h>
#include <gst/base/base.h>
#include "roimeta.h"

/* One frame handed to Go: its PTS, size, and regions as gstc_roi_list_full
 * read them (borrowed: valid for the call). */
typedef struct
{
  guint64 pts;                  /* GST_CLOCK_TIME_NONE: none */
  gint width, height;
  const GstcRoi *rois;
  guint n_rois;
  const GstcRoiClass *classes;
  guint n_classes;
} TensorPublishFrame;

/* The counters since the last start. */
typedef struct
{
  guint64 frames;               /* buffers through transform_ip */
  guint64 objects;              /* regions read */
  guint64 frame_ns;             /* time spent in transform_ip, total */
} TensorPublishStats;

/* Replaces set_caps, transform_ip and sink_event of klass (a
 * GstBaseTransformClass, after go-gst's InitClass), keeping the
 * sink_event it had to chain to; makes the class passthrough. */
void tensor_publish_install (gpointer klass);

/* Gives the instance e its state, once, from instance_init. */
void tensor_publish_attach (GstElement * e);

/* Sets e's Go side for the frames to come: handle (a gstglue handle; 0:
 * none, frames pass untouched) and whether frames without objects are
 * handed over too. Called where no frame runs (start, stop). Resets the
 * counters when handle is not 0. */
void tensor_publish_set_handle (GstElement * e, uintptr_t handle,
    gboolean add_empty);

/* Posts a warning (GST_MESSAGE_WARNING) or an info (GST_MESSAGE_INFO)
 * from e, in GStreamer's resource error domain with code, text its
 * message (copied). */
void tensor_publish_post (GstElement * e, GstMessageType type, gint code,
    const gchar * text);

/* Copies e's counters into out (zeros if e has no state). */
void tensor_publish_read_stats (GstElement * e, TensorPublishStats * out);

#endif /* TENSOR_PUBLISH_H */
