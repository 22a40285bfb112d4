/* sinkframe.c: tensorpinsink's frame, every frame: the lease, the
 * memories found by their qdata, the fence poll and the bracket, begin
 * matching, new-frame and the release. Each function's contract — what
 * it owns, borrows and takes over, and who may call it — is its comment
 * in sinkframe.h; the Go side is sinkframe.go. */
#include "sinkframe.h"
#include "message.h"
#include "element.h"
#include "syncpush.h"

#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (sink_frame_debug);
#define GST_CAT_DEFAULT sink_frame_debug

static GQuark
engine_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "tensorpinsink-frame");
}

GstcSinkFrame *
gstc_sink_frame_new (GstElement * element, int max_leases)
{
  GstcSinkFrame *s = g_new0 (GstcSinkFrame, 1);
  int i;

  gstc_debug_once (&sink_frame_debug, "tensorpinsink-frame",
      "tensorpinsink's frame engine");
  max_leases = MAX (max_leases, 1);
  s->refs = 1;
  g_mutex_init (&s->lock);
  s->element = gst_object_ref (element);
  s->pad = gst_element_get_static_pad (element, "sink");
  s->wake = gstc_wake_ref (gstc_wake_of (element));
  s->begins = gstc_pending_attach (element);
  s->counters = gstc_counters_ref (gstc_counters_of (element));
  s->new_frame = g_signal_lookup ("new-frame", G_OBJECT_TYPE (element));
  s->max = max_leases;
  s->l = g_new0 (GstcSinkLease, max_leases);
  s->free = g_new0 (int, max_leases);
  /* Taken from the end: lease 0 first, as the records always were. */
  for (i = 0; i < max_leases; i++)
    s->free[i] = max_leases - 1 - i;
  s->nfree = max_leases;
  return s;
}

static void
input_unref (GstcSinkInput * r)
{
  if (r != NULL && g_atomic_int_dec_and_test (&r->refs)) {
    if (r->keep != 0)
      gstcGoSinkInputFree (r->keep);
    g_free (r);
  }
}

void
gstc_sink_frame_unref (GstcSinkFrame * s)
{
  int i;

  if (s == NULL || !g_atomic_int_dec_and_test (&s->refs))
    return;
  for (i = 0; i < s->n_in; i++)
    input_unref (s->in[i]);
  for (i = 0; i < s->max; i++)
    input_unref (s->l[i].copy_in);
  g_free (s->l);
  g_free (s->free);
  gstc_wake_unref (s->wake);
  gstc_counters_unref (s->counters);
  if (s->pad != NULL)
    gst_object_unref (s->pad);
  gst_object_unref (s->element);
  g_mutex_clear (&s->lock);
  g_free (s);
}

void
gstc_sink_frame_set (GstElement * element, GstcSinkFrame * s)
{
  g_object_set_qdata (G_OBJECT (element), engine_quark (), s);
}

GstcSinkInput *
gstc_sink_frame_add_input (GstcSinkFrame * s, const GstcInput * in,
    int slot, uintptr_t keep, gboolean fresh)
{
  GstcSinkInput *r;

  if (s->n_in >= GSTC_SINK_MAX_INPUTS)
    return NULL;
  r = g_new0 (GstcSinkInput, 1);
  r->in = *in;
  r->refs = 1;
  r->slot = slot;
  r->keep = keep;
  r->fresh = fresh;
  /* Used now: the eviction that makes room for the buffer's next new
   * memory must not take this one. */
  r->used = ++s->uses;
  s->in[s->n_in++] = r;
  return r;
}

gboolean
gstc_sink_frame_remove_input (GstcSinkFrame * s, int i)
{
  GstcSinkInput *r;

  if (i < 0 || i >= s->n_in)
    return FALSE;
  r = s->in[i];
  s->in[i] = s->in[--s->n_in];
  s->in[s->n_in] = NULL;
  if (g_atomic_int_dec_and_test (&r->refs)) {
    g_free (r);
    return TRUE;
  }
  return FALSE;
}

int
gstc_sink_frame_set_plan (GstcSinkFrame * s, const GstcSinkPlan * p)
{
  int i;

  if (s->n_plans < GSTC_SINK_MAX_PLANS) {
    i = s->n_plans++;
  } else {
    i = s->next_plan;
    s->next_plan = (s->next_plan + 1) % GSTC_SINK_MAX_PLANS;
  }
  s->plans[i] = *p;
  s->plans[i].valid = TRUE;
  return i;
}

