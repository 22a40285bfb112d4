/* inferframe.c: tensorinfer's frame (inferframe.h). */
#include "inferframe.h"
#include "message.h"
#include "element.h"
#include "syncpush.h"
#include "videoout.h"

#include <sys/stat.h>

#include <poll.h>
#include <time.h>
#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (infer_frame_debug);
#define GST_CAT_DEFAULT infer_frame_debug

static GQuark
engine_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-infer-frame");
}

gint64
gstc_infer_clock_ns (clockid_t id)
{
  struct timespec ts;

  if (clock_gettime (id, &ts) != 0)
    return 0;
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

GstcInferFrame *
gstc_infer_frame_new (GstElement * element, GstcCounters * c)
{
  GstcInferFrame *s = g_new0 (GstcInferFrame, 1);
  int i;

  gstc_debug_once (&infer_frame_debug, "tensorinfer-frame",
      "tensorinfer's frame engine");
  s->wake = gstc_wake_ref (gstc_wake_of (element));
  s->begins = gstc_pending_attach (element);
  s->counters = gstc_counters_ref (c);
  /* As runclock.go's calibrate: the least of a few back-to-back reads,
   * and the first run unsampled. */
  s->pair_ns = -1;
  for (i = 0; i < 8; i++) {
    gint64 t0 = gstc_infer_clock_ns (CLOCK_THREAD_CPUTIME_ID);
    gint64 d = gstc_infer_clock_ns (CLOCK_THREAD_CPUTIME_ID) - t0;

    if (s->pair_ns < 0 || d < s->pair_ns)
      s->pair_ns = d;
  }
  s->pair_ns = MAX (s->pair_ns, 0);
  s->until_sample = 1;
  s->reclassify = 1;
  return s;
}

void
gstc_infer_frame_free (GstcInferFrame * s)
{
  if (s == NULL)
    return;
  gstc_out_ring_unref (s->ring);
  gstc_counters_unref (s->counters);
  gstc_wake_unref (s->wake);
  gstc_infer_frame_clear_variants (s);
  if (s->tracks != NULL)
    g_hash_table_destroy (s->tracks);
  g_free (s->regions_scratch);
  g_free (s->model);
  g_free (s);
}

void
gstc_infer_frame_set_regions (GstcInferFrame * s, int max_regions)
{
  g_free (s->regions_scratch);
  s->regions_scratch = NULL;
  s->regions = max_regions > 0;
  s->max_regions = MAX (max_regions, 0);
  if (s->regions)
    s->regions_scratch = g_new0 (GstcInferRegion, max_regions);
}

void
gstc_infer_frame_set_reclassify (GstcInferFrame * s, guint interval)
{
  s->reclassify = interval;
  if (interval == 1 && s->tracks != NULL) {
    g_hash_table_destroy (s->tracks);
    s->tracks = NULL;
  } else if (interval != 1 && s->tracks == NULL)
    s->tracks = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
        g_free);
}

void
gstc_infer_frame_clear_variants (GstcInferFrame * s)
{
  int i;

  for (i = 0; i < s->n_var; i++)
    gst_clear_caps (&s->var[i].caps);
  memset (s->var, 0, sizeof s->var);
  s->n_var = 0;
}

void
gstc_infer_frame_set_ring (GstcInferFrame * s, GstcOutRing * ring)
{
  if (ring != NULL) {
    g_atomic_int_inc (&ring->refs);
    gstc_out_ring_set_wake (ring, s->wake);
  }
  gstc_out_ring_unref (s->ring);
  s->ring = ring;
  /* A new ring: its size is the new base of region frames' growth. */
  s->ring_base = 0;
  s->batches_max = 0;
}

void
gstc_infer_frame_remove_input (GstcInferFrame * s, int i)
{
  if (i < 0 || i >= s->n_in)
    return;
  s->n_in--;
  if (i != s->n_in)
    s->in[i] = s->in[s->n_in];
  memset (&s->in[s->n_in], 0, sizeof s->in[0]);
}

