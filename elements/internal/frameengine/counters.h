/* counters.h: an element's counters in C — one refcounted block per
 * element, counted by its frame in C and by the shared engine (an output
 * ring's returns), and added into the element's stats by Go. Refcounted
 * because a ring memory that returns after its element is gone still
 * counts its write bracket's close. */
#ifndef GSTC_COUNTERS_H
#define GSTC_COUNTERS_H

#include "cgo.h"

#define GSTC_COUNTERS_MAX 48

/* The indices the shared engine counts at (outring.c); an element's own
 * enum starts at GSTC_COUNTERS_OWN. */
enum
{
  GSTC_RING_WAITS,              /* frames that waited for a free slot */
  GSTC_RING_OUT_OPENED,         /* slots' write brackets opened */
  GSTC_RING_OUT_CLOSED,         /* … and closed (at the memory's return) */
  GSTC_RING_OUT_ENDED,          /* closes that did the END ioctl */
  GSTC_RING_SYNC_ERRORS,        /* ENDs that failed, and STARTs from C that did */
  GSTC_COUNTERS_OWN
};

/* Reference counted (a GLib atomic rc box: new, ref and unref below). */
typedef struct
{
  guint64 v[GSTC_COUNTERS_MAX];
} GstcCounters;

/* A zeroed block, one reference (the caller's). */
GstcCounters *gstc_counters_new (void);
/* The block of element (borrowed: the element's qdata holds a reference),
 * attached on the first call; a holder that may outlive the element (a
 * ring) takes its own reference. */
GstcCounters *gstc_counters_of (GstElement * element);
GstcCounters *gstc_counters_ref (GstcCounters * c);
/* NULL is a no-op. */
void gstc_counters_unref (GstcCounters * c);

/* Adds n to counter i (any thread; n may be a negative value cast). */
static inline void
gstc_count (GstcCounters * c, int i, guint64 n)
{
  __atomic_add_fetch (&c->v[i], n, __ATOMIC_RELAXED);
}

static inline guint64
gstc_counter_load (GstcCounters * c, int i)
{
  return __atomic_load_n (&c->v[i], __ATOMIC_RELAXED);
}

static inline void
gstc_counter_store (GstcCounters * c, int i, guint64 v)
{
  __atomic_store_n (&c->v[i], v, __ATOMIC_RELAXED);
}

/* Raises counter i to v if v is larger (a maximum). */
static inline void
gstc_counter_max (GstcCounters * c, int i, guint64 v)
{
  gstc_atomic_max (&c->v[i], v);
}

#endif /* GSTC_COUNTERS_H */
