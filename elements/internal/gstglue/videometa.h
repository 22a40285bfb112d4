/* videometa.h: C side of videometa.go — GstVideoMeta checked against the
 * buffer, and the default plane layout of raw video caps. */
#ifndef GSTC_VIDEOMETA_H
#define GSTC_VIDEOMETA_H

#include "cgo.h"

/* Returns 0 or a negative GSTC_VMETA_* code. */
enum
{
  GSTC_VMETA_OK = 0,
  GSTC_VMETA_BAD_FORMAT = -1,
  GSTC_VMETA_BAD_PLANES = -2,
  GSTC_VMETA_NOT_WRITABLE = -3,
  GSTC_VMETA_OUT_OF_RANGE = -4,
  GSTC_VMETA_FAILED = -5,
  GSTC_VMETA_SHORT_STRIDE = -6,
};
int gstc_add_video_meta (GstBuffer * buf, GstVideoFormat fmt, guint width,
    guint height, guint n_planes, const gsize * offsets, const gint * strides);

/* Default plane layout of raw video caps (gst_video_info_from_caps), and
 * the colorimetry's range and matrix as it fills them (its defaults when
 * the caps name none) as their GLib nicks (static strings). */
gboolean gstc_video_layout (GstCaps * caps, GstVideoFormat * fmt, guint * w,
    guint * h, guint * n_planes, gsize * offsets, gint * strides,
    gsize * size, const gchar ** range, const gchar ** matrix);

#endif /* GSTC_VIDEOMETA_H */
