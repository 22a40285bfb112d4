/* overlay.c: tensoroverlay's GstBaseTransform vfuncs and instance state
 * (see overlay.h). */
#include <string.h>
#include "cgo.h"
#include "overlay.h"
#include "draw.h"

GST_DEBUG_CATEGORY_STATIC (tensor_overlay_debug);
#define GST_CAT_DEFAULT tensor_overlay_debug
/* GStreamer's own GST_PERFORMANCE (its variable is not public): where
 * elements say they copy. */
GST_DEBUG_CATEGORY_STATIC (performance_debug);

/* A label's characters drawn at most: a tracking id's "#id ", the
 * name's (the rest is cut), then " " and the confidence. */
#define NAME_MAX_CHARS 48
#define LABEL_MAX_CHARS 96
/* The classification lines drawn under a box at most (the first ones). */
#define CLASS_LINES_MAX 4

/* The state of one instance, owned by its GstElement (object qdata,
 * freed with it). */
typedef struct
{
  /* Guards params and params_gen: Go writes them from whatever thread
   * sets a property. */
  GMutex lock;
  TensorOverlayParams params;
  guint params_gen;             /* bumped by every tensor_overlay_set_params */

  /* The streaming thread's own: set_caps, prepare_output_buffer and
   * transform_ip run on it, start while it does not run. No lock. */
  GstVideoInfo info;
  gboolean have_info;
  TensorOverlayParams cur;      /* the parameters a frame draws with */
  guint cur_gen;                /* params_gen cur was copied at */
  gboolean stale;               /* box and text need converting again */
  TensorOverlayPaint box;       /* outlines and label backgrounds */
  TensorOverlayPaint text;      /* glyphs: black or white, opaque */

  /* Counters: written by the streaming thread (start resets them), read
   * by Go's stats property from any thread, all atomically. */
  guint64 frames, boxes, copies;
  gint copy_logged;             /* this run's first copy was logged */
} TensorOverlayState;

/* The kept vfuncs of the class, installed once: only tensoroverlay's
 * class calls tensor_overlay_install. */
static GstFlowReturn (*parent_prepare) (GstBaseTransform *, GstBuffer *,
    GstBuffer **);
static gboolean (*parent_start) (GstBaseTransform *);

GSTC_INSTANCE_STATE (TensorOverlayState, "tensor-overlay-state")

static void
state_free (gpointer p)
{
  TensorOverlayState *st = p;

  g_mutex_clear (&st->lock);
  g_free (st);
}

void
tensor_overlay_attach (GstElement * e, const TensorOverlayParams * p)
{
  TensorOverlayState *st = g_new0 (TensorOverlayState, 1);

  g_mutex_init (&st->lock);
  st->params = *p;
  st->params_gen = 1;
  gst_video_info_init (&st->info);
  g_object_set_qdata_full (G_OBJECT (e), state_quark (), st, state_free);
}

void
tensor_overlay_set_params (GstElement * e, const TensorOverlayParams * p)
{
  TensorOverlayState *st = state_of (e);

  if (st == NULL)
    return;
  g_mutex_lock (&st->lock);
  st->params = *p;
  st->params_gen++;
  g_mutex_unlock (&st->lock);
}

void
tensor_overlay_read_stats (GstElement * e, TensorOverlayStats * out)
{
  TensorOverlayState *st = state_of (e);

  memset (out, 0, sizeof (*out));
  if (st == NULL)
    return;
  out->frames = __atomic_load_n (&st->frames, __ATOMIC_RELAXED);
  out->boxes = __atomic_load_n (&st->boxes, __ATOMIC_RELAXED);
  out->copies = __atomic_load_n (&st->copies, __ATOMIC_RELAXED);
}

/* Whether region m of a frame of st's caps is drawn: not empty, and not
 * entirely outside the frame (its origin is unsigned: it can only stick
 * out right and below). */
static gboolean
region_visible (const TensorOverlayState * st,
    const GstVideoRegionOfInterestMeta * m)
{
  return m->w > 0 && m->h > 0
      && m->x < (guint) GST_VIDEO_INFO_WIDTH (&st->info)
      && m->y < (guint) GST_VIDEO_INFO_HEIGHT (&st->info);
}

/* Whether buf has a region to draw. */
static gboolean
buffer_drawable (const TensorOverlayState * st, GstBuffer * buf)
{
  gpointer iter = NULL;
  GstMeta *meta;

  if (!st->have_info)
    return FALSE;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL)
    if (region_visible (st, (GstVideoRegionOfInterestMeta *) meta))
      return TRUE;
  return FALSE;
}