/* Each streaming thread remembers the last element it found an engine
 * on (a qdata lookup takes the element's datalist lock), valid while no
 * gstc_infer_frame_set has happened since. */
static guint engine_generation;
static __thread struct
{
  GstBaseTransform *t;
  GstcInferFrame *s;
  guint generation;
} last_found;

void
gstc_infer_frame_set (GstElement * element, GstcInferFrame * s)
{
  g_object_set_qdata (G_OBJECT (element), engine_quark (), s);
  g_atomic_int_inc ((gint *) & engine_generation);
}

static GstcInferFrame *
engine_of (GstBaseTransform * t)
{
  guint g = (guint) g_atomic_int_get ((gint *) & engine_generation);

  if (last_found.t != t || last_found.generation != g) {
    last_found.s = g_object_get_qdata (G_OBJECT (t), engine_quark ());
    last_found.t = t;
    last_found.generation = g;
  }
  return last_found.s;
}

/* The input the table has for a memory whose qdata is tag, read at
 * offset with stride: a memory may be in it with more than one layout
 * (a producer whose video meta alternates). */
static GstcInferInput *
find_input (GstcInferFrame * s, uintptr_t tag, GstMemory * mem,
    guint64 offset, gint stride)
{
  int i;

  for (i = 0; i < s->n_in; i++) {
    GstcInferInput *r = &s->in[i];

    if (gstc_input_is (&r->in, tag, mem) && r->offset == offset
        && r->stride == stride)
      return r;
  }
  return NULL;
}

/* The copy input for a buffer of size bytes read at offset with stride. */
static GstcInferInput *
find_copy (GstcInferFrame * s, gsize size, guint64 offset, gint stride)
{
  int i;

  for (i = 0; i < s->n_in; i++) {
    GstcInferInput *r = &s->in[i];

    if (r->in.copy && r->offset == offset && r->stride == stride
        && size >= r->need && size <= r->in.mem_size)
      return r;
  }
  return NULL;
}

/* Whether a frame (its video meta, or the caps' layout without one) is
 * laid out as the pre-processing plan reads it. */
static gboolean
pre_layout_matches (GstcInferFrame * s, GstVideoMeta * vm)
{
  const gint *strides = s->pre_caps_strides;
  const guint64 *offsets = s->pre_caps_offsets;
  int i, n = s->pre_caps_n_planes;
  guint64 vo[GSTC_INFER_MAX_PLANES];

  if (vm != NULL && vm->n_planes > 0) {
    n = MIN ((int) vm->n_planes, GSTC_INFER_MAX_PLANES);
    for (i = 0; i < n; i++)
      vo[i] = vm->offset[i];
    strides = vm->stride;
    offsets = vo;
  }
  if (n != s->pre_n_planes)
    return FALSE;
  for (i = 0; i < n; i++)
    if (strides[i] != s->pre_strides[i] || offsets[i] != s->pre_offsets[i])
      return FALSE;
  return TRUE;
}

/* The table's input for in, or NULL when Go must look. */
static GstcInferInput *
lookup (GstcInferFrame * s, GstBuffer * in)
{
  GstVideoMeta *vm = gst_buffer_get_video_meta (in);
  guint64 offset = s->default_offset;
  gint stride = s->default_stride;
  GstMemory *mem;

  if (s->pre_plan != NULL) {
    /* Pre-processing reads the memory whole, the meta itself. */
    if (!pre_layout_matches (s, vm))
      return NULL;
    offset = 0;
    stride = 0;
  } else if (vm != NULL && vm->n_planes > 0) {
    offset = vm->offset[0];
    stride = vm->stride[0];
  }
  if (gst_buffer_n_memory (in) == 1
      && gst_is_fd_memory (mem = gst_buffer_peek_memory (in, 0))) {
    uintptr_t tag = gstc_input_tag (mem, s->qkey);

    return tag != 0 ? find_input (s, tag, mem, offset, stride) : NULL;
  }
  return find_copy (s, gst_buffer_get_size (in), offset, stride);
}

