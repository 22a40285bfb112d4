/* outring.c: the output ring's slots (outring.h). */
#include "outring.h"

void (*gstc_out_ring_test_hook) (GstcOutRing * r, GstcOutTensor * t);

GstcOutRing *
gstc_out_ring_new (GstcCounters * c)
{
  GstcOutRing *r = g_new0 (GstcOutRing, 1);

  r->refs = 1;
  g_mutex_init (&r->lock);
  r->counters = gstc_counters_ref (c);
  return r;
}

void
gstc_out_ring_unref (GstcOutRing * r)
{
  if (r == NULL || !g_atomic_int_dec_and_test (&r->refs))
    return;
  gstc_wake_unref (r->wake);
  g_mutex_clear (&r->lock);
  gstc_counters_unref (r->counters);
  g_free (r);
}

static int
add_slot (GstcOutRing * r, int n, GstMemory ** mems, const GstcBracket * b,
    const guint64 * dev, const guint64 * ino, const guint64 * offset,
    gboolean taken)
{
  GstcOutSlot *sl;
  int i, k;

  if (n < 1 || n > GSTC_OUT_MAX_TENSORS)
    return -1;
  g_mutex_lock (&r->lock);
  if (r->closed || r->n >= GSTC_OUT_MAX_SLOTS) {
    g_mutex_unlock (&r->lock);
    return -1;
  }
  i = r->n;
  sl = &r->slots[i];
  memset (sl, 0, sizeof (*sl));
  sl->n = n;
  for (k = 0; k < n; k++) {
    sl->t[k].mem = mems[k];
    sl->t[k].bracket = b[k];
    sl->t[k].dev = dev[k];
    sl->t[k].ino = ino[k];
    sl->t[k].offset = offset[k];
    sl->t[k].held = TRUE;
  }
  sl->busy = taken;
  r->n = i + 1;
  g_mutex_unlock (&r->lock);
  return i;
}

int
gstc_out_ring_add_slot (GstcOutRing * r, int n, GstMemory ** mems,
    const GstcBracket * b, const guint64 * dev, const guint64 * ino,
    const guint64 * offset)
{
  return add_slot (r, n, mems, b, dev, ino, offset, FALSE);
}

int
gstc_out_ring_add_taken_slot (GstcOutRing * r, int n, GstMemory ** mems,
    const GstcBracket * b, const guint64 * dev, const guint64 * ino,
    const guint64 * offset)
{
  return add_slot (r, n, mems, b, dev, ino, offset, TRUE);
}

static int
take_locked (GstcOutRing * r)
{
  int i, newest = -1;

  if (r->closed)
    return -1;
  for (i = 0; i < r->n; i++)
    if (!r->slots[i].busy && (newest < 0
            || r->slots[i].freed_at > r->slots[newest].freed_at))
      newest = i;
  if (newest >= 0)
    r->slots[newest].busy = TRUE;
  return newest;
}

int
gstc_out_ring_take (GstcOutRing * r)
{
  int i;

  g_mutex_lock (&r->lock);
  i = take_locked (r);
  g_mutex_unlock (&r->lock);
  return i;
}

/* A wait's condition for gstc_wake_wait_until: a slot of ring taken
 * (ring NULL: none to take) — or, when interruptible, the wake's
 * generation moved past gen (then slot is -1). */
typedef struct
{
  GstcOutRing *ring;
  GstcWake *wake;
  gboolean interruptible;
  gint gen;
  int slot;
} TakeArgs;

static gboolean
take_ready (gpointer data)
{
  TakeArgs *a = data;

  a->slot = -1;
  if (a->interruptible && gstc_wake_gen (a->wake) != a->gen)
    return TRUE;
  if (a->ring != NULL)
    a->slot = gstc_out_ring_take (a->ring);
  return a->slot >= 0;
}

