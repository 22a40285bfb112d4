/* roimeta.c: GStreamer 1.22's GstVideoRegionOfInterestMeta with this
 * project's params structures ("detection", "classification", "tracking";
 * docs/design.md), added to and read from a buffer. Each function's
 * contract — what it owns, borrows and takes over, and who may call it — is
 * its comment in roimeta.h; the Go side is roimeta.go. */
#include <string.h>
#include "roimeta.h"

/* Metas visited to number new regions, for the tests of its cost. */
static guint64 numbering_visits;

guint64
gstc_roi_numbering_visits (void)
{
  return __atomic_load_n (&numbering_visits, __ATOMIC_RELAXED);
}

/* The numbering of a buffer's regions, kept as the buffer's qdata: the
 * id the next region gets, valid while the buffer's first region is
 * still the one it was counted from. A copy of the buffer (its metas
 * copied, not its qdata), a pool's reuse (its metas removed, the qdata
 * kept) or a removed first region fail that check, and the regions are
 * counted again. The meta's seqnum (unique in the process) tells the
 * region apart from a later meta at the same address. */
typedef struct
{
  const GstMeta *first;
  guint64 first_seqnum;
  gint next;
} RoiNumbering;

static GQuark numbering_quark_cache;

/* The first region of buf, NULL when it has none. */
static GstMeta *
first_region (GstBuffer * buf)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint64 visits = 0;

  while ((meta = gst_buffer_iterate_meta (buf, &state)) != NULL) {
    visits++;
    if (meta->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)
      break;
  }
  __atomic_add_fetch (&numbering_visits, visits, __ATOMIC_RELAXED);
  return meta;
}

/* The id buf's next region gets when the numbering is not known: the
 * number of regions, or one more than the largest id, whichever is
 * larger (regions others added may carry ids of their own). */
static gint
count_regions (GstBuffer * buf)
{
  gpointer state = NULL;
  GstMeta *meta;
  gint n = 0, next = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    gint id = ((GstVideoRegionOfInterestMeta *) meta)->id;

    n++;
    if (id >= next && id < G_MAXINT)
      next = id + 1;
  }
  __atomic_add_fetch (&numbering_visits, (guint64) n, __ATOMIC_RELAXED);
  return MAX (n, next);
}

static RoiNumbering *
numbering_of (GstBuffer * buf)
{
  GQuark q = gstc_quark (&numbering_quark_cache, "gstc-roi-numbering");
  RoiNumbering *num = gst_mini_object_get_qdata (GST_MINI_OBJECT (buf), q);

  if (num == NULL) {
    num = g_new0 (RoiNumbering, 1);
    gst_mini_object_set_qdata (GST_MINI_OBJECT (buf), q, num, g_free);
  }
  return num;
}

/* The id buf's next region gets. */
static gint
next_region_id (GstBuffer * buf, RoiNumbering * num)
{
  GstMeta *first = first_region (buf);

  if (first == NULL) {
    num->first = NULL;
    num->next = 0;
  } else if (num->first != first
      || num->first_seqnum != gst_meta_get_seqnum (first)) {
    num->first = first;
    num->first_seqnum = gst_meta_get_seqnum (first);
    num->next = count_regions (buf);
  }
  return num->next;
}

/* Records that a region just added to buf took id. */
static void
numbered (GstBuffer * buf, RoiNumbering * num, gint id)
{
  num->next = id < G_MAXINT ? id + 1 : id;
  if (num->first == NULL) {
    /* The buffer's first region: this one. */
    num->first = first_region (buf);
    num->first_seqnum = num->first != NULL ?
        gst_meta_get_seqnum (num->first) : 0;
  }
}

/* Adds a region of interest to the writable buf with the next free id.
 * GStreamer leaves every id 0: the regions are numbered in the buffer,
 * so that a reader can fetch each by id
 * (gst_buffer_get_video_region_of_interest_meta_id, which is what
 * Python's bindings offer). The meta is buf's. */
