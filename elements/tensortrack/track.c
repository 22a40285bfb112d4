/* track.c: tensortrack's GstBaseTransform vfuncs, instance state and
 * messages (see track.h). */
#include <math.h>
#include <string.h>
#include "track.h"
#include "caps.h"
#include "gsttensorpinmeta.h"
#include "schedtick.h"
#include "qdata.h"
#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (tensor_track_debug);
#define GST_CAT_DEFAULT tensor_track_debug

/* A region of the frame: its meta, its id before the frame, and what the
 * frame does to it. */
typedef struct
{
  GstVideoRegionOfInterestMeta *meta;
  gint old_id;
  gint det;                     /* index in the frame's dets; -1: none */
  gboolean tracked;             /* carries a track's id now */
  gboolean removed;             /* predicted out of the frame: taken off */
} Region;

/* r is region m of the frame, which had id old_id (G_MININT: added by
 * the frame), not yet tracked. */
static inline void
region_init (Region * r, GstVideoRegionOfInterestMeta * m, gint old_id)
{
  r->meta = m;
  r->old_id = old_id;
  r->det = -1;
  r->tracked = FALSE;
  r->removed = FALSE;
}

/* The state of one instance, owned by its GstElement (object qdata,
 * freed with it). */
typedef struct
{
  uintptr_t handle;             /* the Go side; given back at finalize */
  gint post_messages;           /* atomic: any thread sets it */
  /* results-from, interned (NULL: the latest result): set at start,
   * read by frames. Atomic. */
  const gchar *results_from;

  /* The streaming thread's own: set_caps, transform_ip and the serialized
   * events run on it, start and stop while it does not. No lock. */
  gint width, height;           /* the caps' frame size, 0 before caps */
  gboolean have_run;            /* last_run holds the last detector run seen */
  guint64 last_run;
  TensorTrackFrame frame;       /* the frames' call into Go */
  Region *regions;
  guint n_regions, cap_regions;
  gint *sorted;                 /* scratch: tracked ids, then old ids */
  guint cap_sorted;

  /* Counters: written by the streaming thread (start zeroes them), read
   * by the stats property from any thread, all atomically. */
  guint64 frames, tracks_started, tracks_ended, tracks_alive,
      predicted_regions;
} TensorTrackState;

/* The kept sink_event of the class, installed once: only tensortrack's
 * class calls tensor_track_install. */
static gboolean (*parent_sink_event) (GstBaseTransform *, GstEvent *);

/* Field names as quarks, made once at class init: GstStructure's by-name
 * accessors intern the name on every call, under GLib's global quark
 * lock. */
static GQuark q_detection, q_tracking, q_id, q_age, q_state, q_class_id,
    q_confidence, q_label;

GSTC_INSTANCE_STATE (TensorTrackState, "tensor-track-state")

static void
frame_clear (TensorTrackFrame * f)
{
  g_free (f->dets);
  g_free (f->matches);
  g_free (f->added);
  g_free (f->ended);
  memset (f, 0, sizeof (*f));
}

static void
state_free (gpointer p)
{
  TensorTrackState *st = p;

  frame_clear (&st->frame);
  g_free (st->regions);
  g_free (st->sorted);
  if (st->handle != 0)
    gstc_handle_destroy ((gpointer) st->handle);
  g_free (st);
}

void
tensor_track_attach (GstElement * e, uintptr_t handle)
{
  TensorTrackState *st = g_new0 (TensorTrackState, 1);

  st->handle = handle;
  g_object_set_qdata_full (G_OBJECT (e), state_quark (), st, state_free);
}

void
tensor_track_set_post_messages (GstElement * e, gboolean on)
{
  TensorTrackState *st = state_of (e);

  if (st != NULL)
    g_atomic_int_set (&st->post_messages, on ? 1 : 0);
}

void
tensor_track_set_results_from (GstElement * e, const gchar * producer)
{
  TensorTrackState *st = state_of (e);

  if (st != NULL)
    g_atomic_pointer_set (&st->results_from, producer != NULL
        && producer[0] != 0 ? g_intern_string (producer) : NULL);
}