int
gstc_out_ring_take_waiting (GstcOutRing * r, GstcWake * w,
    GstcCounters * c)
{
  TakeArgs a = { r, w, FALSE, 0, gstc_out_ring_take (r) };

  if (a.slot >= 0)
    return a.slot;
  /* Counted as it begins: a wait under way shows in the stats. */
  gstc_count (c, GSTC_RING_WAITS, 1);
  if (gstc_wake_wait_until (w, take_ready, &a))
    return a.slot;
  return -1;
}

int
gstc_out_ring_take_until_interrupted (GstcOutRing * r, GstcWake * w,
    gint gen)
{
  TakeArgs a = { r, w, TRUE, gen, -1 };

  gstc_wake_wait_until (w, take_ready, &a);
  return a.slot;
}

int
gstc_out_ring_take_waiting_until (GstcOutRing * r, GstcWake * w,
    gint64 end_time)
{
  TakeArgs a = { r, w, FALSE, 0, -1 };

  switch (gstc_wake_wait_until_time (w, take_ready, &a, end_time)) {
    case 1:
      return a.slot;
    case 0:
      return -1;
    default:
      return -2;
  }
}

int
gstc_out_ring_take_until_interrupted_or (GstcOutRing * r, GstcWake * w,
    gint gen, gint64 end_time)
{
  TakeArgs a = { r, w, TRUE, gen, -1 };

  if (gstc_wake_wait_until_time (w, take_ready, &a, end_time) < 0)
    return -2;
  return a.slot;
}

/* Frees sl; returns a reference of the ring's wake when a thread waits
 * on it (the caller signals it, then drops the reference, outside the
 * lock). A waiter counts itself before its take, which takes this lock:
 * one whose take failed before this free is counted here. */
static GstcWake *
free_locked (GstcOutRing * r, GstcOutSlot * sl)
{
  sl->busy = FALSE;
  sl->freed_at = ++r->free_clock;
  if (r->wake != NULL && g_atomic_int_get (&r->wake->waiters) > 0)
    return gstc_wake_ref (r->wake);
  return NULL;
}

void
gstc_out_ring_set_wake (GstcOutRing * r, GstcWake * w)
{
  GstcWake *old;

  g_mutex_lock (&r->lock);
  old = r->wake;
  r->wake = r->closed ? NULL : gstc_wake_ref (w);
  g_mutex_unlock (&r->lock);
  gstc_wake_unref (old);
}

/* Tells a wait for a free slot (if any) that one may be free (w:
 * free_locked's reference, dropped here). */
static void
signal_waiter (GstcWake * w)
{
  if (w != NULL) {
    gstc_wake_signal (w);
    gstc_wake_unref (w);
  }
}

void
gstc_out_ring_give (GstcOutRing * r, int slot)
{
  GstMemory *drop[GSTC_OUT_MAX_TENSORS];
  GstcOutSlot *sl;
  GstcWake *w;
  int nd = 0, k;

  if (slot < 0 || slot >= GSTC_OUT_MAX_SLOTS)
    return;
  sl = &r->slots[slot];
  g_mutex_lock (&r->lock);
  /* Under the lock: a ring that grows adds slots while others give. */
  if (slot >= r->n) {
    g_mutex_unlock (&r->lock);
    return;
  }
  w = free_locked (r, sl);
  if (r->closed) {
    /* The close kept a taken slot's memories for its taker: they go
     * now, their brackets left first. */
    for (k = 0; k < sl->n; k++) {
      if (!sl->t[k].held)
        continue;
      sl->t[k].held = FALSE;
      drop[nd++] = sl->t[k].mem;
    }
  }
  g_mutex_unlock (&r->lock);
  if (nd > 0) {
    gstc_out_ring_close_writes (r, slot);
    gstc_wake_unref (w);
    for (k = 0; k < nd; k++)
      gst_memory_unref (drop[k]);
    return;
  }
  signal_waiter (w);
}

