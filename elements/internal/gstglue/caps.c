/* caps.c: caps fixation toward targets, fraction fields, a frame's size.
 * Each function's contract — what it owns, borrows and takes over, and
 * who may call it — is its comment in caps.h; the Go side is caps.go. */
#include "caps.h"

GstCaps *
gstc_caps_prepare_fixate (GstCaps * caps)
{
  /* Both take and return ownership. */
  caps = gst_caps_make_writable (caps);
  return gst_caps_truncate (caps);
}

void
gstc_structure_fixate_int (GstStructure * s, const char *field, int target)
{
  if (!gst_structure_has_field (s, field))
    gst_structure_set (s, field, G_TYPE_INT, target, NULL);
  else
    gst_structure_fixate_field_nearest_int (s, field, target);
}

void
gstc_structure_fixate_fraction (GstStructure * s, const char *field, int num,
    int den)
{
  if (!gst_structure_has_field (s, field))
    gst_structure_set (s, field, GST_TYPE_FRACTION, num, den, NULL);
  else
    gst_structure_fixate_field_nearest_fraction (s, field, num, den);
}

void
gstc_structure_fixate_string (GstStructure * s, const char *field,
    const char *target)
{
  if (!gst_structure_has_field (s, field))
    gst_structure_set (s, field, G_TYPE_STRING, target, NULL);
  else
    gst_structure_fixate_field_string (s, field, target);
}

gboolean
gstc_caps_get_fraction (GstCaps * caps, guint idx, const char *field,
    int *num, int *den)
{
  if (idx >= gst_caps_get_size (caps))
    return FALSE;
  return gst_structure_get_fraction (gst_caps_get_structure (caps, idx),
      field, num, den);
}

gboolean
gstc_caps_frame_size (const GstCaps * caps, gint * w, gint * h)
{
  const GstStructure *s;

  if (caps != NULL && gst_caps_get_size (caps) > 0) {
    s = gst_caps_get_structure (caps, 0);
    if (gst_structure_get_int (s, "width", w)
        && gst_structure_get_int (s, "height", h) && *w > 0 && *h > 0)
      return TRUE;
  }
  *w = *h = 0;
  return FALSE;
}