void
tensor_track_reset_counters (GstElement * e)
{
  TensorTrackState *st = state_of (e);

  if (st == NULL)
    return;
  __atomic_store_n (&st->frames, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&st->tracks_started, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&st->tracks_ended, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&st->tracks_alive, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&st->predicted_regions, 0, __ATOMIC_RELAXED);
  st->have_run = FALSE;
  st->width = st->height = 0;
}

void
tensor_track_read_stats (GstElement * e, TensorTrackStats * out)
{
  TensorTrackState *st = state_of (e);

  memset (out, 0, sizeof (*out));
  if (st == NULL)
    return;
  out->frames = __atomic_load_n (&st->frames, __ATOMIC_RELAXED);
  out->tracks_started = __atomic_load_n (&st->tracks_started, __ATOMIC_RELAXED);
  out->tracks_ended = __atomic_load_n (&st->tracks_ended, __ATOMIC_RELAXED);
  out->tracks_alive = __atomic_load_n (&st->tracks_alive, __ATOMIC_RELAXED);
  out->predicted_regions =
      __atomic_load_n (&st->predicted_regions, __ATOMIC_RELAXED);
}

void
tensor_track_frame_reserve (TensorTrackFrame * f, guint n_added,
    guint n_ended)
{
  if (n_added > f->cap_added) {
    f->cap_added = MAX (n_added, 2 * f->cap_added);
    f->added = g_renew (TensorTrackRecord, f->added, f->cap_added);
  }
  if (n_ended > f->cap_ended) {
    f->cap_ended = MAX (n_ended, 2 * f->cap_ended);
    f->ended = g_renew (TensorTrackRecord, f->ended, f->cap_ended);
  }
}

/* Makes room for n dets (and their matches) in f. */
static void
frame_reserve_dets (TensorTrackFrame * f, guint n)
{
  if (n > f->cap_dets) {
    f->cap_dets = MAX (n, 2 * f->cap_dets);
    f->dets = g_renew (TensorTrackDet, f->dets, f->cap_dets);
    f->matches = g_renew (TensorTrackMatch, f->matches, f->cap_dets);
  }
}

static void
regions_reserve (TensorTrackState * st, guint n)
{
  if (n > st->cap_regions) {
    st->cap_regions = MAX (n, 2 * st->cap_regions);
    st->regions = g_renew (Region, st->regions, st->cap_regions);
  }
  if (n > st->cap_sorted) {
    st->cap_sorted = MAX (n, 2 * st->cap_sorted);
    st->sorted = g_renew (gint, st->sorted, 2 * st->cap_sorted);
  }
}

/* The run of the detector that buf's results come from: the run of its
 * GstTensorPinMeta (tensorinfer output=video: frames that share a result,
 * interval=N, share the run) — the latest on the buffer, the result of
 * the tensorinfer just before tensordecode, or with results-from the
 * latest of that element's — FALSE when it has none. */
static gboolean
buffer_run (TensorTrackState * st, GstBuffer * buf, guint64 * run)
{
  GstTensorPinMeta *m = gst_buffer_get_tensor_pin_meta_from (buf,
      g_atomic_pointer_get (&st->results_from));

  if (m == NULL)
    return FALSE;
  *run = m->run;
  return TRUE;
}

/* Whether buf's detections are the previous run's again: a run already
 * seen (tensorinfer interval=N's skipped frames). */
static gboolean
frame_repeats_run (TensorTrackState * st, GstBuffer * buf)
{
  guint64 run;

  if (!buffer_run (st, buf, &run)) {
    st->have_run = FALSE;
    return FALSE;
  }
  if (st->have_run && run == st->last_run)
    return TRUE;
  st->have_run = TRUE;
  st->last_run = run;
  return FALSE;
}

/* A region's id for track id: 1..G_MAXINT (the "tracking" structure has
 * the full id). */
static gint
region_id (guint64 id)
{
  return (gint) ((id - 1) % G_MAXINT + 1);
}

/* Rounds box (x, y, w, h) to pixels and clips it to the frame; FALSE when
 * nothing of it is inside. */