/* A free output slot, waiting while every slot is downstream; -1 when a
 * flush or a stop ended the wait. */
int
gstc_infer_take_slot (GstcInferFrame * s, GstBaseTransform * t)
{
  if (GST_PAD_IS_FLUSHING (GST_BASE_TRANSFORM_SINK_PAD (t)))
    return gstc_out_ring_take (s->ring);        /* no wait: a flush is under way */
  return gstc_out_ring_take_waiting (s->ring, s->wake, s->counters);
}

/* Joins or opens the input's read bracket, after its fences (a wait
 * bounded by sync-timeout). GST_FLOW_OK: entered; else nothing held and
 * an error posted (GST_FLOW_ERROR), or FLUSHING, or DROPPED. */
GstFlowReturn
gstc_infer_enter_input (GstcInferFrame * s, GstBaseTransform * t,
    GstcInferInput * rec, int access)
{
  GstcFenceWait e;
  GstcInputResult r = gstc_input_enter (&rec->in, access, s->wake,
      s->sync_timeout_ms, &e);

  if (e.waited)
    gstc_count (s->counters, GSTC_INFER_FENCE_WAITS, 1);
  switch (r) {
    case GSTC_INPUT_ENTERED:
      return GST_FLOW_OK;
    case GSTC_INPUT_FLUSHING:
      return GST_FLOW_FLUSHING;
    case GSTC_INPUT_TIMED_OUT:
      gstc_count (s->counters, GSTC_INFER_FENCE_TIMEOUTS, 1);
      if (s->drop_on_timeout) {
        gstc_count (s->counters, GSTC_INFER_DROPPED, 1);
        GST_INFO_OBJECT (t, "input fences not signalled within %d ms: "
            "frame dropped", s->sync_timeout_ms);
        return GST_BASE_TRANSFORM_FLOW_DROPPED;
      }
      GSTC_POST_ERROR (t, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
          "tensorinfer: input: the fences of dma-buf %" G_GUINT64_FORMAT ":%"
          G_GUINT64_FORMAT " (%s access) not signalled after %d ms "
          "(sync-timeout %d ms)", rec->in.dev, rec->in.ino,
          access == GSTC_ACCESS_READ ? "read" : "read-write",
          (int) (e.waited_ns / 1000000), s->sync_timeout_ms);
      return GST_FLOW_ERROR;
    case GSTC_INPUT_POLL_FAILED:
      GSTC_POST_ERROR (t, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
          "tensorinfer: cannot wait for the input's fences: %s",
          g_strerror (e.err));
      return GST_FLOW_ERROR;
    default:
      GSTC_POST_ERROR (t, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
          "tensorinfer: cannot begin CPU access to the input: %s",
          g_strerror (e.err));
      return GST_FLOW_ERROR;
  }
}

void
gstc_infer_leave_input (GstcInferFrame * s, GstBaseTransform * t, GstcInferInput * rec)
{
  int err;

  if (rec->in.copy)
    return;
  if (!gstc_input_leave (&rec->in, &err))
    GST_WARNING_OBJECT (t, "ending CPU access to the input: %s",
        g_strerror (err));
  gstc_count (s->counters, GSTC_INFER_IN_SYNCS, 1);
}

gboolean
gstc_infer_wraps (GstcInferInput * rec, GstBuffer * in, gboolean video)
{
  return video && !rec->in.copy && gst_buffer_n_memory (in) == 1
      && gstc_foreign_wrapper_of (gst_buffer_peek_memory (in, 0)) != NULL;
}

/* The run, timed as runclock.go's timeRun: TRUE when it ran; else the
 * error is posted. */