void
gstc_sink_frame_clear_plans (GstcSinkFrame * s)
{
  memset (s->plans, 0, sizeof s->plans);
  s->n_plans = s->next_plan = 0;
}

static GstcSinkFrame *
engine_of (GstBaseSink * sink)
{
  return g_object_get_qdata (G_OBJECT (sink), engine_quark ());
}

/* Whether plan p lays out buf (vm: its video meta). */
static gboolean
plan_matches (const GstcSinkPlan * p, GstBuffer * buf, GstVideoMeta * vm)
{
  guint i, n = gst_buffer_n_memory (buf);

  if (!p->valid || n != p->n_mem)
    return FALSE;
  if (p->video) {
    if ((vm != NULL) != p->has_meta)
      return FALSE;
    if (vm != NULL) {
      if (vm->width != p->meta_width || vm->height != p->meta_height
          || vm->n_planes != p->meta_n)
        return FALSE;
      for (i = 0; i < vm->n_planes; i++)
        if (vm->offset[i] != p->meta_offset[i]
            || vm->stride[i] != p->meta_stride[i])
          return FALSE;
    }
  }
  if (n > GSTC_SINK_MAX_MEMS)
    return p->copy && gst_buffer_get_size (buf) == p->size;
  for (i = 0; i < n; i++) {
    GstMemory *m = gst_buffer_peek_memory (buf, i);

    if (m->size != p->mem_size[i]
        || (gst_is_fd_memory (m) ? 1u : 0u) != ((p->fd_mask >> i) & 1u))
      return FALSE;
  }
  return TRUE;
}

int
gstc_sink_frame_plan_of (GstcSinkFrame * s, GstBuffer * buf)
{
  GstVideoMeta *vm = gst_buffer_get_video_meta (buf);
  int i;

  for (i = 0; i < s->n_plans; i++)
    if (plan_matches (&s->plans[i], buf, vm))
      return i;
  return -1;
}

static GstcSinkInput *
find_input (GstcSinkFrame * s, GstMemory * mem)
{
  uintptr_t tag = gstc_input_tag (mem, s->qkey);
  int i;

  if (tag == 0)
    return NULL;
  for (i = 0; i < s->n_in; i++)
    if (gstc_input_is (&s->in[i]->in, tag, mem))
      return s->in[i];
  return NULL;
}

/* Finds buf's plan and the regions of its planes' memories (found[mem]);
 * FALSE when Go must look. */
static gboolean
lookup (GstcSinkFrame * s, GstBuffer * buf, GstcSinkLease * r,
    const GstcSinkPlan ** plan, GstcSinkInput ** found)
{
  GstVideoMeta *vm = NULL;
  const GstcSinkPlan *p = NULL;
  int i;

  for (i = 0; i < s->n_plans; i++) {
    if (s->plans[i].video && vm == NULL)
      vm = gst_buffer_get_video_meta (buf);
    if (plan_matches (&s->plans[i], buf, vm)) {
      p = &s->plans[i];
      break;
    }
  }
  if (p == NULL)
    return FALSE;
  if (p->copy) {
    if (r->copy_in == NULL || r->copy_in->in.mem_size <
        gst_buffer_get_size (buf))
      return FALSE;
  } else {
    for (i = 0; i < p->n_planes; i++) {
      int m = p->p[i].mem;

      if (found[m] == NULL
          && (found[m] = find_input (s, gst_buffer_peek_memory (buf,
                      m))) == NULL)
        return FALSE;
    }
  }
  *plan = p;
  return TRUE;
}

enum
{ TAKEN, DROPPED, INTERRUPTED, RETIRED };

static gboolean
lease_free (gpointer data)
{
  GstcSinkFrame *s = data;
  gboolean ok;

  g_mutex_lock (&s->lock);
  ok = s->nfree > 0 || s->retired;
  g_mutex_unlock (&s->lock);
  return ok;
}

/* A free lease (*i), waiting while every one is held (with drop:
 * DROPPED at once). unlock, a flush or a stop end the wait
 * (INTERRUPTED); after stop, RETIRED. */
