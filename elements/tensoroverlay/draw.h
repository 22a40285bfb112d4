/* draw.h: tensoroverlay's rasteriser — clipped filled rectangles, box
 * outlines and text in a 5×7 bitmap font, drawn into a mapped
 * GstVideoFrame of 8-bit packed RGB or 4:2:0 YUV, with a colour
 * converted once into the frame's components. */
#ifndef TENSOR_OVERLAY_DRAW_H
#define TENSOR_OVERLAY_DRAW_H

#include <gst/video/video.h>

/* A colour in a frame's components: value[c] for component c (R, G, B, A
 * of RGB formats, Y, U, V of YUV ones), written with coverage alpha (255:
 * replaced; else blended, (value·alpha + dst·(255 − alpha) + 127) / 255).
 * An RGB format's alpha component is given 255, so that blending
 * composes the colour over it. */
typedef struct
{
  guint8 value[GST_VIDEO_MAX_COMPONENTS];
  guint8 alpha;
} TensorOverlayPaint;

/* The paint of colour argb (0xAARRGGBB) for frames of info: the values as
 * they are for RGB formats; for YUV ones converted with the matrix and
 * range of info's colorimetry (BT.601 when it names none), so a frame
 * never converts. */
void tensor_overlay_paint_init (TensorOverlayPaint * p,
    const GstVideoInfo * info, guint32 argb);

/* Paints the pixels [x0, x1) × [y0, y1) of f, clipped to the frame. A
 * subsampled component's sample is painted when the top-left pixel it
 * covers is (NV12, I420: chroma (cx, cy) goes with pixel (2cx, 2cy)), so
 * rectangles that do not overlap never paint one sample twice. */
void tensor_overlay_fill (GstVideoFrame * f, const TensorOverlayPaint * p,
    gint64 x0, gint64 y0, gint64 x1, gint64 y1);

/* Paints the outline of the box [x, x+w) × [y, y+h): its outermost
 * thickness pixels on each side (the whole box when they meet), as four
 * rectangles that do not overlap, clipped to the frame. */
void tensor_overlay_outline (GstVideoFrame * f, const TensorOverlayPaint * p,
    gint64 x, gint64 y, gint64 w, gint64 h, guint thickness);

/* Glyph metrics at scale s: a glyph is 5s × 7s pixels, the next one
 * starts 6s to the right; a label box adds s on every side. */
#define TENSOR_OVERLAY_GLYPH_W 5
#define TENSOR_OVERLAY_GLYPH_H 7
#define TENSOR_OVERLAY_ADVANCE 6
/* The byte a label holds for a character the font lacks (the placeholder
 * glyph: a hollow box). */
#define TENSOR_OVERLAY_MISSING 127

/* The size of the label box of n characters at scale s. */
static inline gint64
tensor_overlay_label_width (gsize n, guint s)
{
  return (gint64) n * TENSOR_OVERLAY_ADVANCE * s + s;
}

static inline gint64
tensor_overlay_label_height (guint s)
{
  return (gint64) (TENSOR_OVERLAY_GLYPH_H + 2) * s;
}

/* Paints the label box of text (n printable ASCII characters) at (x, y):
 * its background with bg, then each glyph pixel as an s × s square with
 * fg; clipped to the frame. */
void tensor_overlay_label (GstVideoFrame * f, const TensorOverlayPaint * bg,
    const TensorOverlayPaint * fg, gint64 x, gint64 y, const gchar * text,
    gsize n, guint s);

/* Writes into out (size max, max ≥ 1) the characters of s, UTF-8, that the
 * font draws: printable ASCII as it is, any other character (a control
 * byte, or a whole multi-byte UTF-8 sequence) as one TENSOR_OVERLAY_MISSING
 * (drawn as the placeholder box); stops at max − 1
 * characters. Returns how many it wrote (out is NUL-terminated). */
gsize tensor_overlay_printable (const gchar * s, gchar * out, gsize max);

/* The glyph of c: row r as 5 bits, bit 4 the leftmost column. c outside
 * 32–126 gives '?'. */
guint8 tensor_overlay_glyph_bits (guchar c, guint r);

#endif /* TENSOR_OVERLAY_DRAW_H */
