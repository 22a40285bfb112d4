/* steady.c: C definitions of steady.go (see steady.h). */
#include "steady.h"
#include "basetransform.h"

#include <poll.h>
#include <time.h>

static GQuark
steady_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-steady-frame");
}

static gint64
clock_ns (clockid_t id)
{
  struct timespec ts;

  if (clock_gettime (id, &ts) != 0)
    return 0;
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

GstcSteady *
gstc_steady_new (GstcOutRing * ring, GstcInferCounters * c)
{
  GstcSteady *s = g_new0 (GstcSteady, 1);
  int i;

  if (ring != NULL)
    g_atomic_int_inc (&ring->refs);
  s->ring = ring;
  s->counters = gstc_infer_counters_ref (c);
  /* As runclock.go's calibrate: the least of a few back-to-back reads,
   * and the first run unsampled. */
  s->pair_ns = -1;
  for (i = 0; i < 8; i++) {
    gint64 t0 = clock_ns (CLOCK_THREAD_CPUTIME_ID);
    gint64 d = clock_ns (CLOCK_THREAD_CPUTIME_ID) - t0;

    if (s->pair_ns < 0 || d < s->pair_ns)
      s->pair_ns = d;
  }
  s->pair_ns = MAX (s->pair_ns, 0);
  s->until_sample = 1;
  return s;
}

void
gstc_steady_free (GstcSteady * s)
{
  if (s == NULL)
    return;
  gstc_out_ring_unref (s->ring);
  gstc_infer_counters_unref (s->counters);
  g_free (s);
}

/* Each streaming thread remembers the last element it found a steady
 * state on (a qdata lookup takes the element's datalist lock), valid
 * while no gstc_steady_set has happened since. */
static guint steady_generation;
static __thread struct
{
  GstBaseTransform *t;
  GstcSteady *s;
  guint generation;
} last_found;

void
gstc_steady_set (GstElement * element, GstcSteady * s)
{
  g_object_set_qdata (G_OBJECT (element), steady_quark (), s);
  g_atomic_int_inc ((gint *) & steady_generation);
}

static GstcSteady *
steady_of (GstBaseTransform * t)
{
  guint g = (guint) g_atomic_int_get ((gint *) & steady_generation);

  if (last_found.t != t || last_found.generation != g) {
    last_found.s = g_object_get_qdata (G_OBJECT (t), steady_quark ());
    last_found.t = t;
    last_found.generation = g;
  }
  return last_found.s;
}

/* The input bound for the memory whose qdata is tag, read at offset
 * with stride: a memory may be bound with more than one layout (a
 * producer whose video meta alternates). */
static GstcSteadyInput *
find_input (GstcSteady * s, uintptr_t tag, guint64 offset, gint stride)
{
  int i;

  for (i = 0; i < s->n_in; i++)
    if (s->in[i].tag == tag && s->in[i].offset == offset
        && s->in[i].stride == stride)
      return &s->in[i];
  return NULL;
}

/* The run, timed as runclock.go's timeRun. NULL status: it ran. */
static gboolean
timed_run (GstcSteady * s, void *io)
{
  gboolean sample = s->until_sample <= 0;
  gint64 cpu0 = 0, t0, wall;
  void *status;

  if (sample)
    cpu0 = clock_ns (CLOCK_THREAD_CPUTIME_ID);
  t0 = clock_ns (CLOCK_MONOTONIC);
  status = s->run (s->session, io);
  wall = clock_ns (CLOCK_MONOTONIC) - t0;
  /* As timeRun: a failed run's time counts too. */
  s->timed++;
  gstc_infer_count (s->counters, GSTC_INFER_RUN_NS, MAX (wall, 0));
  if (status != NULL) {
    s->release_status (status);
    return FALSE;
  }
  if (!sample) {
    s->until_sample--;
  } else {
    gint64 cpu = clock_ns (CLOCK_THREAD_CPUTIME_ID) - cpu0 - s->pair_ns;
    guint64 mean;

    gstc_infer_count (s->counters, GSTC_INFER_RUN_CPU_NS, MAX (cpu, 0));
    gstc_infer_count (s->counters, GSTC_INFER_RUN_WALL_SAMPLED, MAX (wall, 0));
    gstc_infer_count (s->counters, GSTC_INFER_RUNS_CPU_SAMPLED, 1);
    mean = MAX (__atomic_load_n (&s->counters->v[GSTC_INFER_RUN_NS],
            __ATOMIC_RELAXED) / s->timed, 1);
    s->until_sample = (int) MIN (s->sample_period_ns / mean,
        (guint64) s->sample_max - 1);
  }
  gstc_infer_count (s->counters, GSTC_INFER_RUNS, 1);
  return TRUE;
}

gboolean
gstc_steady_frame (GstBaseTransform * t, GstBuffer * in, GstBuffer ** out)
{
  GstcSteady *s = steady_of (t);
  GstcSteadyInput *rec;
  GstMemory *mem;
  GstVideoMeta *vm;
  guint64 offset;
  gint stride;
  gboolean joined, closed;
  GstcFinishedFrame f;
  int slot, err;
  void *io;

  if (s == NULL || !s->enabled || s->ring == NULL
      || gst_buffer_n_memory (in) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (in, 0);
  offset = s->default_offset;
  stride = s->default_stride;
  vm = gst_buffer_get_video_meta (in);
  if (vm != NULL && vm->n_planes > 0) {
    offset = vm->offset[0];
    stride = vm->stride[0];
  }
  rec = find_input (s, (uintptr_t) gst_mini_object_get_qdata
      (GST_MINI_OBJECT_CAST (mem), s->qkey), offset, stride);
  if (rec == NULL || rec->tag == 0 || mem->offset != rec->mem_offset
      || mem->size != rec->mem_size)
    return FALSE;
  slot = gstc_out_ring_take (s->ring);
  if (slot < 0)
    return FALSE;
  io = rec->io[slot];
  /* The input's read bracket: joined when its producer's is open, else
   * opened — on a dma-buf only if its fences have signalled (a wait for
   * them, bounded by sync-timeout, is Go's). */
  if (io == NULL)
    joined = FALSE;
  else if (gstc_bracket_try_join (&rec->bracket, GSTC_ACCESS_READ))
    joined = TRUE;
  else if (rec->bracket.ioctl && !gstc_fences_signalled (rec->bracket.fd, POLLIN))
    joined = FALSE;
  else
    joined = gstc_bracket_try_enter (&rec->bracket, GSTC_ACCESS_READ, &err);
  if (!joined) {
    gstc_out_ring_give (s->ring, slot);
    return FALSE;
  }
  if (gstc_out_ring_open_writes (s->ring, slot, FALSE) != 0
      || !timed_run (s, io)) {
    gstc_out_ring_close_writes (s->ring, slot);
    gstc_bracket_leave (&rec->bracket, &closed, &err);
    gstc_out_ring_give (s->ring, slot);
    return FALSE;
  }
  /* The run no longer needs the input. */
  if (!gstc_bracket_leave (&rec->bracket, &closed, &err) && err != 0)
    GST_WARNING_OBJECT (t, "ending CPU access to the input: %s",
        g_strerror (err));
  f = gstc_transform_finish_frame (t, s->begins, rec->dev, rec->ino,
      mem->offset + offset, GST_BUFFER_OFFSET (in), s->ring, slot, in,
      s->seq);
  s->seq++;
  rec->used = ++s->uses;
  gstc_infer_count (s->counters, GSTC_INFER_FRAMES, 1);
  gstc_infer_count (s->counters, GSTC_INFER_HITS, 1);
  gstc_infer_count (s->counters, GSTC_INFER_IN_SYNCS, 2);
  if (f.end & 1)
    gstc_infer_count (s->counters, GSTC_INFER_BEGINS_MATCHED, 1);
  if (f.end & 2)
    gstc_infer_count (s->counters, GSTC_INFER_END_EVENTS_SENT, 1);
  if (f.end >> 2)
    gstc_infer_count (s->counters, GSTC_INFER_BEGINS_EXPIRED, f.end >> 2);
  *out = f.buf;
  return TRUE;
}