static GstVideoRegionOfInterestMeta *
add_numbered (GstBuffer * buf, const gchar * type, guint x, guint y,
    guint w, guint h, gint parent_id)
{
  RoiNumbering *num = numbering_of (buf);
  gint id = next_region_id (buf, num);
  GstVideoRegionOfInterestMeta *m =
      gst_buffer_add_video_region_of_interest_meta (buf, type, x, y, w, h);

  m->id = id;
  m->parent_id = parent_id;
  numbered (buf, num, id);
  return m;
}

gint
gstc_roi_add_region (GstBuffer * buf, const gchar * type, guint x, guint y,
    guint w, guint h, gint parent_id)
{
  GstVideoRegionOfInterestMeta *m;

  if (!gst_buffer_is_writable (buf))
    return -1;
  m = add_numbered (buf, type, x, y, w, h, parent_id);
  return m->id;
}

gint
gstc_roi_add (GstBuffer * buf, const gchar * type, guint x, guint y,
    guint w, guint h, gint parent_id, const gchar * label, gint class_id,
    gdouble confidence)
{
  GstVideoRegionOfInterestMeta *m;
  GstStructure *s;

  if (!gst_buffer_is_writable (buf))
    return -1;
  m = add_numbered (buf, type, x, y, w, h, parent_id);
  s = gst_structure_new ("detection", "class-id", G_TYPE_INT, class_id,
      "confidence", G_TYPE_DOUBLE, confidence, NULL);
  if (label != NULL)
    gst_structure_set (s, "label", G_TYPE_STRING, label, NULL);
  /* The meta takes the structure. */
  gst_video_region_of_interest_meta_add_param (m, s);
  return m->id;
}

/* The quarks of the params' names and fields, interned once. */
static GQuark q_detection, q_classification, q_tracking, q_label, q_class_id,
    q_confidence, q_model, q_id, q_age, q_state;

static void
intern_quarks (void)
{
  gstc_quark (&q_detection, "detection");
  gstc_quark (&q_classification, "classification");
  gstc_quark (&q_tracking, "tracking");
  gstc_quark (&q_label, "label");
  gstc_quark (&q_class_id, "class-id");
  gstc_quark (&q_confidence, "confidence");
  gstc_quark (&q_model, "model");
  gstc_quark (&q_id, "id");
  gstc_quark (&q_age, "age");
  gstc_quark (&q_state, "state");
}

/* Field readers by quark: no string hashing per field (gst_structure_get_*
 * interns the field's name on every call). A field of another type than
 * the conventions' reads as absent. */
static const gchar *
field_string (const GstStructure * s, GQuark f)
{
  const GValue *v = gst_structure_id_get_value (s, f);

  return v != NULL && G_VALUE_HOLDS_STRING (v) ? g_value_get_string (v) : NULL;
}

static gboolean
field_int (const GstStructure * s, GQuark f, gint * out)
{
  const GValue *v = gst_structure_id_get_value (s, f);

  if (v == NULL || !G_VALUE_HOLDS_INT (v))
    return FALSE;
  *out = g_value_get_int (v);
  return TRUE;
}

static gboolean
field_double (const GstStructure * s, GQuark f, gdouble * out)
{
  const GValue *v = gst_structure_id_get_value (s, f);

  if (v == NULL)
    return FALSE;
  if (G_VALUE_HOLDS_DOUBLE (v))
    *out = g_value_get_double (v);
  else if (G_VALUE_HOLDS_FLOAT (v))
    *out = g_value_get_float (v);
  else
    return FALSE;
  return TRUE;
}

/* A guint64 field; the other integer types are taken when not negative. */
static gboolean
field_uint64 (const GstStructure * s, GQuark f, guint64 * out)
{
  const GValue *v = gst_structure_id_get_value (s, f);

  if (v == NULL)
    return FALSE;
  if (G_VALUE_HOLDS_UINT64 (v))
    *out = g_value_get_uint64 (v);
  else if (G_VALUE_HOLDS_UINT (v))
    *out = g_value_get_uint (v);
  else if (G_VALUE_HOLDS_INT64 (v) && g_value_get_int64 (v) >= 0)
    *out = (guint64) g_value_get_int64 (v);
  else if (G_VALUE_HOLDS_INT (v) && g_value_get_int (v) >= 0)
    *out = (guint64) g_value_get_int (v);
  else
    return FALSE;
  return TRUE;
}