gboolean
gstc_infer_timed_run (GstcInferFrame * s, GstBaseTransform * t, void *io, int in_slot,
    int out_slot)
{
  gboolean sample = s->until_sample <= 0;
  gint64 cpu0 = 0, t0, wall;
  void *status;

  if (sample)
    cpu0 = gstc_infer_clock_ns (CLOCK_THREAD_CPUTIME_ID);
  t0 = gstc_infer_clock_ns (CLOCK_MONOTONIC);
  status = s->run (s->session, io);
  wall = gstc_infer_clock_ns (CLOCK_MONOTONIC) - t0;
  /* As timeRun: a failed run's time counts too. */
  s->timed++;
  gstc_count (s->counters, GSTC_INFER_RUN_NS, MAX (wall, 0));
  if (status != NULL) {
    const char *msg = s->error_message != NULL ? s->error_message (status) :
        NULL;

    GSTC_POST_ERROR (t, GSTC_DOMAIN_LIBRARY, GST_LIBRARY_ERROR_FAILED,
        "tensorinfer: %s: run (input slot %d, output slot %d): %s",
        s->model != NULL ? s->model : "model", in_slot, out_slot,
        msg != NULL ? msg : "ONNX Runtime failed");
    s->release_status (status);
    return FALSE;
  }
  if (!sample) {
    s->until_sample--;
  } else {
    gint64 cpu = gstc_infer_clock_ns (CLOCK_THREAD_CPUTIME_ID) - cpu0 - s->pair_ns;
    guint64 mean;

    gstc_count (s->counters, GSTC_INFER_RUN_CPU_NS, MAX (cpu, 0));
    gstc_count (s->counters, GSTC_INFER_RUN_WALL_SAMPLED, MAX (wall, 0));
    gstc_count (s->counters, GSTC_INFER_RUNS_CPU_SAMPLED, 1);
    mean = MAX (gstc_counter_load (s->counters, GSTC_INFER_RUN_NS) / s->timed,
        1);
    s->until_sample = (int) MIN (s->sample_period_ns / mean,
        (guint64) s->sample_max - 1);
  }
  gstc_count (s->counters, GSTC_INFER_RUNS, 1);
  return TRUE;
}

/* What the frame reads: the pre-processing pass into the model's bound
 * input, or nothing (the input is bound as it is). FALSE: posted. */
static gboolean
preprocess (GstcInferFrame * s, GstBaseTransform * t, GstcInferInput * rec,
    gsize copied)
{
  gint64 t0;
  int rc;
  size_t len = rec->in.copy ? copied : rec->in.mem_size;

  if (s->pre_plan == NULL)
    return TRUE;
  t0 = gstc_infer_clock_ns (CLOCK_MONOTONIC);
  rc = s->pre_run (s->pre_plan, rec->in.host, len, s->pre_dst, s->pre_dst_len);
  gstc_count (s->counters, GSTC_INFER_PREPROCESS_NS,
      MAX (gstc_infer_clock_ns (CLOCK_MONOTONIC) - t0, 0));
  gstc_count (s->counters, GSTC_INFER_PREPROCESSED, 1);
  if (rc != 0) {
    GSTC_POST_ERROR (t, GSTC_DOMAIN_STREAM, GST_STREAM_ERROR_FORMAT,
        "tensorinfer: pre-processing: the frame (%" G_GSIZE_FORMAT
        " bytes) does not fit the pass's plan (error %d)", len, rc);
    return FALSE;
  }
  return TRUE;
}

/* Counts what ending a frame's input did (gstc_infer_end_input's
 * return value). */
void
gstc_infer_count_end (GstcCounters * c, int end)
{
  if (end & 1)
    gstc_count (c, GSTC_INFER_BEGINS_MATCHED, 1);
  if (end & 2)
    gstc_count (c, GSTC_INFER_END_EVENTS_SENT, 1);
  if (end >> 2)
    gstc_count (c, GSTC_INFER_BEGINS_EXPIRED, end >> 2);
}

/* A frame output=video does not run (interval): its input's begin, if
 * announced, is answered as a run's would be. */