static int
take (GstcSinkFrame * s, int *i)
{
  g_mutex_lock (&s->lock);
  if (s->retired) {
    g_mutex_unlock (&s->lock);
    return RETIRED;
  }
  if (s->nfree == 0 && !gstc_wake_ended (s->wake)) {
    if (g_atomic_int_get (&s->drop)) {
      g_mutex_unlock (&s->lock);
      gstc_count (s->counters, GSTC_SINK_DROPPED, 1);
      return DROPPED;
    }
    gstc_count (s->counters, GSTC_SINK_WAITS_FOR_LEASE, 1);
    g_mutex_unlock (&s->lock);
    gstc_wake_wait_until (s->wake, lease_free, s);
    g_mutex_lock (&s->lock);
  }
  if (s->retired) {
    g_mutex_unlock (&s->lock);
    return RETIRED;
  }
  if (gstc_wake_ended (s->wake) || s->nfree == 0) {
    g_mutex_unlock (&s->lock);
    return INTERRUPTED;
  }
  *i = s->free[--s->nfree];
  s->l[*i].state = GSTC_LEASE_FILLING;
  s->l[*i].closed = FALSE;
  g_atomic_int_inc (&s->refs);
  g_mutex_unlock (&s->lock);
  gstc_count (s->counters, GSTC_SINK_LEASES, 1);
  return TAKEN;
}

/* Gives lease i back (and the lease's reference of s). */
static void
give (GstcSinkFrame * s, int i)
{
  g_mutex_lock (&s->lock);
  s->l[i].state = GSTC_LEASE_FREE;
  s->free[s->nfree++] = i;
  g_mutex_unlock (&s->lock);
  gstc_count (s->counters, GSTC_SINK_LEASES, -1);
  gstc_wake_signal (s->wake);
  gstc_sink_frame_unref (s);
}

static void
drop_mems (GstcSinkLease * r)
{
  int k;

  for (k = 0; k < r->nmem; k++) {
    input_unref (r->mem[k]);
    r->mem[k] = NULL;
  }
  r->nmem = r->nplanes = 0;
}

static void
post_phase (GstcSinkFrame * s, GstcSinkLease * r, const char *phase)
{
  GstStructure *st = gst_structure_new ("GstTensorSync",
      "phase", G_TYPE_STRING, phase, "access", G_TYPE_STRING, "read",
      "dev", G_TYPE_UINT64, r->mem[0]->in.dev,
      "ino", G_TYPE_UINT64, r->mem[0]->in.ino,
      "pts", G_TYPE_UINT64, r->pts,
      "slot", G_TYPE_UINT, (guint) r->mem[0]->slot,
      "announced", G_TYPE_BOOLEAN, r->announced, NULL);

  if (r->announced)
    gst_structure_set (st, "seqnum", G_TYPE_UINT, (guint) r->sync.seqnum,
        NULL);
  if (!gst_element_post_message (s->element,
          gst_message_new_element (GST_OBJECT (s->element), st)))
    GST_WARNING_OBJECT (s->element, "could not post the %s phase of slot %d",
        phase, r->mem[0]->slot);
}

/* Leaves the frame's brackets; sends the announcing source its end. */
static void
close_bracket (GstcSinkFrame * s, GstcSinkLease * r)
{
  int k, err;

  for (k = 0; k < r->nmem; k++) {
    gstc_count (s->counters, GSTC_SINK_SYNCS, 1);
    if (!gstc_input_leave (&r->mem[k]->in, &err))
    {
      char *text = g_strdup_printf ("could not end CPU access to a frame: %s",
          g_strerror (err));

      gstc_post_message (s->element, GST_MESSAGE_WARNING,
          GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC, text, NULL,
          __FILE__, G_STRFUNC, __LINE__);
      g_free (text);
    }
  }
  if (r->announced) {
    GstTensorSyncInfo ts = r->sync;

    ts.phase = GST_TENSOR_SYNC_END;
    if (s->pad != NULL)
      gstc_push_tensor_sync (s->pad, TRUE, &ts);
  }
  if (g_atomic_int_get (&s->post_sync))
    post_phase (s, r, "end");
}

static void
finish_release (GstcSinkFrame * s, GstcSinkLease * r)
{
  drop_mems (r);
  gst_buffer_unref (r->buf);
  r->buf = NULL;
  give (s, r - s->l);
}

