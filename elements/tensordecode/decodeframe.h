/* decodeframe.h: tensordecode's frame in C — before_transform and
 * transform_ip installed over go-gst's, which allocate wrappers every
 * call. before_transform calls Go once a frame (gstcGoTensorDecodeFrame,
 * decodeframe.go): Go reads the tensors (the buffer's memories, or its
 * GstTensorPinMeta), decodes them and writes what the frame gets into the
 * instance's object list here (tdec_frame_add); transform_ip, on the
 * buffer GstBaseTransform made writable, adds them — a region per
 * detection, a "classification" structure onto a region per region
 * result — and posts the objects message. A frame with nothing to add is
 * passed through, never made writable.
 *
 * Ownership: the state (TdecFrame) is allocated by tdec_frame_attach and
 * belongs to the GstElement (object qdata, freed with it). Labels added
 * with TDEC_LABEL_BORROWED are the caller's and must outlive the frame
 * (the labels file's, kept from start to stop); the others are copied
 * and freed with the frame's next reset. The functions below borrow the
 * element and the buffer. */
#ifndef TENSORDECODE_DECODEFRAME_H
#define TENSORDECODE_DECODEFRAME_H

#include <gst/gst.h>
#include <gst/base/base.h>

/* What a frame's decoding asks of transform_ip. */
enum
{
  TDEC_PASS,                    /* no tensors: passthrough, no message */
  TDEC_EMPTY,                   /* decoded, nothing found: passthrough */
  TDEC_WRITE,                   /* objects to add */
  TDEC_ERROR,                   /* an error was posted: a flow error */
  TDEC_NOT_NEGOTIATED,          /* a buffer before caps (posted) */
};

/* What an object is on the frame. */
enum
{
  TDEC_REGION,                  /* a region of its own (parent: region_id) */
  TDEC_CLASSIFICATION,          /* a "classification" onto region region_id */
};

/* How an object's region type is named. */
enum
{
  TDEC_TYPE_LABEL,              /* its label, else "class-N" */
  TDEC_TYPE_CLASSIFICATION,     /* "classification" (classify's whole frame) */
  TDEC_TYPE_TEXT,               /* "text" (ctc's whole frame) */
};

/* Replaces before_transform and transform_ip of klass (a
 * GstBaseTransformClass, after go-gst's InitClass). */
void tdec_frame_install (gpointer klass);

/* Gives the instance e its state, once, from instance_init. */
void tdec_frame_attach (GstElement * e);

/* Empties e's object list (freeing its copied labels) and sets the
 * model name region results name (NULL: none; copied). */
void tdec_frame_reset (GstElement * e, const gchar * model, gsize model_len);

/* Adds an object to e's list: kind (TDEC_REGION, TDEC_CLASSIFICATION),
 * region_id (the region a classification goes onto, a region's parent;
 * -1: none), the box in frame pixels (a classification's is its region's,
 * read when it is added), class id (< 0: none), confidence, label
 * (label_len bytes, not NUL-terminated; borrowed when borrowed, else
 * copied), type naming (TDEC_TYPE_*). */
void tdec_frame_add (GstElement * e, gint kind, gint region_id, guint x,
    guint y, guint w, guint h, gint class_id, gdouble confidence,
    const gchar * label, gsize label_len, gboolean borrowed, gint type);

/* Sets whether e posts each frame's objects (post-messages). */
void tdec_frame_set_post (GstElement * e, gboolean post);

/* The time transform_ip spent adding objects since the last call, in
 * ns (read and cleared), and the results it wrote. */
guint64 tdec_frame_take_attach_ns (GstElement * e);

/* For tests: runs e's before_transform and transform_ip on buf (the
 * caller's reference, made writable here when needed: the buffer
 * returned is the caller's). */
GstFlowReturn tdec_frame_run (GstElement * e, GstBuffer ** buf);

/* For tests: tdec_frame_run on a copy of tmpl (borrowed: its metas and
 * memories copied as a pipeline's upstream copy would), dropped after. */
GstFlowReturn tdec_frame_run_copy (GstElement * e, GstBuffer * tmpl);

#endif /* TENSORDECODE_DECODEFRAME_H */