guint
gstc_roi_list_full (GstBuffer * buf, GstcRoi * out, guint max,
    GstcRoiClass * classes, guint max_classes, guint * n_classes_total)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint n = 0, nc = 0;

  intern_quarks ();
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;
    GstcRoi *r = n < max ? &out[n] : NULL;
    GList *l;

    if (r != NULL) {
      memset (r, 0, sizeof (*r));
      r->type = g_quark_to_string (m->roi_type);
      r->x = m->x;
      r->y = m->y;
      r->w = m->w;
      r->h = m->h;
      r->id = m->id;
      r->parent_id = m->parent_id;
      r->class_first = nc;
    }
    /* One pass over the params, whatever their order: the first
     * "detection" and "tracking" count, every "classification" does. */
    for (l = m->params; l != NULL; l = l->next) {
      const GstStructure *s = l->data;
      GQuark name = gst_structure_get_name_id (s);

      if (name == q_classification) {
        if (nc < max_classes && r != NULL) {
          GstcRoiClass *c = &classes[nc];

          c->label = field_string (s, q_label);
          c->model = field_string (s, q_model);
          if (!field_int (s, q_class_id, &c->class_id))
            c->class_id = -1;
          if (!field_double (s, q_confidence, &c->confidence))
            c->confidence = 0;
        }
        if (r != NULL)
          r->n_classes++;
        nc++;
      } else if (r == NULL) {
        continue;
      } else if (name == q_detection && !r->has_detection) {
        r->has_detection = TRUE;
        r->label = field_string (s, q_label);
        if (!field_int (s, q_class_id, &r->class_id))
          r->class_id = -1;
        if (!field_double (s, q_confidence, &r->confidence))
          r->confidence = 0;
      } else if (name == q_tracking && !r->has_tracking) {
        r->has_tracking = TRUE;
        field_uint64 (s, q_id, &r->track_id);
        field_uint64 (s, q_age, &r->track_age);
        r->track_state = field_string (s, q_state);
      }
    }
    n++;
  }
  if (n_classes_total != NULL)
    *n_classes_total = nc;
  return n;
}

guint
gstc_roi_list (GstBuffer * buf, GstcRoi * out, guint max)
{
  guint nc;

  return gstc_roi_list_full (buf, out, max, NULL, 0, &nc);
}

gint
gstc_roi_add_classification (GstBuffer * buf, gint id, const gchar * label,
    gint class_id, gdouble confidence, const gchar * model, guint rect[4])
{
  GstVideoRegionOfInterestMeta *m;
  GstStructure *s;

  if (!gst_buffer_is_writable (buf))
    return GSTC_ROI_NOT_WRITABLE;
  m = gst_buffer_get_video_region_of_interest_meta_id (buf, id);
  if (m == NULL)
    return GSTC_ROI_NO_REGION;
  intern_quarks ();
  s = gst_structure_new_id (q_classification, q_confidence, G_TYPE_DOUBLE,
      confidence, NULL);
  if (label != NULL)
    gst_structure_id_set (s, q_label, G_TYPE_STRING, label, NULL);
  if (class_id >= 0)
    gst_structure_id_set (s, q_class_id, G_TYPE_INT, class_id, NULL);
  if (model != NULL)
    gst_structure_id_set (s, q_model, G_TYPE_STRING, model, NULL);
  /* The meta takes the structure. */
  gst_video_region_of_interest_meta_add_param (m, s);
  if (rect != NULL) {
    rect[0] = m->x;
    rect[1] = m->y;
    rect[2] = m->w;
    rect[3] = m->h;
  }
  return GSTC_ROI_OK;
}

guint
gstc_roi_tracked (GstBuffer * buf, gint * ids, guint64 * tracks, guint max)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint n = 0;

  intern_quarks ();
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;
    GList *l;

    for (l = m->params; l != NULL; l = l->next) {
      const GstStructure *s = l->data;
      guint64 id;

      if (gst_structure_get_name_id (s) != q_tracking
          || !field_uint64 (s, q_id, &id))
        continue;
      if (n < max) {
        ids[n] = m->id;
        tracks[n] = id;
      }
      n++;
      break;
    }
  }
  return n;
}