/* Takes the parameters Go pushed since the last frame and converts the
 * colours for the caps, when either changed. */
static void
refresh (TensorOverlayState * st)
{
  guint32 c;
  guint luma;

  g_mutex_lock (&st->lock);
  if (st->cur_gen != st->params_gen) {
    st->cur = st->params;
    st->cur_gen = st->params_gen;
    st->stale = TRUE;
  }
  g_mutex_unlock (&st->lock);
  if (!st->stale)
    return;
  c = st->cur.color;
  tensor_overlay_paint_init (&st->box, &st->info, c);
  /* Text in black on light colours, white on dark ones (BT.601 luma). */
  luma = (299 * ((c >> 16) & 0xff) + 587 * ((c >> 8) & 0xff)
      + 114 * (c & 0xff)) / 1000;
  tensor_overlay_paint_init (&st->text, &st->info,
      luma >= 128 ? 0xff000000 : 0xffffffff);
  st->stale = FALSE;
}

/* Appends " " (when out holds something) and conf with two decimals
 * to out, which holds n characters; returns the new length. */
static gsize
append_confidence (gchar * out, gsize n, gdouble conf)
{
  gchar num[G_ASCII_DTOSTR_BUF_SIZE];

  /* g_ascii_formatd: a decimal point whatever the locale. */
  g_ascii_formatd (num, sizeof (num), "%.2f", conf);
  if (n > 0)
    out[n++] = ' ';
  return n + tensor_overlay_printable (num, out + n, LABEL_MAX_CHARS + 1 - n);
}

/* Writes m's label into out (LABEL_MAX_CHARS + 1 bytes): "#id " when a
 * "tracking" structure gives the object's id, the detection params'
 * label, else the region's type, then the confidence with two decimals
 * when the detection params give one ("#12 person 0.87"); only
 * characters the font draws. Returns its length. */
static gsize
region_label (GstVideoRegionOfInterestMeta * m, gchar * out)
{
  GstStructure *s, *t;
  const gchar *name = NULL;
  gdouble conf;
  guint64 id;
  gsize n = 0;

  t = gst_video_region_of_interest_meta_get_param (m, "tracking");
  if (t != NULL && gst_structure_get_uint64 (t, "id", &id))
    n = g_snprintf (out, LABEL_MAX_CHARS + 1, "#%" G_GUINT64_FORMAT " ", id);
  s = gst_video_region_of_interest_meta_get_param (m, "detection");
  if (s != NULL)
    name = gst_structure_get_string (s, "label");
  if (name == NULL || name[0] == 0)
    name = g_quark_to_string (m->roi_type);
  n += tensor_overlay_printable (name != NULL ? name : "", out + n,
      NAME_MAX_CHARS + 1);
  if (n > 0 && out[n - 1] == ' ')
    n--;                        /* "#id" of a region without a name */
  if (s != NULL && gst_structure_get_double (s, "confidence", &conf))
    n = append_confidence (out, n, conf);
  out[n] = 0;
  return n;
}

/* Writes a "classification" structure's line into out (LABEL_MAX_CHARS +
 * 1 bytes): its label (a second model's class, a recognised text), else
 * "class-N" from its class-id, then its confidence with two decimals.
 * Returns its length. */
static gsize
class_label (const GstStructure * s, gchar * out)
{
  const gchar *name = gst_structure_get_string (s, "label");
  gchar num[32];
  gdouble conf;
  gint id;
  gsize n = 0;

  if (name != NULL && name[0] != 0)
    n = tensor_overlay_printable (name, out, NAME_MAX_CHARS + 1);
  else if (gst_structure_get_int (s, "class-id", &id)) {
    g_snprintf (num, sizeof (num), "class-%d", id);
    n = tensor_overlay_printable (num, out, NAME_MAX_CHARS + 1);
  }
  if (gst_structure_get_double (s, "confidence", &conf))
    n = append_confidence (out, n, conf);
  out[n] = 0;
  return n;
}

/* Where a label box lw wide goes across a frame fw wide: at the box's
 * left edge, moved left to end at the frame's right edge. */
static gint64
label_x (GstVideoRegionOfInterestMeta * m, gint64 lw, gint64 fw)
{
  gint64 lx = m->x;

  if (lx + lw > fw)
    lx = MAX (fw - lw, 0);
  return lx;
}