gboolean
gstc_sink_frame_release (GstcSinkFrame * s, int i, guint64 gen)
{
  GstcSinkLease *r;
  gboolean close_it;

  if (i < 0 || i >= s->max)
    return FALSE;
  r = &s->l[i];
  g_mutex_lock (&s->lock);
  if (r->gen != gen || r->state != GSTC_LEASE_HELD) {
    g_mutex_unlock (&s->lock);
    return FALSE;
  }
  r->state = GSTC_LEASE_RELEASING;
  r->gen++;
  close_it = !r->closed;
  r->closed = TRUE;
  if (r->closing_at_stop) {
    /* retire is ending this frame's bracket right now, outside the lock
     * (it may be posting the very message whose handler calls us): it
     * finishes the release when it is done with the record. */
    r->release_deferred = TRUE;
    g_mutex_unlock (&s->lock);
    return TRUE;
  }
  g_mutex_unlock (&s->lock);
  if (close_it)
    close_bracket (s, r);
  finish_release (s, r);
  return TRUE;
}

GstBuffer *
gstc_sink_frame_lease_buffer (GstcSinkFrame * s, int i, guint64 gen)
{
  GstBuffer *b = NULL;

  g_mutex_lock (&s->lock);
  if (s->l[i].gen == gen && s->l[i].state == GSTC_LEASE_HELD
      && s->l[i].buf != NULL)
    b = gst_buffer_ref (s->l[i].buf);
  g_mutex_unlock (&s->lock);
  return b;
}

int
gstc_sink_frame_retire (GstcSinkFrame * s)
{
  int i, n = 0;
  int *closing = g_new (int, s->max);

  g_mutex_lock (&s->lock);
  s->retired = TRUE;
  for (i = 0; i < s->max; i++) {
    GstcSinkLease *r = &s->l[i];

    if (r->state == GSTC_LEASE_HELD && !r->closed) {
      r->closed = r->closing_at_stop = TRUE;
      closing[n++] = i;
    }
  }
  g_mutex_unlock (&s->lock);
  gstc_wake_signal (s->wake);
  for (i = 0; i < n; i++) {
    GstcSinkLease *r = &s->l[closing[i]];
    gboolean finish;

    close_bracket (s, r);
    g_mutex_lock (&s->lock);
    r->closing_at_stop = FALSE;
    finish = r->release_deferred;
    r->release_deferred = FALSE;
    g_mutex_unlock (&s->lock);
    if (finish)
      finish_release (s, r);
  }
  g_free (closing);
  return n;
}

/* new-frame, with a tensorpinsink-planes structure freed after it. */
static void
emit_new_frame (GstcSinkFrame * s, GstBaseSink * sink, GstcSinkLease * r,
    GstBuffer * buf)
{
  GValue arr[5] = { G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT, G_VALUE_INIT,
    G_VALUE_INIT
  };
  static const char *names[5] = { "address", "size", "offset", "stride",
    "slot"
  };
  GstStructure *st = gst_structure_new ("tensorpinsink-planes", "n-planes",
      G_TYPE_UINT, (guint) r->nplanes, NULL);
  int f, p;

  for (f = 0; f < 5; f++) {
    g_value_init (&arr[f], GST_TYPE_ARRAY);
    for (p = 0; p < r->nplanes; p++) {
      GValue x = G_VALUE_INIT;

      if (f < 3) {
        g_value_init (&x, G_TYPE_UINT64);
        g_value_set_uint64 (&x, f == 0 ? (guint64) (guintptr) r->plane[p].addr
            : f == 1 ? r->plane[p].size : r->plane[p].offset);
      } else {
        g_value_init (&x, G_TYPE_UINT);
        g_value_set_uint (&x, f == 3 ? r->plane[p].stride :
            (guint) r->mem[r->plane[p].m]->slot);
      }
      gst_value_array_append_and_take_value (&arr[f], &x);
    }
    gst_structure_take_value (st, names[f], &arr[f]);
  }
  g_signal_emit (sink, s->new_frame, 0, buf,
      (guint64) (guintptr) r->plane[0].addr, r->plane[0].size,
      (guint) r->mem[r->plane[0].m]->slot, st);
  gst_structure_free (st);
}

enum
{ FILLED, FILL_DROPPED };

/* Makes lease r describe buf and enters its brackets. FILLED or
 * FILL_DROPPED (a fence timeout with on-sync-timeout=drop, counted), or
 * a flow (posted, nothing held). */
