/* regions.c: tensorinfer's frame in region mode (inference-region=
 * roi-list; inferframe.h): a second model on what a first found. The
 * frame's regions — its GstVideoRegionOfInterestMetas of the chosen
 * classes, clipped to the frame, big enough — are cropped from the pinned
 * frame by the fused pass straight into the batch input, in batches of
 * the model's batch size, each batch run into an output slot of its own
 * that a GstTensorPinMeta on the video holds, naming the batch's regions
 * row by row. Go is called only for a shape the frame has not run before
 * (gstcGoInferVariant: a reshaped session, bound once per output slot)
 * and for a slot more when the frame holds every slot of the ring
 * (gstcGoInferGrow). */
#include "inferframe.h"
#include "element.h"
#include "message.h"
#include "videoout.h"
#include "tensormeta.h"

#include <math.h>
#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (regions_debug);
#define GST_CAT_DEFAULT regions_debug

static void
init_debug (void)
{
  gstc_debug_once (&regions_debug, "tensorinfer-regions",
      "tensorinfer's region frame");
}

/* Whether region meta m is of one of s's classes: its type or its
 * detection label (any, with no class given). */
static gboolean
wanted (GstcInferFrame * s, GstVideoRegionOfInterestMeta * m)
{
  const GstStructure *det;
  const gchar *label;
  GQuark lq = 0;
  int i;

  if (s->n_classes == 0)
    return TRUE;
  det = gst_video_region_of_interest_meta_get_param (m, "detection");
  if (det != NULL && (label = gst_structure_get_string (det, "label")))
    lq = g_quark_try_string (label);
  for (i = 0; i < s->n_classes; i++)
    if (s->classes[i] == m->roi_type || (lq != 0 && s->classes[i] == lq))
      return TRUE;
  return FALSE;
}

/* Whether m's track (its "tracking" structure's id) has a result that
 * stands on this frame (reclassify-interval): it ran fewer than
 * reclassify frames ago (0: ever). The track is marked seen; *run is set
 * to it when it is to run (the caller marks it run once the region is
 * taken), NULL when the region has no track. */
static gboolean
track_result_stands (GstcInferFrame * s, GstVideoRegionOfInterestMeta * m,
    GstcInferTrack ** run)
{
  GstStructure *ts;
  GstcInferTrack *tr;
  guint64 id;

  *run = NULL;
  if (s->tracks == NULL)
    return FALSE;
  ts = gst_video_region_of_interest_meta_get_param (m, "tracking");
  if (ts == NULL || !gst_structure_get_uint64 (ts, "id", &id))
    return FALSE;
  tr = g_hash_table_lookup (s->tracks, &id);
  if (tr == NULL) {
    tr = g_new0 (GstcInferTrack, 1);
    tr->id = id;
    tr->ran = G_MAXUINT64;
    g_hash_table_insert (s->tracks, &tr->id, tr);
  }
  tr->seen = s->seq;
  if (tr->ran != G_MAXUINT64 && (s->reclassify == 0
          || s->seq - tr->ran < s->reclassify))
    return TRUE;
  *run = tr;
  return FALSE;
}

/* A track not on this frame: it ended, or left the frame. */
static gboolean
track_gone (gpointer key, gpointer value, gpointer seq)
{
  return ((GstcInferTrack *) value)->seen != *(guint64 *) seq;
}

/* Fills s's scratch with in's wanted regions, clipped to the frame
 * (regions outside it, or under min_size on a side after clipping, are
 * skipped and counted), but those whose track's result stands
 * (reclassify-interval: counted), at most max_regions (the rest
 * counted); returns how many. */