/* Draws m's classifications (CLASS_LINES_MAX at most), a line each,
 * stacked under the box; moved up to end at the frame's bottom edge
 * when there is no room under it. */
static void
draw_classifications (TensorOverlayState * st, GstVideoFrame * f,
    GstVideoRegionOfInterestMeta * m)
{
  const TensorOverlayParams *p = &st->cur;
  gint64 fw = GST_VIDEO_FRAME_WIDTH (f), fh = GST_VIDEO_FRAME_HEIGHT (f);
  gint64 lh = tensor_overlay_label_height (p->font_scale), ly;
  guint lines = 0, k = 0;
  GList *l;

  for (l = m->params; l != NULL && lines < CLASS_LINES_MAX; l = l->next)
    if (gst_structure_has_name (l->data, "classification"))
      lines++;
  if (lines == 0)
    return;
  ly = (gint64) m->y + m->h;
  if (ly + lines * lh > fh)
    ly = MAX (fh - (gint64) lines * lh, 0);
  for (l = m->params; l != NULL && k < lines; l = l->next) {
    gchar text[LABEL_MAX_CHARS + 1];
    gsize n;

    if (!gst_structure_has_name (l->data, "classification"))
      continue;
    n = class_label (l->data, text);
    if (n > 0) {
      gint64 lw = tensor_overlay_label_width (n, p->font_scale);

      tensor_overlay_label (f, &st->box, &st->text, label_x (m, lw, fw),
          ly + k * lh, text, n, p->font_scale);
    }
    k++;
  }
}

/* Draws buf's regions on f: every outline, then every label above its
 * box and its classifications' lines under it (so labels are never under
 * another box's outline). Returns how many regions were drawn. */
static guint
draw_regions (TensorOverlayState * st, GstVideoFrame * f, GstBuffer * buf)
{
  const TensorOverlayParams *p = &st->cur;
  gint64 fw = GST_VIDEO_FRAME_WIDTH (f);
  gpointer iter = NULL;
  GstMeta *meta;
  guint drawn = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;

    if (!region_visible (st, m))
      continue;
    tensor_overlay_outline (f, &st->box, m->x, m->y, m->w, m->h,
        p->line_width);
    drawn++;
  }
  if (!p->draw_labels)
    return drawn;
  iter = NULL;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;
    gchar text[LABEL_MAX_CHARS + 1];
    gsize n;
    gint64 lw, lh, lx, ly;

    if (!region_visible (st, m))
      continue;
    if ((n = region_label (m, text)) > 0) {
      lw = tensor_overlay_label_width (n, p->font_scale);
      lh = tensor_overlay_label_height (p->font_scale);
      /* Above the box, its left edges aligned; moved left to end at the
       * frame's right edge, and into the box's top when there is no room
       * above it. */
      lx = label_x (m, lw, fw);
      ly = (gint64) m->y - lh;
      if (ly < 0)
        ly = m->y;
      tensor_overlay_label (f, &st->box, &st->text, lx, ly, text, n,
          p->font_scale);
    }
    draw_classifications (st, f, m);
  }
  return drawn;
}