static gboolean
clip_box (const TensorTrackState * st, gdouble x, gdouble y, gdouble w,
    gdouble h, guint * ox, guint * oy, guint * ow, guint * oh)
{
  gdouble fw = st->width > 0 ? st->width : G_MAXUINT;
  gdouble fh = st->height > 0 ? st->height : G_MAXUINT;
  gdouble x0 = CLAMP (round (x), 0, fw), y0 = CLAMP (round (y), 0, fh);
  gdouble x1 = CLAMP (round (x + w), 0, fw), y1 = CLAMP (round (y + h), 0, fh);

  /* NaN compares false: an empty box. */
  if (!(x1 > x0 && y1 > y0))
    return FALSE;
  *ox = (guint) x0;
  *oy = (guint) y0;
  *ow = (guint) (x1 - x0);
  *oh = (guint) (y1 - y0);
  return TRUE;
}

/* The "tracking" structure of m with id, age and state, reused when the
 * region has one. */
static void
set_tracking (GstVideoRegionOfInterestMeta * m, guint64 id, guint64 age,
    gint state)
{
  const gchar *s = state == TENSOR_TRACK_TRACKED ? "tracked" : "predicted";
  GstStructure *t = gst_video_region_of_interest_meta_get_param (m, "tracking");

  if (t != NULL) {
    gst_structure_id_set (t, q_id, G_TYPE_UINT64, id, q_age, G_TYPE_UINT64,
        age, q_state, G_TYPE_STRING, s, NULL);
    return;
  }
  /* The meta takes the structure. */
  gst_video_region_of_interest_meta_add_param (m,
      gst_structure_new_id (q_tracking, q_id, G_TYPE_UINT64, id, q_age,
          G_TYPE_UINT64, age, q_state, G_TYPE_STRING, s, NULL));
}

/* s's field q as an int, a double, a string: FALSE (NULL) when it is
 * not there or of another type. */
static gboolean
field_int (const GstStructure * s, GQuark q, gint * out)
{
  const GValue *v = gst_structure_id_get_value (s, q);

  if (v == NULL || !G_VALUE_HOLDS_INT (v))
    return FALSE;
  *out = g_value_get_int (v);
  return TRUE;
}

static gboolean
field_double (const GstStructure * s, GQuark q, gdouble * out)
{
  const GValue *v = gst_structure_id_get_value (s, q);

  if (v == NULL || !G_VALUE_HOLDS_DOUBLE (v))
    return FALSE;
  *out = g_value_get_double (v);
  return TRUE;
}

static const gchar *
field_string (const GstStructure * s, GQuark q)
{
  const GValue *v = gst_structure_id_get_value (s, q);

  return v != NULL && G_VALUE_HOLDS_STRING (v) ? g_value_get_string (v) : NULL;
}

/* The label key of a region: its detection structure's label, else its
 * type. */
static guint32
label_key (GstVideoRegionOfInterestMeta * m, const GstStructure * det)
{
  const gchar *label = field_string (det, q_label);
  const gchar *type;
  GQuark q;

  if (label == NULL)
    return m->roi_type & ~TENSOR_TRACK_LABEL_FIELD;
  /* tensordecode's regions are of their label's type: its quark, read
   * without a lock. Else the label interned (a detector's labels are
   * few; GStreamer interns every region's type the same way). */
  type = g_quark_to_string (m->roi_type);
  if (type != NULL && strcmp (type, label) == 0)
    q = m->roi_type;
  else
    q = g_quark_from_string (label);
  return (q & ~TENSOR_TRACK_LABEL_FIELD) | TENSOR_TRACK_LABEL_FIELD;
}

