/* videoout.h: tensorinfer's output=video — the element's state its
 * frames read: the input video pushed on with the frame's outputs in a
 * GstTensorPinMeta (tensormeta.h), and interval's reuse of the last
 * result. */
#ifndef TENSORINFER_VIDEOOUT_H
#define TENSORINFER_VIDEOOUT_H

#include "cgo.h"
#include "tensormeta.h"

/* An element's output=video state: qdata of the element
 * (gstc_video_out_attach), freed with it. lock guards every field; it is
 * never held across a call out. */
typedef struct
{
  GMutex lock;
  gboolean on;                  /* output=video */
  gint interval;                /* run every interval-th frame (>= 1) */
  guint64 count;                /* frames seen since the last reset */
  GstBuffer *last;              /* the last run's tensors (a reference), or NULL */
  guint64 last_run;
  GstCaps *caps;                /* the tensors' caps (a reference), or NULL */
  guint model_width, model_height;
  gdouble scale_x, scale_y, offset_x, offset_y;
  guint64 reused;               /* frames given the last result (interval) */
  const gchar *producer;        /* the element's name at start, interned */
} GstcVideoOut;

/* The state of element (attached on the first call). */
GstcVideoOut *gstc_video_out_attach (GstElement * element);
/* The state of obj, or NULL if none is attached. */
GstcVideoOut *gstc_video_out_of (gpointer obj);
/* Whether output=video is on for obj (FALSE when no state is attached);
 * takes the state's lock. */
gboolean gstc_video_out_on (gpointer obj);

/* out (the caller's): in itself (taking over the reference GstBaseTransform
 * holds, when in is writable) or a copy with in's memories, timestamps and
 * metas (no pixel copied) and a GstTensorPinMeta holding tensors (its
 * reference is taken over) described by vo. */
GstBuffer *gstc_video_out_frame (GstcVideoOut * vo, GstBuffer * in,
    GstBuffer * tensors, guint64 run);

/* With interval > 1, a frame that is not the interval-th: *out is in's
 * video with the last run's tensors, and TRUE; FALSE when the frame must
 * run (and is counted). */
gboolean gstc_video_out_skip (GstcVideoOut * vo, GstBuffer * in,
    GstBuffer ** out);

/* out (the caller's): in itself (taking over the reference
 * GstBaseTransform holds, when in is writable) or a copy with in's
 * memories, timestamps and metas (no pixel copied): a frame the region
 * mode adds its metas to. */
GstBuffer *gstc_video_out_buffer (GstcVideoOut * vo, GstBuffer * in);

/* The results' producer (interned), or NULL. */
const gchar *gstc_video_out_producer (GstcVideoOut * vo);

/* Names the results' producer: element's name now (at start). */
void gstc_video_out_set_producer (GstcVideoOut * vo, GstElement * element);

/* Forgets the last result and the count (flush, stop, new caps). */
void gstc_video_out_reset (GstcVideoOut * vo);

#endif /* TENSORINFER_VIDEOOUT_H */