static int
fill (GstcSinkFrame * s, GstBaseSink * sink, GstcSinkLease * r,
    GstBuffer * buf, GstFlowReturn * ret)
{
  GstcSinkInput *found[GSTC_SINK_MAX_MEMS] = { NULL };
  int memof[GSTC_SINK_MAX_MEMS] = { 0 };
  const GstcSinkPlan *p = NULL;
  GstTensorSyncInfo ts;
  int k, expired = 0, timeout;
  int i = r - s->l;

  if (lookup (s, buf, r, &p, found)) {
    gstc_count (s->counters, GSTC_SINK_HITS,
        p->copy ? 1 : gst_buffer_n_memory (buf));
  } else {
    /* Only Go can pin or lay out: it fills the table and the plans (or
     * posts why it cannot) and says which plan. */
    int pi = gstcGoSinkInput (sink, gstc_instance_handle (sink), buf, i);

    if (pi < 0 || pi >= s->n_plans) {
      *ret = pi < 0 ? (GstFlowReturn) pi : GST_FLOW_ERROR;
      return -1;
    }
    memset (found, 0, sizeof found);
    if (!lookup (s, buf, r, &p, found)) {
      GSTC_POST_ERROR (sink, GSTC_DOMAIN_CORE, GST_CORE_ERROR_FAILED,
          "tensorpinsink: the buffer's memories are not in the engine's table");
      *ret = GST_FLOW_ERROR;
      return -1;
    }
  }
  r->nmem = 0;
  r->new_mask = 0;
  for (k = 0; k < p->n_planes; k++) {
    int m = p->copy ? 0 : p->p[k].mem;
    GstcSinkInput *in = p->copy ? r->copy_in : found[m];

    if (memof[m] == 0) {
      g_atomic_int_inc (&in->refs);
      if (g_atomic_int_compare_and_exchange (&in->fresh, 1, 0))
        r->new_mask |= 1u << r->nmem;
      r->mem[r->nmem++] = in;
      memof[m] = r->nmem;
    }
    r->plane[k].m = memof[m] - 1;
    r->plane[k].addr = in->in.host + p->p[k].skip;
    r->plane[k].size = p->p[k].extent;
    r->plane[k].offset = in->in.mem_offset + p->p[k].skip;
    r->plane[k].stride = p->p[k].stride;
    in->used = ++s->uses;
  }
  r->nplanes = p->n_planes;
  r->copied = p->copy;
  if (p->copy) {
    gsize n = gstc_input_copy_in (&r->copy_in->in, buf);

    gstc_count (s->counters, GSTC_SINK_COPIES, 1);
    gstc_count (s->counters, GSTC_SINK_BYTES_COPIED, n);
  }
  r->pts = GST_BUFFER_PTS (buf);
  r->announced = gstc_pending_match (s->begins, r->mem[0]->in.dev,
      r->mem[0]->in.ino, r->plane[0].offset, GST_BUFFER_OFFSET (buf), &ts,
      &expired);
  if (r->announced) {
    r->sync = ts;
    gstc_count (s->counters, GSTC_SINK_BEGINS_MATCHED, 1);
  }
  if (expired > 0)
    gstc_count (s->counters, GSTC_SINK_BEGINS_EXPIRED, expired);
  timeout = g_atomic_int_get (&s->sync_timeout_ms);
  for (k = 0; k < r->nmem; k++) {
    GstcInput *in = &r->mem[k]->in;
    GstcFenceWait e;
    GstcInputResult res = gstc_input_enter (in, GSTC_ACCESS_READ, s->wake,
        timeout, &e);
    int j;

    if (e.waited) {
      gstc_count (s->counters, GSTC_SINK_FENCE_WAITS, 1);
      gstc_count (s->counters, GSTC_SINK_FENCE_WAIT_NS, e.waited_ns);
      gstc_counter_max (s->counters, GSTC_SINK_FENCE_WAIT_MAX_NS,
          (guint64) e.waited_ns);
    }
    gstc_count (s->counters, GSTC_SINK_SYNCS, 1);
    if (res == GSTC_INPUT_ENTERED) {
      if (e.joined)
        gstc_count (s->counters, GSTC_SINK_JOINED, 1);
      continue;
    }
    for (j = 0; j < k; j++) {
      int err;

      gstc_input_leave (&r->mem[j]->in, &err);
    }
    if (r->announced) {
      /* Not delivered: its source still hears the end. */
      ts = r->sync;
      ts.phase = GST_TENSOR_SYNC_END;
      if (s->pad != NULL)
        gstc_push_tensor_sync (s->pad, TRUE, &ts);
    }
    drop_mems (r);
    switch (res) {
      case GSTC_INPUT_FLUSHING:
        *ret = GST_FLOW_FLUSHING;
        return -1;
      case GSTC_INPUT_TIMED_OUT:
        gstc_count (s->counters, GSTC_SINK_FENCE_TIMEOUTS, 1);
        if (g_atomic_int_get (&s->drop_on_timeout)) {
          gstc_count (s->counters, GSTC_SINK_DROPPED, 1);
          GST_INFO_OBJECT (sink, "fences not signalled within %d ms: "
              "frame dropped", timeout);
          return FILL_DROPPED;
        }
        GSTC_POST_ERROR (sink, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
            "buffer memory %d: sync-timeout %d ms: the fences of dma-buf %"
            G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT " (read access) not "
            "signalled after %d ms: dma-buf fences not signalled in time",
            k, timeout, in->dev, in->ino, (int) (e.waited_ns / 1000000));
        break;
      default:
        GSTC_POST_ERROR (sink, GSTC_DOMAIN_RESOURCE, GST_RESOURCE_ERROR_SYNC,
            "cannot begin CPU access to the frame: %s%s",
            res == GSTC_INPUT_POLL_FAILED ? "waiting for its fences: " : "",
            g_strerror (e.err));
        break;
    }
    *ret = GST_FLOW_ERROR;
    return -1;
  }
  r->buf = gst_buffer_ref (buf);
  return FILLED;
}

