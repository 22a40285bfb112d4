/* roimeta.c: C definitions of roimeta.go (see there for ownership). */
#include "roimeta.h"

gint
gstc_roi_add (GstBuffer * buf, const gchar * type, guint x, guint y,
    guint w, guint h, gint parent_id, const gchar * label, gint class_id,
    gdouble confidence)
{
  GstVideoRegionOfInterestMeta *m;
  GstStructure *s;
  gpointer state = NULL;
  gint n = 0;

  if (!gst_buffer_is_writable (buf))
    return -1;
  /* GStreamer leaves every id 0: number them in the buffer, so that a
   * reader can fetch each by id (gst_buffer_get_video_region_of_interest_meta_id,
   * which is what Python's bindings offer). */
  while (gst_buffer_iterate_meta_filtered (buf, &state,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) != NULL)
    n++;
  m = gst_buffer_add_video_region_of_interest_meta (buf, type, x, y, w, h);
  m->id = n;
  m->parent_id = parent_id;
  s = gst_structure_new ("detection", "class-id", G_TYPE_INT, class_id,
      "confidence", G_TYPE_DOUBLE, confidence, NULL);
  if (label != NULL)
    gst_structure_set (s, "label", G_TYPE_STRING, label, NULL);
  /* The meta takes the structure. */
  gst_video_region_of_interest_meta_add_param (m, s);
  return m->id;
}

guint
gstc_roi_list (GstBuffer * buf, GstcRoi * out, guint max)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint n = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;
    GstStructure *s;

    if (n < max) {
      GstcRoi *r = &out[n];

      memset (r, 0, sizeof (*r));
      r->type = g_quark_to_string (m->roi_type);
      r->x = m->x;
      r->y = m->y;
      r->w = m->w;
      r->h = m->h;
      r->id = m->id;
      r->parent_id = m->parent_id;
      s = gst_video_region_of_interest_meta_get_param (m, "detection");
      if (s != NULL) {
        r->has_detection = TRUE;
        r->label = gst_structure_get_string (s, "label");
        if (!gst_structure_get_int (s, "class-id", &r->class_id))
          r->class_id = -1;
        if (!gst_structure_get_double (s, "confidence", &r->confidence))
          r->confidence = 0;
      }
    }
    n++;
  }
  return n;
}