static int
collect (GstcInferFrame * s, GstBuffer * in)
{
  gpointer state = NULL;
  GstMeta *meta;
  int n = 0, over = 0, small = 0, reused = 0;

  while ((meta = gst_buffer_iterate_meta_filtered (in, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) != NULL) {
    GstVideoRegionOfInterestMeta *m = (GstVideoRegionOfInterestMeta *) meta;
    gint64 x0 = m->x, y0 = m->y, x1 = (gint64) m->x + m->w,
        y1 = (gint64) m->y + m->h;
    GstcInferRegion *r;
    GstcInferTrack *track;

    if (!wanted (s, m))
      continue;
    x1 = MIN (x1, s->frame_w);
    y1 = MIN (y1, s->frame_h);
    if (x1 - x0 < s->min_size || y1 - y0 < s->min_size) {
      small++;
      continue;
    }
    if (track_result_stands (s, m, &track)) {
      reused++;
      continue;
    }
    if (n >= s->max_regions) {
      over++;
      continue;
    }
    if (track != NULL)
      track->ran = s->seq;
    r = &s->regions_scratch[n++];
    r->id = m->id;
    r->x = (gint) x0;
    r->y = (gint) y0;
    r->w = (gint) (x1 - x0);
    r->h = (gint) (y1 - y0);
  }
  if (small)
    gstc_count (s->counters, GSTC_INFER_REGIONS_SMALL, small);
  if (over)
    gstc_count (s->counters, GSTC_INFER_REGIONS_DROPPED, over);
  if (reused)
    gstc_count (s->counters, GSTC_INFER_REGIONS_REUSED, reused);
  if (s->tracks != NULL)
    g_hash_table_foreach_remove (s->tracks, track_gone, &s->seq);
  return n;
}

/* Narrow before wide (as PaddleOCR sorts text lines): a batch's regions
 * are alike, so its free side pads little. */
static gint
by_aspect (gconstpointer a, gconstpointer b)
{
  const GstcInferRegion *ra = a, *rb = b;
  gint64 l = (gint64) ra->w * rb->h, r = (gint64) rb->w * ra->h;

  return l < r ? -1 : l > r ? 1 : 0;
}

/* The free side a region needs at the fixed side: PaddleOCR's
 * ceil(fixed * long / short). */
static int
free_side (GstcInferFrame * s, const GstcInferRegion * r)
{
  if (s->fixed_w == 0)
    return (int) ceil ((double) s->fixed_h * r->w / r->h);
  return (int) ceil ((double) s->fixed_w * r->h / r->w);
}

/* The variant of rows x (w, h), found or made by Go; NULL when Go posted
 * why not (*ret). */
static GstcInferVariant *
variant (GstcInferFrame * s, GstBaseTransform * t, int rows, int w, int h,
    GstFlowReturn * ret)
{
  int i, free_v = s->fixed_w == 0 ? w : h;

  for (i = 0; i < s->n_var; i++)
    if (s->var[i].rows == rows && s->var[i].dst_w == w && s->var[i].dst_h == h)
      return &s->var[i];
  i = gstcGoInferVariant (t, gstc_instance_handle (t), rows, free_v);
  if (i < 0 || i >= s->n_var) {
    if (i >= 0)
      GSTC_POST_ERROR (t, GSTC_DOMAIN_CORE, GST_CORE_ERROR_FAILED,
          "tensorinfer: the shape Go made is not in the frame's table");
    *ret = i < 0 ? (GstFlowReturn) i : GST_FLOW_ERROR;
    return NULL;
  }
  return &s->var[i];
}

/* Where region r goes in a dst_w x dst_h image: free side, the fixed
 * side filled and the free one following the aspect (left or top, the
 * rest padding); both fixed, stretched or letterboxed. */
static void
place (GstcInferFrame * s, const GstcInferRegion * r, int dst_w, int dst_h,
    GstppRegion * g)
{
  g->x = r->x;
  g->y = r->y;
  g->w = r->w;
  g->h = r->h;
  g->dst_w = dst_w;
  g->dst_h = dst_h;
  g->cx = g->cy = 0;
  g->cw = dst_w;
  g->ch = dst_h;
  if (s->fixed_w == 0) {
    g->cw = MIN (MAX (free_side (s, r), 1), dst_w);
  } else if (s->fixed_h == 0) {
    g->ch = MIN (MAX (free_side (s, r), 1), dst_h);
  } else if (s->letterbox) {
    double k = MIN ((double) dst_w / r->w, (double) dst_h / r->h);

    g->cw = MIN (MAX ((int) floor (r->w * k + 0.5), 1), dst_w);
    g->ch = MIN (MAX ((int) floor (r->h * k + 0.5), 1), dst_h);
    g->cx = (dst_w - g->cw) / 2;
    g->cy = (dst_h - g->ch) / 2;
  }
}

/* A slot for a batch: the ring's next free one; when the frame already
 * holds slots and none is free, one more from Go (the ring grows) — a
 * frame never waits on itself — else -1 (the rest of the frame's
 * regions are dropped). A frame's first batch with none free grows the
 * ring too while it is under ring_base x the batches a frame needs
 * (batches: this frame's): downstream may hold ring_base - 1 frames
 * (max-leases), each with as many slots as its batches — fakesink's last
 * frame is one — and waiting on those would wait on a frame to come.
 * Above that bound, it waits: downstream holds more than it said. */
static int
batch_slot (GstcInferFrame * s, GstBaseTransform * t, int held, int batches)
{
  int slot;

  if (held == 0) {
    slot = gstc_out_ring_take (s->ring);
    if (slot >= 0)
      return slot;
    if (gstc_out_ring_size (s->ring) < s->ring_base * MAX (batches,
            s->batches_max) && gstcGoInferGrow (t, gstc_instance_handle (t))
        && (slot = gstc_out_ring_take (s->ring)) >= 0)
      return slot;
    return gstc_infer_take_slot (s, t);
  }
  slot = gstc_out_ring_take (s->ring);
  if (slot >= 0)
    return slot;
  if (!gstcGoInferGrow (t, gstc_instance_handle (t)))
    return -1;
  return gstc_out_ring_take (s->ring);
}

/* Makes the output buffer of batch slot, with in's timestamps. */
static GstBuffer *
slot_buffer (GstcInferFrame * s, int slot, GstBuffer * in)
{
  GstMemory *first, *rest[GSTC_OUT_MAX_TENSORS];
  GstcOutTensor *t0 = &s->ring->slots[slot].t[0];
  GstBuffer *b;
  int n, k;

  first = gstc_out_ring_push (s->ring, slot, &n, rest);
  b = gstc_ring_frame_new (first, GST_BUFFER_PTS (in),
      GST_BUFFER_DURATION (in), s->seq, FALSE, GST_TENSOR_SYNC_BEGIN,
      GST_TENSOR_SYNC_READWRITE, t0->dev, t0->ino, t0->offset,
      (guint) s->seq);
  GST_BUFFER_DTS (b) = GST_BUFFER_DTS (in);
  for (k = 1; k < n; k++)
    gst_buffer_append_memory (b, rest[k - 1]);
  return b;
}

void
gstc_infer_region_frame (GstcInferFrame * s, GstBaseTransform * t,
    GstBuffer * in, GstcInferInput * rec, GstBuffer ** out,
    GstFlowReturn * ret)
{
  GstcVideoOut *vo = gstc_video_out_of (t);
  GstTensorPinMeta from;
  gint ids[GSTC_INFER_MAX_BATCH];
  gdouble trs[4 * GSTC_INFER_MAX_BATCH];
  int n, i, held = 0;
  gsize len;
  GstFlowReturn r;
  gboolean wrap;

  init_debug ();
  *out = NULL;
  /* The region mode's video always goes on. */
  wrap = gstc_infer_wraps (rec, in, TRUE);
  n = collect (s, in);
  if (n == 0) {
    /* Nothing to read: no bracket, no run; the video goes on as it came
     * (its begin answered as a run's would be), with this element's
     * empty result — no tensors, no region — so that a decoder after it
     * decodes nothing on this frame rather than the result of an element
     * before it. */
    gstc_infer_end_input_read (s, t, rec, in);
    *out = gstc_video_out_buffer (vo, in);
    memset (&from, 0, sizeof from);
    from.scale_x = from.scale_y = 1;
    from.run = s->seq++;
    from.producer = gstc_video_out_producer (vo);
    gst_tensor_pin_meta_add (*out, &from, NULL);
    gstc_count (s->counters, GSTC_INFER_FRAMES, 1);
    *ret = GST_FLOW_OK;
    return;
  }
  qsort (s->regions_scratch, n, sizeof (GstcInferRegion), by_aspect);
  if (s->ring_base == 0)
    s->ring_base = gstc_out_ring_size (s->ring);
  if (rec->in.copy) {
    len = gstc_input_copy_in (&rec->in, in);
    gstc_count (s->counters, GSTC_INFER_COPIES, 1);
    gstc_count (s->counters, GSTC_INFER_BYTES_COPIED, len);
  } else {
    r = gstc_infer_enter_input (s, t, rec,
        wrap ? GSTC_ACCESS_READWRITE : GSTC_ACCESS_READ);
    if (r != GST_FLOW_OK) {
      *ret = r;
      return;
    }
    gstc_count (s->counters, GSTC_INFER_IN_SYNCS, 1);
    len = rec->in.mem_size;
  }
  /* The video goes on in its memory's wrapper when it has one (joining
   * the bracket just opened: it stays open until the wrapper's last
   * holder lets go), else as it came. */
  *out = wrap ? gstc_foreign_lend (in) : NULL;
  if (*out != NULL)
    gstc_count (s->counters, GSTC_INFER_WRAPPED, 1);
  else
    *out = gstc_video_out_buffer (vo, in);
  memset (&from, 0, sizeof from);
  from.scale_x = from.scale_y = 1;
  from.run = s->seq;
  from.producer = gstc_video_out_producer (vo);
  from.region_ids = ids;
  from.region_transforms = trs;
  r = GST_FLOW_OK;
  for (i = 0; i < n && r == GST_FLOW_OK;) {
    int k = MIN (s->batch_max, n - i), rows = 1, j, slot, dst_w, dst_h;
    GstcInferVariant *v;
    size_t image;
    gint64 t0;

    /* A full batch, else the largest power of two of the regions left:
     * a few shapes serve every count (sessions and bindings reused), and
     * no run computes a row no region fills (5 regions run as 4 and 1,
     * not as 8 with 3 of padding: the model's time follows the rows). */
    if (k < s->batch_max) {
      while (rows * 2 <= k)
        rows *= 2;
      k = rows;
    }
    rows = k;
    dst_w = s->fixed_w;
    dst_h = s->fixed_h;
    if (s->fixed_w == 0 || s->fixed_h == 0) {
      int need = 1;

      for (j = 0; j < k; j++)
        need = MAX (need, free_side (s, &s->regions_scratch[i + j]));
      need = (need + s->free_step - 1) / s->free_step * s->free_step;
      need = MIN (need, s->free_max);
      if (s->fixed_w == 0)
        dst_w = need;
      else
        dst_h = need;
    }
    v = variant (s, t, rows, dst_w, dst_h, &r);
    if (v == NULL)
      break;
    slot = batch_slot (s, t, held, (n + s->batch_max - 1) / s->batch_max);
    if (slot < 0) {
      if (GST_PAD_IS_FLUSHING (GST_BASE_TRANSFORM_SINK_PAD (t)))
        r = GST_FLOW_FLUSHING;
      else
        gstc_count (s->counters, GSTC_INFER_REGIONS_DROPPED, n - i);
      break;
    }
    if (v->io[slot] == NULL) {
      gstc_out_ring_give (s->ring, slot);
      GSTC_POST_ERROR (t, GSTC_DOMAIN_CORE, GST_CORE_ERROR_FAILED,
          "tensorinfer: output slot %d is not bound for a batch of %d at "
          "%dx%d", slot, rows, dst_w, dst_h);
      r = GST_FLOW_ERROR;
      break;
    }
    image = (size_t) dst_w * dst_h * 3 * s->elem_size;
    t0 = gstc_infer_clock_ns (CLOCK_MONOTONIC);
    for (j = 0; j < k; j++) {
      GstppRegion g;
      const GstcInferRegion *rg = &s->regions_scratch[i + j];
      int rc;

      place (s, rg, dst_w, dst_h, &g);
      rc = s->pre_region ((GstppPlan *) s->pre_plan, rec->in.host, len, &g,
          s->batch_dst + j * image, image);
      if (rc != GSTPP_OK) {
        GSTC_POST_ERROR (t, GSTC_DOMAIN_STREAM, GST_STREAM_ERROR_FORMAT,
            "tensorinfer: pre-processing region %d (%d,%d %dx%d) of a "
            "%dx%d frame (%" G_GSIZE_FORMAT " bytes) into %dx%d failed "
            "(error %d)", rg->id, rg->x, rg->y, rg->w, rg->h, s->frame_w,
            s->frame_h, len, dst_w, dst_h, rc);
        r = GST_FLOW_ERROR;
        break;
      }
      ids[j] = rg->id;
      trs[4 * j] = (gdouble) g.cw / g.w;
      trs[4 * j + 1] = (gdouble) g.ch / g.h;
      trs[4 * j + 2] = g.cx - g.x * trs[4 * j];
      trs[4 * j + 3] = g.cy - g.y * trs[4 * j + 1];
    }
    gstc_count (s->counters, GSTC_INFER_PREPROCESS_NS,
        MAX (gstc_infer_clock_ns (CLOCK_MONOTONIC) - t0, 0));
    gstc_count (s->counters, GSTC_INFER_PREPROCESSED, k);
    if (r == GST_FLOW_OK && gstc_out_ring_open_writes (s->ring, slot, TRUE)) {
      GSTC_POST_ERROR (t, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
          "tensorinfer: cannot begin CPU access to an output tensor");
      r = GST_FLOW_ERROR;
    }
    if (r == GST_FLOW_OK && !gstc_infer_timed_run (s, t, v->io[slot], -1,
            slot)) {
      gstc_out_ring_close_writes (s->ring, slot);
      r = GST_FLOW_ERROR;
    }
    if (r != GST_FLOW_OK) {
      gstc_out_ring_give (s->ring, slot);
      break;
    }
    from.caps = v->caps;
    from.model_width = dst_w;
    from.model_height = dst_h;
    from.n_regions = k;
    gst_tensor_pin_meta_add (*out, &from, slot_buffer (s, slot, in));
    gstc_count (s->counters, GSTC_INFER_REGIONS, k);
    held++;
    i += k;
  }
  s->batches_max = MAX (s->batches_max, held);
  if (!rec->in.copy)
    gstc_infer_leave_input (s, t, rec);
  gstc_infer_end_input_read (s, t, rec, in);
  s->seq++;
  if (r != GST_FLOW_OK) {
    /* The input itself is GstBaseTransform's reference: not ours. */
    if (*out != in)
      gst_buffer_unref (*out);
    *out = NULL;
    *ret = r;
    return;
  }
  gstc_count (s->counters, GSTC_INFER_FRAMES, 1);
  *ret = GST_FLOW_OK;
}
