/* overlay.h: tensoroverlay's per-frame path, in C — the GstBaseTransform
 * vfuncs that draw each GstVideoRegionOfInterestMeta of a frame on it
 * (set_caps, prepare_output_buffer, transform_ip, start), the drawing
 * parameters Go pushes in when a property changes, and the counters Go
 * reads for the stats property. No frame calls into Go.
 *
 * Ownership: the instance's state (TensorOverlayState, overlay.c) is
 * allocated by tensor_overlay_attach and belongs to the GstElement, as
 * object qdata freed with it; the functions below borrow the element. */
#ifndef TENSOR_OVERLAY_H
#define TENSOR_OVERLAY_H

#include <gst/gst.h>
#include <gst/base/base.h>
#include <gst/video/video.h>

/* What a property change pushes: read once per frame. */
typedef struct
{
  guint line_width;             /* outline thickness in pixels, >= 1 */
  guint32 color;                /* 0xAARRGGBB; alpha 255 is opaque */
  gboolean draw_labels;
  guint font_scale;             /* a glyph pixel is font_scale² pixels, >= 1 */
} TensorOverlayParams;

/* The counters since the last start. */
typedef struct
{
  guint64 frames;               /* buffers through transform_ip */
  guint64 boxes;                /* regions drawn (some part inside the frame) */
  guint64 copies;               /* frames whose memory was copied to draw */
} TensorOverlayStats;

/* Replaces set_caps, prepare_output_buffer, transform_ip and start of
 * klass (a GstBaseTransformClass, after go-gst's InitClass), keeping the
 * prepare_output_buffer and start it had to chain to. */
void tensor_overlay_install (gpointer klass);

/* Gives the instance e its state with parameters p (copied), once, from
 * instance_init. */
void tensor_overlay_attach (GstElement * e, const TensorOverlayParams * p);

/* Replaces e's parameters with p (copied), under the state's lock; the
 * next frame draws with them. */
void tensor_overlay_set_params (GstElement * e, const TensorOverlayParams * p);

/* Copies e's counters into out (zeros if e has no state). */
void tensor_overlay_read_stats (GstElement * e, TensorOverlayStats * out);

#endif /* TENSOR_OVERLAY_H */