static void
post_ended (TensorTrackState * st, GstElement * e, const TensorTrackFrame * f)
{
  guint i;

  __atomic_add_fetch (&st->tracks_ended, f->n_ended, __ATOMIC_RELAXED);
  if (!g_atomic_int_get (&st->post_messages))
    return;
  for (i = 0; i < f->n_ended; i++) {
    const TensorTrackRecord *r = &f->ended[i];
    guint x = 0, y = 0, w = 0, h = 0;
    GstStructure *s;

    clip_box (st, r->x, r->y, r->w, r->h, &x, &y, &w, &h);
    s = gst_structure_new ("tensortrack-ended", "id", G_TYPE_UINT64, r->id,
        "first-pts", G_TYPE_UINT64, r->first_pts, "last-pts", G_TYPE_UINT64,
        r->last_pts, "frames-seen", G_TYPE_UINT64, r->frames_seen,
        "x", G_TYPE_UINT, x, "y", G_TYPE_UINT, y, "w", G_TYPE_UINT, w,
        "h", G_TYPE_UINT, h, "class-id", G_TYPE_INT, r->class_id, NULL);
    if (r->label & TENSOR_TRACK_LABEL_FIELD)
      gst_structure_set (s, "label", G_TYPE_STRING,
          g_quark_to_string (r->label & ~TENSOR_TRACK_LABEL_FIELD), NULL);
    gst_element_post_message (e, gst_message_new_element (GST_OBJECT (e), s));
  }
}

static int
compare_ints (const void *a, const void *b)
{
  gint x = *(const gint *) a, y = *(const gint *) b;

  return (x > y) - (x < y);
}

/* (old id, region index) pairs, by old id then index. */
static int
compare_pairs (const void *a, const void *b)
{
  const gint *x = a, *y = b;

  if (x[0] != y[0])
    return (x[0] > y[0]) - (x[0] < y[0]);
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Keeps region ids unique in the buffer after the tracked regions took
 * their tracks' ids: another region whose id a track took gets a new
 * one above every id of the buffer. A parent id keeps naming the region
 * it named when the frame came — by that region's new id (-1 when it was
 * removed) — when exactly one region had that id and it is not the
 * child itself; an ambiguous one (GStreamer leaves every id and parent
 * id 0 unless told) is left as it is. */