static void
leave_write (GstcOutRing * r, GstcOutTensor * t)
{
  gboolean closed;
  int err;

  closed = FALSE;
  if (!gstc_bracket_leave (&t->bracket, &closed, &err) && err != 0) {
    GST_WARNING ("ending the write bracket of an output tensor (fd %d): %s",
        t->bracket.fd, g_strerror (err));
    gstc_count (r->counters, GSTC_RING_SYNC_ERRORS, 1);
  }
  gstc_count (r->counters, GSTC_RING_OUT_CLOSED, 1);
  if (closed)
    gstc_count (r->counters, GSTC_RING_OUT_ENDED, 1);
}

int
gstc_out_ring_open_writes (GstcOutRing * r, int slot, gboolean wait)
{
  GstcOutSlot *sl = &r->slots[slot];
  int k, err;

  for (k = 0; k < sl->n; k++) {
    GstcOutTensor *t = &sl->t[k];

    while (!gstc_bracket_try_enter (&t->bracket, GSTC_ACCESS_READWRITE, &err)) {
      if (err != 0 || !wait) {
        gstc_out_ring_close_writes (r, slot);
        return err != 0 ? err : -1;
      }
      g_thread_yield ();
    }
    /* No lock: the open flag of a slot taken and not pushed is the
     * taker's alone (a return needs the memory downstream; a close runs
     * on the streaming thread or once it is stopped), and the push
     * publishes it under the lock. */
    t->open = TRUE;
    gstc_count (r->counters, GSTC_RING_OUT_OPENED, 1);
  }
  return 0;
}

void
gstc_out_ring_close_writes (GstcOutRing * r, int slot)
{
  GstcOutSlot *sl = &r->slots[slot];
  int k;

  for (k = 0; k < sl->n; k++) {
    GstcOutTensor *t = &sl->t[k];
    gboolean open;

    /* No lock: as in gstc_out_ring_open_writes. */
    open = t->open;
    t->open = FALSE;
    if (open)
      leave_write (r, t);
  }
}

GstMemory *
gstc_out_ring_push (GstcOutRing * r, int slot, int *n, GstMemory ** rest)
{
  GstcOutSlot *sl = &r->slots[slot];
  int k;

  g_mutex_lock (&r->lock);
  for (k = 0; k < sl->n; k++) {
    sl->t[k].out = TRUE;
    sl->t[k].held = FALSE;
    if (k > 0)
      rest[k - 1] = sl->t[k].mem;
  }
  sl->pending = sl->n;
  *n = sl->n;
  g_mutex_unlock (&r->lock);
  /* Every memory whole again, here where both frames (C's and Go's) get
   * them: a resize downstream changed the object in place, and only the
   * first memory goes through gstc_ring_frame_new. The caller now holds
   * the only references. */
  gstc_ring_mem_restore (sl->t[0].mem);
  for (k = 1; k < *n; k++)
    gstc_ring_mem_restore (rest[k - 1]);
  return sl->t[0].mem;
}

/* The slot is freed only after its memories' ENDs: take hands out the
 * slot freed last first, so a slot freed before its bracket is left
 * would be taken at once by the streaming thread, whose enter would
 * join the old bracket instead of opening its own (one START and one
 * END for two frames on a dma-buf). */
