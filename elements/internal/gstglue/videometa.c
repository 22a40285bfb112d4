/* videometa.c: GstVideoMeta checked against the buffer, and the default
 * plane layout of raw video caps. Each function's contract — what it owns,
 * borrows and takes over, and who may call it — is its comment in
 * videometa.h; the Go side is videometa.go. */
#include "videometa.h"

int
gstc_add_video_meta (GstBuffer * buf, GstVideoFormat fmt, guint width,
    guint height, guint n_planes, const gsize * offsets, const gint * strides)
{
  const GstVideoFormatInfo *finfo;
  guint64 size;
  guint p, c;

  if (fmt == GST_VIDEO_FORMAT_UNKNOWN || fmt == GST_VIDEO_FORMAT_ENCODED)
    return GSTC_VMETA_BAD_FORMAT;
  finfo = gst_video_format_get_info (fmt);
  if (finfo == NULL)
    return GSTC_VMETA_BAD_FORMAT;
  if (n_planes != GST_VIDEO_FORMAT_INFO_N_PLANES (finfo))
    return GSTC_VMETA_BAD_PLANES;
  if (!gst_buffer_is_writable (buf))
    return GSTC_VMETA_NOT_WRITABLE;
  if (width == 0 || height == 0)
    return GSTC_VMETA_OUT_OF_RANGE;

  /* Every plane must lie inside the buffer: a consumer that trusts the
   * meta would otherwise read past the end. */
  size = gst_buffer_get_size (buf);
  for (p = 0; p < n_planes; p++) {
    guint64 row = 1, ph = height, need;

    if (strides[p] <= 0)
      return GSTC_VMETA_SHORT_STRIDE;
    if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)) {
      if (offsets[p] >= size)
        return GSTC_VMETA_OUT_OF_RANGE;
      continue;
    }
    for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
      guint64 r;

      if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != p)
        continue;
      ph = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, c, height);
      r = (guint64) GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, c, width) *
          GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
      if (r > row)
        row = r;
    }
    if (row > (guint64) strides[p])
      return GSTC_VMETA_SHORT_STRIDE;
    if (ph == 0)
      return GSTC_VMETA_OUT_OF_RANGE;
    need = offsets[p] + (guint64) strides[p] * (ph - 1) + row;
    if (need > size)
      return GSTC_VMETA_OUT_OF_RANGE;
  }

  if (gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, fmt,
          width, height, n_planes, (gsize *) offsets, (gint *) strides) == NULL)
    return GSTC_VMETA_FAILED;
  return GSTC_VMETA_OK;
}

/* enum_nick is value's nick in enum type (static: the class lives as
 * long as the type), or "unknown". */
static const gchar *
enum_nick (GType type, gint value)
{
  GEnumClass *klass = g_type_class_ref (type);
  GEnumValue *v = g_enum_get_value (klass, value);
  const gchar *nick = v ? v->value_nick : "unknown";

  g_type_class_unref (klass);
  return nick;
}

gboolean
gstc_video_layout (GstCaps * caps, GstVideoFormat * fmt, guint * w,
    guint * h, guint * n_planes, gsize * offsets, gint * strides,
    gsize * size, const gchar ** range, const gchar ** matrix)
{
  GstVideoInfo info;
  guint i;

  /* gst_video_info_from_caps is a CRITICAL on unfixed caps. */
  if (!gst_caps_is_fixed (caps) || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  *fmt = GST_VIDEO_INFO_FORMAT (&info);
  *w = GST_VIDEO_INFO_WIDTH (&info);
  *h = GST_VIDEO_INFO_HEIGHT (&info);
  *n_planes = GST_VIDEO_INFO_N_PLANES (&info);
  for (i = 0; i < *n_planes; i++) {
    offsets[i] = GST_VIDEO_INFO_PLANE_OFFSET (&info, i);
    strides[i] = GST_VIDEO_INFO_PLANE_STRIDE (&info, i);
  }
  *size = GST_VIDEO_INFO_SIZE (&info);
  *range = enum_nick (GST_TYPE_VIDEO_COLOR_RANGE, info.colorimetry.range);
  *matrix = enum_nick (GST_TYPE_VIDEO_COLOR_MATRIX, info.colorimetry.matrix);
  return TRUE;
}
