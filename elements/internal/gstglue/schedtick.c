/* schedtick.c: a busy C thread that calls into Go for every frame lets Go's
 * scheduler see it, once per period. Each function's contract — what it
 * owns, borrows and takes over, and who may call it — is its comment in
 * schedtick.h; the Go side is schedtick.go. */
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