gboolean
gstc_out_ring_returned (GstcOutRing * r, int id)
{
  int idx = id / GSTC_OUT_MAX_TENSORS, k = id % GSTC_OUT_MAX_TENSORS;
  GstcOutSlot *sl;
  GstcOutTensor *t;
  gboolean was_out, open, keep, freed;
  GstcWake *w = NULL;

  g_mutex_lock (&r->lock);
  if (idx < 0 || idx >= r->n || k >= r->slots[idx].n) {
    g_mutex_unlock (&r->lock);
    return FALSE;
  }
  /* The memory's own reference of r could go with the memory (a close
   * on another thread frees it once it is held): hold one of our own. */
  g_atomic_int_inc (&r->refs);
  sl = &r->slots[idx];
  t = &sl->t[k];
  was_out = t->out;
  t->out = FALSE;
  open = t->open;
  t->open = FALSE;
  g_mutex_unlock (&r->lock);
  /* Not held yet: a close meanwhile leaves the memory alone, so its
   * tensor (the fd the END goes to) lives until the END is done. */
  if (open) {
    leave_write (r, t);
    if (G_UNLIKELY (gstc_out_ring_test_hook != NULL))
      gstc_out_ring_test_hook (r, t);
  }
  g_mutex_lock (&r->lock);
  keep = !r->closed;
  t->held = keep;
  freed = was_out && --sl->pending == 0;
  if (freed)
    w = free_locked (r, sl);
  g_mutex_unlock (&r->lock);
  if (keep && freed)
    signal_waiter (w);
  else
    gstc_wake_unref (w);
  gstc_out_ring_unref (r);
  return keep;
}

int
gstc_out_ring_size (GstcOutRing * r)
{
  int n;

  g_mutex_lock (&r->lock);
  n = r->n;
  g_mutex_unlock (&r->lock);
  return n;
}

int
gstc_out_ring_busy (GstcOutRing * r)
{
  int i, n = 0;

  g_mutex_lock (&r->lock);
  for (i = 0; i < r->n; i++)
    n += r->slots[i].busy ? 1 : 0;
  g_mutex_unlock (&r->lock);
  return n;
}

void
gstc_out_ring_close (GstcOutRing * r)
{
  GstMemory *drop[GSTC_OUT_MAX_SLOTS * GSTC_OUT_MAX_TENSORS];
  GstcOutTensor *ends[GSTC_OUT_MAX_SLOTS * GSTC_OUT_MAX_TENSORS];
  GstcWake *w;
  int nd = 0, ne = 0, i, k;

  g_mutex_lock (&r->lock);
  if (r->closed) {
    g_mutex_unlock (&r->lock);
    return;
  }
  r->closed = TRUE;
  /* A closed ring's frees wake no frame (none waits on it), and the
   * element's wake must not live as long as memories downstream. */
  w = r->wake;
  r->wake = NULL;
  for (i = 0; i < r->n; i++)
    for (k = 0; k < r->slots[i].n; k++) {
      GstcOutTensor *t = &r->slots[i].t[k];

      /* A slot taken and not pushed is its taker's, who may be writing
       * it (pattern=app's application): its give drops it. (A slot
       * partly back from downstream is busy too: its memories back are
       * dropped here, the others as they return.) */
      if (!t->held || (r->slots[i].busy && r->slots[i].pending == 0))
        continue;
      drop[nd++] = t->mem;
      t->held = FALSE;
      if (t->open) {
        t->open = FALSE;
        ends[ne++] = t;
      }
    }
  g_mutex_unlock (&r->lock);
  gstc_wake_unref (w);
  for (i = 0; i < ne; i++)
    leave_write (r, ends[i]);
  for (i = 0; i < nd; i++)
    gst_memory_unref (drop[i]);
}

/* Tests (outring.go's probe): what a return sees between a write
 * bracket's END and its slot's freeing. */
GstcOutRingProbe gstc_out_ring_probe;

static void
probe_hook (GstcOutRing * r, GstcOutTensor * t)
{
  gstc_out_ring_probe.calls++;
  gstc_out_ring_probe.word = __atomic_load_n (t->bracket.word,
      __ATOMIC_ACQUIRE);
  gstc_out_ring_probe.take = gstc_out_ring_take (r);
  if (gstc_out_ring_probe.take >= 0)
    gstc_out_ring_give (r, gstc_out_ring_probe.take);
}

void
gstc_out_ring_probe_install (gboolean on)
{
  memset (&gstc_out_ring_probe, 0, sizeof gstc_out_ring_probe);
  gstc_out_ring_test_hook = on ? probe_hook : NULL;
}