void
gstc_infer_skipped_input_end (GstBaseTransform * t, GstBuffer * in)
{
  GstcPending *p = gstc_pending_of (t);
  GstMemory *mem;
  GstVideoMeta *vm;
  struct stat sb;
  guint64 offset;
  int end;

  if (p == NULL || gst_buffer_n_memory (in) != 1)
    return;
  mem = gst_buffer_peek_memory (in, 0);
  if (!gst_is_fd_memory (mem) || fstat (gst_fd_memory_get_fd (mem), &sb) != 0)
    return;
  offset = mem->offset;
  vm = gst_buffer_get_video_meta (in);
  if (vm != NULL && vm->n_planes > 0)
    offset += vm->offset[0];
  end = gstc_infer_end_input (t, p, sb.st_dev, sb.st_ino, offset,
      GST_BUFFER_OFFSET (in));
  gstc_infer_count_end (gstc_counters_of (GST_ELEMENT (t)), end);
}

int
gstc_infer_end_input (GstBaseTransform * t, GstcPending * p,
    guint64 dev, guint64 ino, guint64 offset, guint64 buf_offset)
{
  GstTensorSyncInfo ts;
  int expired = 0, r = 0;

  if (gstc_pending_match (p, dev, ino, offset, buf_offset, &ts, &expired)) {
    r |= 1;
    ts.phase = GST_TENSOR_SYNC_END;
    if (gstc_push_tensor_sync (GST_BASE_TRANSFORM_SINK_PAD (t), TRUE, &ts))
      r |= 2;
  }
  return r | expired << 2;
}

GstcFinishedFrame
gstc_infer_finish_frame (GstBaseTransform * t, GstcPending * p,
    guint64 dev, guint64 ino, guint64 offset, guint64 buf_offset,
    GstcOutRing * ring, int slot, GstBuffer * in, GstBuffer * wrapped,
    guint64 seq)
{
  GstcFinishedFrame f;
  GstMemory *first, *rest[GSTC_OUT_MAX_TENSORS];
  GstcOutTensor *t0 = &ring->slots[slot].t[0];
  GstcVideoOut *vo = gstc_video_out_of (t);
  gboolean video;
  int n, k;
  GstTensorSyncInfo ts = { GST_TENSOR_SYNC_BEGIN, GST_TENSOR_SYNC_READWRITE,
    t0->dev, t0->ino, t0->offset, GST_BUFFER_PTS (in), (guint) seq
  };

  f.end = gstc_infer_end_input (t, p, dev, ino, offset, buf_offset);
  first = gstc_out_ring_push (ring, slot, &n, rest);
  f.buf = gstc_ring_frame_new (first, ts.pts, GST_BUFFER_DURATION (in), seq,
      FALSE, ts.phase, ts.access, ts.dev, ts.ino, ts.offset, ts.seqnum);
  GST_BUFFER_DTS (f.buf) = GST_BUFFER_DTS (in);
  for (k = 1; k < n; k++)
    gst_buffer_append_memory (f.buf, rest[k - 1]);
  video = gstc_video_out_on (t);
  if (video) {
    /* The input goes on with the tensors in its meta; their write
     * bracket ends when the meta's last holder drops them. Nobody reads
     * them as the buffer: no announcement. A wrapped input goes on in
     * its wrapper (the new buffer is writable: the meta goes on it). */
    f.buf = gstc_video_out_frame (vo, wrapped != NULL ? wrapped : in, f.buf,
        seq);
    return f;
  }
  if (wrapped != NULL)
    gst_buffer_unref (wrapped);
  /* The frame's announcement, right before its buffer: GstBaseTransform
   * pushes the buffer prepare_output_buffer returns as soon as the
   * (empty) transform is done — its QoS drop comes before prepare — and a
   * serialized event pushes the pad's pending sticky events first
   * (stream-start, caps, segment), as a probe before the buffer would
   * see them. No probe on the pad: a push through a pad with probes
   * costs their hook list, buffer and events alike. */
  gstc_push_tensor_sync (GST_BASE_TRANSFORM_SRC_PAD (t), FALSE, &ts);
  return f;
}