static void
fix_ids (TensorTrackState * st)
{
  Region *rs = st->regions;
  gint *ids = st->sorted, *pairs = st->sorted;
  guint i, k = 0, np = 0;
  gint top = -1;

  for (i = 0; i < st->n_regions; i++) {
    if (rs[i].removed)
      continue;
    if (rs[i].tracked)
      ids[k++] = rs[i].meta->id;
    top = MAX (top, rs[i].meta->id);
  }
  if (k > 0)
    qsort (ids, k, sizeof (gint), compare_ints);
  for (i = 0; i < st->n_regions && k > 0; i++) {
    Region *r = &rs[i];

    if (r->removed || r->tracked
        || bsearch (&r->meta->id, ids, k, sizeof (gint), compare_ints) == NULL)
      continue;
    if (top == G_MAXINT) {
      GST_WARNING ("no region id left above %d: region %u keeps id %d", top,
          i, r->meta->id);
      continue;
    }
    r->meta->id = ++top;
  }
  /* Parents, by the ids the regions had when the frame came: (old id,
   * index) of every region that came with the frame, sorted. */
  for (i = 0; i < st->n_regions; i++) {
    if (rs[i].old_id != G_MININT) {
      pairs[2 * np] = rs[i].old_id;
      pairs[2 * np + 1] = (gint) i;
      np++;
    }
  }
  if (np == 0)
    return;
  qsort (pairs, np, 2 * sizeof (gint), compare_pairs);
  for (i = 0; i < st->n_regions; i++) {
    GstVideoRegionOfInterestMeta *m;
    gint key[2];
    guint lo = 0, hi = np;
    const Region *p;

    if (rs[i].removed || rs[i].old_id == G_MININT
        || (m = rs[i].meta)->parent_id < 0
        || m->parent_id == rs[i].old_id)
      continue;
    key[0] = m->parent_id;
    key[1] = G_MININT;
    /* The first region that had the parent's id. */
    while (lo < hi) {
      guint mid = (lo + hi) / 2;

      if (compare_pairs (&pairs[2 * mid], key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo >= np || pairs[2 * lo] != m->parent_id
        || (lo + 1 < np && pairs[2 * lo + 2] == m->parent_id))
      continue;                 /* no region had it, or several */
    p = &rs[pairs[2 * lo + 1]];
    m->parent_id = p->removed ? -1 : p->meta->id;
  }
}

/* Adds to buf a predicted region for r (a track without one this frame):
 * type its label, a "detection" structure of its last detection and
 * "tracking". FALSE when its box is outside the frame. */
static gboolean
add_region (TensorTrackState * st, GstBuffer * buf,
    const TensorTrackRecord * r)
{
  GstVideoRegionOfInterestMeta *m;
  GstStructure *det;
  guint x, y, w, h;
  GQuark type = r->label & ~TENSOR_TRACK_LABEL_FIELD;

  if (!clip_box (st, r->x, r->y, r->w, r->h, &x, &y, &w, &h) || type == 0)
    return FALSE;
  regions_reserve (st, st->n_regions + 1);
  m = gst_buffer_add_video_region_of_interest_meta_id (buf, type, x, y, w, h);
  m->id = region_id (r->id);
  m->parent_id = -1;
  det = gst_structure_new_id (q_detection, q_class_id, G_TYPE_INT,
      r->class_id, q_confidence, G_TYPE_DOUBLE, r->confidence, NULL);
  if (r->label & TENSOR_TRACK_LABEL_FIELD)
    gst_structure_id_set (det, q_label, G_TYPE_STRING, g_quark_to_string (type),
        NULL);
  gst_video_region_of_interest_meta_add_param (m, det);
  set_tracking (m, r->id, r->age, TENSOR_TRACK_PREDICTED);
  region_init (&st->regions[st->n_regions++], m, G_MININT);
  st->regions[st->n_regions - 1].tracked = TRUE;
  return TRUE;
}

static GstFlowReturn
track_transform_ip (GstBaseTransform * t, GstBuffer * buf)
{
  TensorTrackState *st = state_of (t);
  TensorTrackFrame *f;
  gpointer iter = NULL;
  GstMeta *meta;
  guint i, n = 0, predicted = 0;

  if (st == NULL)
    return GST_FLOW_OK;
  f = &st->frame;
  __atomic_add_fetch (&st->frames, 1, __ATOMIC_RELAXED);
  if (!gst_buffer_is_writable (buf)) {
    /* GstBaseTransform's in-place path copies a buffer others hold. */
    GST_WARNING_OBJECT (t, "buffer %p not writable: tracks not written", buf);
    return GST_FLOW_OK;
  }

  /* The regions; those with a "detection" structure are the detections. */
  st->n_regions = 0;
  f->n_dets = 0;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;
    GstStructure *s = gst_video_region_of_interest_meta_get_param (m,
        "detection");
    Region *r;

    regions_reserve (st, st->n_regions + 1);
    r = &st->regions[st->n_regions++];
    region_init (r, m, m->id);
    if (s != NULL) {
      TensorTrackDet *d;

      frame_reserve_dets (f, f->n_dets + 1);
      d = &f->dets[f->n_dets];
      d->x = m->x;
      d->y = m->y;
      d->w = m->w;
      d->h = m->h;
      if (!field_int (s, q_class_id, &d->class_id))
        d->class_id = -1;
      if (!field_double (s, q_confidence, &d->confidence))
        d->confidence = 0;
      d->label = label_key (m, s);
      r->det = (gint) f->n_dets++;
    }
  }
  f->detected = !frame_repeats_run (st, buf);
  f->pts = GST_BUFFER_PTS (buf);
  f->n_added = f->n_ended = 0;
  f->started = f->alive = 0;

  /* The one call into Go a frame. */
  if (!gstcGoTensorTrackFrame (GST_ELEMENT (t), st->handle, f))
    return GST_FLOW_ERROR;      /* Go posted the error */

  for (i = 0; i < st->n_regions; i++) {
    Region *r = &st->regions[i];
    const TensorTrackMatch *mt;
    guint x, y, w, h;

    if (r->det < 0 || (mt = &f->matches[r->det])->id == 0)
      continue;
    if (mt->state == TENSOR_TRACK_PREDICTED) {
      /* The previous run's detection again: moved to the prediction. */
      if (!clip_box (st, mt->x, mt->y, mt->w, mt->h, &x, &y, &w, &h)) {
        gst_buffer_remove_meta (buf, (GstMeta *) r->meta);
        r->removed = TRUE;
        continue;
      }
      r->meta->x = x;
      r->meta->y = y;
      r->meta->w = w;
      r->meta->h = h;
      predicted++;
    }
    r->meta->id = region_id (mt->id);
    r->tracked = TRUE;
    set_tracking (r->meta, mt->id, mt->age, mt->state);
  }
  for (i = 0; i < f->n_added; i++)
    if (add_region (st, buf, &f->added[i]))
      predicted++;
  fix_ids (st);
  n = f->n_dets;

  __atomic_add_fetch (&st->tracks_started, f->started, __ATOMIC_RELAXED);
  __atomic_store_n (&st->tracks_alive, f->alive, __ATOMIC_RELAXED);
  __atomic_add_fetch (&st->predicted_regions, predicted, __ATOMIC_RELAXED);
  GST_LOG_OBJECT (t, "%s frame: %u detections, %u predicted regions, "
      "%" G_GUINT64_FORMAT " tracks, %u ended",
      f->detected ? "detector" : "repeated", n, predicted, f->alive,
      f->n_ended);
  post_ended (st, GST_ELEMENT (t), f);
  gstc_sched_tick ();
  return GST_FLOW_OK;
}

/* Ends every track of e and posts their messages; with forget, the run
 * is forgotten too (a flush: the next frame is a detector run). */
static void
end_all (GstElement * e, TensorTrackState * st, gboolean forget)
{
  TensorTrackFrame f = { 0 };

  if (forget)
    st->have_run = FALSE;
  if (gstcGoTensorTrackEnd (e, st->handle, &f)) {
    __atomic_store_n (&st->tracks_alive, 0, __ATOMIC_RELAXED);
    post_ended (st, e, &f);
  }
  frame_clear (&f);
}

void
tensor_track_end_all (GstElement * e)
{
  TensorTrackState *st = state_of (e);

  if (st != NULL)
    end_all (e, st, TRUE);
}

static gboolean
track_sink_event (GstBaseTransform * t, GstEvent * ev)
{
  TensorTrackState *st = state_of (t);

  if (st != NULL) {
    switch (GST_EVENT_TYPE (ev)) {
      case GST_EVENT_FLUSH_STOP:
        /* A flushing seek: the stream's continuity is broken. */
        end_all (GST_ELEMENT (t), st, TRUE);
        break;
      case GST_EVENT_EOS:
        /* Every track ends, said before EOS goes on. */
        end_all (GST_ELEMENT (t), st, FALSE);
        break;
      default:
        break;
    }
  }
  if (parent_sink_event != NULL)
    return parent_sink_event (t, ev);
  gst_event_unref (ev);
  return FALSE;
}

static gboolean
track_set_caps (GstBaseTransform * t, GstCaps * incaps, GstCaps * outcaps)
{
  TensorTrackState *st = state_of (t);

  if (st == NULL)
    return FALSE;
  /* Only the size matters (regions are clipped to it); any format, or
   * none (a DMA-BUF caps may name its format otherwise). Without a size,
   * nothing is clipped. */
  if (!gstc_caps_frame_size (incaps, &st->width, &st->height))
    GST_WARNING_OBJECT (t, "caps %" GST_PTR_FORMAT " without a frame size: "
        "regions are not clipped", incaps);
  return TRUE;
}

void
tensor_track_install (gpointer klass)
{
  GstBaseTransformClass *k = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (tensor_track_debug, "tensortrack", 0,
      "tensortrack: objects followed over frames");
  q_detection = g_quark_from_static_string ("detection");
  q_tracking = g_quark_from_static_string ("tracking");
  q_id = g_quark_from_static_string ("id");
  q_age = g_quark_from_static_string ("age");
  q_state = g_quark_from_static_string ("state");
  q_class_id = g_quark_from_static_string ("class-id");
  q_confidence = g_quark_from_static_string ("confidence");
  q_label = g_quark_from_static_string ("label");
  if (k->sink_event != track_sink_event)
    parent_sink_event = k->sink_event;
  k->sink_event = track_sink_event;
  k->set_caps = track_set_caps;
  k->transform_ip = track_transform_ip;
  k->transform = NULL;
  k->passthrough_on_same_caps = FALSE;
  k->transform_ip_on_passthrough = FALSE;
}
