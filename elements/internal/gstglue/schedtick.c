/* schedtick.c: C definitions of schedtick.go (why: see there). */
#include "schedtick.h"
#include "_cgo_export.h"

/* Under Go's 10 ms forcePreemptNS, with room for a frame that takes a
 * while: a busy thread that yields every 8 ms is never found overdue. */
#define GSTC_SCHED_TICK_US 8000
/* A thread whose callbacks are further apart than this is not busy: it
 * does not yield (see schedtick.go). */
#define GSTC_SCHED_BUSY_GAP_US 2000

gboolean
gstc_sched_tick (void)
{
  static __thread gint64 period_start, last;
  gint64 now = g_get_monotonic_time ();
  gboolean yielded = FALSE;

  if (now - last > GSTC_SCHED_BUSY_GAP_US) {
    period_start = now;
  } else if (now - period_start >= GSTC_SCHED_TICK_US) {
    gstcGoSchedTick ();
    period_start = now;
    yielded = TRUE;
  }
  last = now;
  return yielded;
}