gboolean
gstc_sink_frame_render (GstBaseSink * sink, GstBuffer * buf,
    GstFlowReturn * ret)
{
  GstcSinkFrame *s = engine_of (sink);
  GstcSinkLease *r;
  guint64 gen;
  int i = -1, f;

  if (s == NULL)
    return FALSE;
  if (!g_atomic_int_get (&s->ready)) {
    GSTC_POST_ERROR (sink, GSTC_DOMAIN_CORE, GST_CORE_ERROR_NEGOTIATION,
        "tensorpinsink received a buffer before caps");
    *ret = GST_FLOW_NOT_NEGOTIATED;
    return TRUE;
  }
  for (;;) {
    int t = take (s, &i);

    if (t == DROPPED) {
      *ret = GST_FLOW_OK;
      return TRUE;
    }
    if (t == RETIRED) {
      *ret = GST_FLOW_FLUSHING;
      return TRUE;
    }
    if (t == TAKEN) {
      r = &s->l[i];
      f = fill (s, sink, r, buf, ret);
      if (f == FILLED)
        break;
      give (s, i);
      if (f == FILL_DROPPED)
        *ret = GST_FLOW_OK;
      /* A fence wait unlock ended (FLUSHING from fill) is woken as the
       * lease wait is, below; any other end is the frame's. */
      if (f == FILL_DROPPED || *ret != GST_FLOW_FLUSHING)
        return TRUE;
    }
    /* unlock woke us. A flush or a stop ends the wait (FLUSHING); a
     * pause must not — as GstBaseSink asks of a blocked render, wait in
     * preroll (the sink counts as prerolled) and, back in PLAYING, wait
     * for a lease (and the fences) again. */
    *ret = gst_base_sink_wait_preroll (sink);
    if (*ret != GST_FLOW_OK)
      return TRUE;
  }
  gstc_count (s->counters, GSTC_SINK_FRAMES, 1);
  g_mutex_lock (&s->lock);
  r->state = GSTC_LEASE_HELD;
  gen = r->gen;
  g_mutex_unlock (&s->lock);
  if (g_atomic_int_get (&s->post_sync))
    post_phase (s, r, "begin");
  if (g_atomic_int_get (&s->emit_signals))
    emit_new_frame (s, sink, r, buf);
  if (g_atomic_int_get (&s->go_consumer)) {
    /* The Go consumer owns the frame from here on. */
    *ret = gstcGoSinkDeliver (sink, gstc_instance_handle (sink), buf, i, gen);
    return TRUE;
  }
  gstc_sink_frame_release (s, i, gen);
  *ret = GST_FLOW_OK;
  return TRUE;
}

void
gstc_sink_frame_set_lease_copy (GstcSinkFrame * s, int i,
    const GstcInput * in, int slot, uintptr_t keep)
{
  GstcSinkInput *r = g_new0 (GstcSinkInput, 1), *old;

  r->in = *in;
  r->refs = 1;
  r->slot = slot;
  r->keep = keep;
  r->fresh = TRUE;
  old = s->l[i].copy_in;
  s->l[i].copy_in = r;
  input_unref (old);
}