static gboolean
overlay_set_caps (GstBaseTransform * t, GstCaps * incaps, GstCaps * outcaps)
{
  TensorOverlayState *st = state_of (t);
  GstVideoInfo info;

  if (st == NULL || !gst_video_info_from_caps (&info, incaps)) {
    GST_WARNING_OBJECT (t, "cannot draw on caps %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  st->info = info;
  st->have_info = TRUE;
  st->stale = TRUE;
  return TRUE;
}

static gboolean
overlay_start (GstBaseTransform * t)
{
  TensorOverlayState *st = state_of (t);

  if (st != NULL) {
    __atomic_store_n (&st->frames, 0, __ATOMIC_RELAXED);
    __atomic_store_n (&st->boxes, 0, __ATOMIC_RELAXED);
    __atomic_store_n (&st->copies, 0, __ATOMIC_RELAXED);
    g_atomic_int_set (&st->copy_logged, 0);
    st->have_info = FALSE;
  }
  return parent_start == NULL || parent_start (t);
}

/* GstBaseTransform's in-place default copies a buffer that is not
 * writable (a tee's, or one a holder upstream keeps); a frame with
 * nothing to draw goes through as it is, uncopied: transform_ip does not
 * write to it. */
static GstFlowReturn
overlay_prepare (GstBaseTransform * t, GstBuffer * in, GstBuffer ** out)
{
  TensorOverlayState *st = state_of (t);

  if (gst_base_transform_is_passthrough (t) || gst_buffer_is_writable (in)
      || st == NULL || !buffer_drawable (st, in)) {
    *out = in;
    return GST_FLOW_OK;
  }
  if (parent_prepare == NULL) {
    *out = gst_buffer_copy (in);
    return GST_FLOW_OK;
  }
  return parent_prepare (t, in, out);
}

/* Whether buf's memories are other than the n in before: mapping it
 * writable replaced one by a copy (it was shared with another buffer, or
 * read-only) or merged several into one. */
static gboolean
memories_replaced (GstBuffer * buf, GstMemory ** before, guint n)
{
  guint i;

  if (gst_buffer_n_memory (buf) != n)
    return TRUE;
  for (i = 0; i < n; i++)
    if (gst_buffer_peek_memory (buf, i) != before[i])
      return TRUE;
  return FALSE;
}

static GstFlowReturn
overlay_transform_ip (GstBaseTransform * t, GstBuffer * buf)
{
  TensorOverlayState *st = state_of (t);
  GstMemory *before[16];
  GstVideoFrame frame;
  guint i, n, drawn;

  if (st == NULL)
    return GST_FLOW_OK;
  __atomic_add_fetch (&st->frames, 1, __ATOMIC_RELAXED);
  if (!buffer_drawable (st, buf))
    return GST_FLOW_OK;
  if (!gst_buffer_is_writable (buf)) {
    /* prepare_output_buffer passes only frames with nothing to draw
     * uncopied, and this one had something when it came. */
    GST_WARNING_OBJECT (t, "buffer %p not writable: not drawn", buf);
    return GST_FLOW_OK;
  }
  refresh (st);
  n = MIN (gst_buffer_n_memory (buf), G_N_ELEMENTS (before));
  for (i = 0; i < n; i++)
    before[i] = gst_buffer_peek_memory (buf, i);
  if (!gst_video_frame_map (&frame, &st->info, buf, GST_MAP_READWRITE)) {
    GST_ELEMENT_ERROR (t, STREAM, FAILED,
        ("tensoroverlay: cannot map a frame of %" G_GSIZE_FORMAT
            " bytes for writing (%s %dx%d needs %" G_GSIZE_FORMAT ")",
            gst_buffer_get_size (buf),
            GST_VIDEO_INFO_NAME (&st->info), GST_VIDEO_INFO_WIDTH (&st->info),
            GST_VIDEO_INFO_HEIGHT (&st->info), GST_VIDEO_INFO_SIZE (&st->info)),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (memories_replaced (buf, before, n)) {
    __atomic_add_fetch (&st->copies, 1, __ATOMIC_RELAXED);
    if (g_atomic_int_compare_and_exchange (&st->copy_logged, 0, 1))
      GST_CAT_INFO_OBJECT (performance_debug, t,
          "tensoroverlay: copying frames of %" G_GSIZE_FORMAT " bytes to "
          "draw on them: the buffer or its memory is shared (a tee, a holder "
          "upstream) or read-only; counted in stats copies, logged once a run",
          gst_buffer_get_size (buf));
  }
  drawn = draw_regions (st, &frame, buf);
  gst_video_frame_unmap (&frame);
  __atomic_add_fetch (&st->boxes, drawn, __ATOMIC_RELAXED);
  return GST_FLOW_OK;
}

void
tensor_overlay_install (gpointer klass)
{
  GstBaseTransformClass *k = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (tensor_overlay_debug, "tensoroverlay", 0,
      "tensoroverlay: regions of interest drawn on video frames");
  /* The existing category: a second one of the same name is the first. */
  GST_DEBUG_CATEGORY_INIT (performance_debug, "GST_PERFORMANCE", 0, NULL);
  if (k->prepare_output_buffer != overlay_prepare)
    parent_prepare = k->prepare_output_buffer;
  if (k->start != overlay_start)
    parent_start = k->start;
  k->prepare_output_buffer = overlay_prepare;
  k->start = overlay_start;
  k->set_caps = overlay_set_caps;
  k->transform_ip = overlay_transform_ip;
  k->transform = NULL;
  k->passthrough_on_same_caps = FALSE;
  k->transform_ip_on_passthrough = FALSE;
}