/* Copies in into the copy input's memory. */
static gsize
copy_in (GstcInferFrame * s, GstcInferInput * rec, GstBuffer * in)
{
  gsize n = gstc_input_copy_in (&rec->in, in);

  gstc_count (s->counters, GSTC_INFER_COPIES, 1);
  gstc_count (s->counters, GSTC_INFER_BYTES_COPIED, n);
  return n;
}

/* The per-frame benchmark mode's frame: the input found and bracketed
 * as every frame's, then Go's run the upstream way (a new input value,
 * a run without IoBinding, a copy of every output into a new buffer). */
static gboolean
per_frame (GstcInferFrame * s, GstBaseTransform * t, GstBuffer * in,
    GstcInferInput * rec, GstBuffer ** out, GstFlowReturn * ret)
{
  GstBuffer *buf = NULL;
  GstFlowReturn r;

  if (rec->in.copy) {
    copy_in (s, rec, in);
  } else {
    r = gstc_infer_enter_input (s, t, rec, GSTC_ACCESS_READ);
    if (r != GST_FLOW_OK) {
      *ret = r;
      return TRUE;
    }
    gstc_count (s->counters, GSTC_INFER_IN_SYNCS, 1);
  }
  r = gstcGoInferPerFrame (t, gstc_instance_handle (t), in,
      (int) (rec - s->in), &buf);
  gstc_infer_leave_input (s, t, rec);
  gstc_infer_count_end (s->counters, gstc_infer_end_input (t, s->begins, rec->in.dev,
          rec->in.ino, rec->in.mem_offset + rec->offset,
          GST_BUFFER_OFFSET (in)));
  if (r != GST_FLOW_OK && buf != NULL) {
    gst_buffer_unref (buf);
    buf = NULL;
  }
  if (r == GST_FLOW_OK) {
    gstc_count (s->counters, GSTC_INFER_FRAMES, 1);
    gstc_count (s->counters, GSTC_INFER_GO_FRAMES, 1);
  }
  *out = buf;
  *ret = r;
  return TRUE;
}

/* Where the producer's begin says the frame is: its memory's offset and
 * the frame's first plane in it (the layout lookup matched). */
guint64
gstc_infer_input_end_offset (GstcInferFrame * s, GstcInferInput * rec)
{
  return rec->in.mem_offset + (s->pre_plan != NULL ? s->pre_offsets[0] :
      rec->offset);
}

/* A frame that failed after its input was read: its producer still hears
 * the end of an announced input, as a run's would send it. */
void
gstc_infer_end_input_read (GstcInferFrame * s, GstBaseTransform * t,
    GstcInferInput * rec, GstBuffer * in)
{
  gstc_infer_count_end (s->counters, gstc_infer_end_input (t, s->begins, rec->in.dev,
          rec->in.ino, gstc_infer_input_end_offset (s, rec), GST_BUFFER_OFFSET (in)));
}

gboolean
gstc_infer_frame (GstBaseTransform * t, GstBuffer * in, GstBuffer ** out,
    GstFlowReturn * ret)
{
  GstcInferFrame *s = engine_of (t);
  GstcInferInput *rec;
  GstcFinishedFrame f;
  GstFlowReturn r;
  GstBuffer *wrapped;
  gboolean went_go = FALSE, wrap;
  gsize copied = 0;
  int slot, in_slot;
  void *io;

  if (s == NULL)
    return FALSE;
  *out = NULL;
  if (!s->ready || s->ring == NULL) {
    GSTC_POST_ERROR (t, GSTC_DOMAIN_CORE, GST_CORE_ERROR_NEGOTIATION,
        "tensorinfer received a buffer before caps");
    *ret = GST_FLOW_NOT_NEGOTIATED;
    return TRUE;
  }
  rec = lookup (s, in);
  if (rec != NULL)
    gstc_count (s->counters, GSTC_INFER_HITS, 1);
  else {
    /* Only Go can pin, bind or plan: it puts the input in the table
     * (or posts why it cannot) and says where. */
    int i = gstcGoInferInput (t, gstc_instance_handle (t), in);

    if (i >= s->n_in) {
      GSTC_POST_ERROR (t, GSTC_DOMAIN_CORE, GST_CORE_ERROR_FAILED,
          "tensorinfer: the input Go added is not in the engine's table "
          "(%d of %d)", i, s->n_in);
      i = GST_FLOW_ERROR;
    }
    if (i < 0) {
      *ret = (GstFlowReturn) i;
      return TRUE;
    }
    rec = &s->in[i];
    went_go = TRUE;
  }
  if (s->per_frame)
    return per_frame (s, t, in, rec, out, ret);
  if (s->regions) {
    gstc_infer_region_frame (s, t, in, rec, out, ret);
    if (went_go)
      gstc_count (s->counters, GSTC_INFER_GO_FRAMES, 1);
    return TRUE;
  }
  slot = gstc_infer_take_slot (s, t);
  if (slot < 0) {
    *ret = GST_FLOW_FLUSHING;
    return TRUE;
  }
  wrap = gstc_infer_wraps (rec, in, gstc_video_out_on (t));
  if (rec->in.copy) {
    copied = copy_in (s, rec, in);
  } else {
    r = gstc_infer_enter_input (s, t, rec,
        wrap ? GSTC_ACCESS_READWRITE : GSTC_ACCESS_READ);
    if (r != GST_FLOW_OK) {
      gstc_out_ring_give (s->ring, slot);
      *ret = r;
      return TRUE;
    }
    gstc_count (s->counters, GSTC_INFER_IN_SYNCS, 1);
  }
  /* The output's write bracket, open from before the run until its
   * memory comes back from downstream (the ring leaves it then). */
  r = gstc_out_ring_open_writes (s->ring, slot, TRUE);
  if (r != 0) {
    gstc_infer_leave_input (s, t, rec);
    gstc_infer_end_input_read (s, t, rec, in);
    gstc_out_ring_give (s->ring, slot);
    GSTC_POST_ERROR (t, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
        "tensorinfer: cannot begin CPU access to an output tensor: %s",
        r > 0 ? g_strerror (r) : "busy");
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  in_slot = s->pre_plan != NULL ? -1 : rec->slot;
  io = s->pre_plan != NULL ? s->pre_io[slot] : rec->io[slot];
  if (!preprocess (s, t, rec, copied)) {
    r = GST_FLOW_ERROR;
  } else if (io == NULL) {
    /* A slot package infer converts before each run: its run is Go's. */
    went_go = TRUE;
    r = gstcGoInferRun (t, gstc_instance_handle (t), in_slot, slot);
  } else {
    r = gstc_infer_timed_run (s, t, io, in_slot, slot) ? GST_FLOW_OK : GST_FLOW_ERROR;
  }
  if (r != GST_FLOW_OK) {
    gstc_out_ring_close_writes (s->ring, slot);
    gstc_infer_leave_input (s, t, rec);
    gstc_infer_end_input_read (s, t, rec, in);
    gstc_out_ring_give (s->ring, slot);
    *ret = r;
    return TRUE;
  }
  /* The video goes on in its wrapper, which joins the bracket before
   * the frame leaves it: it stays open until the wrapper's last holder
   * downstream lets go. */
  wrapped = wrap ? gstc_foreign_lend (in) : NULL;
  if (wrapped != NULL)
    gstc_count (s->counters, GSTC_INFER_WRAPPED, 1);
  /* The run no longer needs the input. */
  gstc_infer_leave_input (s, t, rec);
  f = gstc_infer_finish_frame (t, s->begins, rec->in.dev, rec->in.ino,
      gstc_infer_input_end_offset (s, rec), GST_BUFFER_OFFSET (in), s->ring, slot, in,
      wrapped, s->seq);
  s->seq++;
  rec->used = ++s->uses;
  gstc_count (s->counters, GSTC_INFER_FRAMES, 1);
  if (went_go)
    gstc_count (s->counters, GSTC_INFER_GO_FRAMES, 1);
  gstc_infer_count_end (s->counters, f.end);
  *out = f.buf;
  *ret = GST_FLOW_OK;
  return TRUE;
}
