/* wake.h: C side of wake.go — what ends an element's waits on its
 * streaming thread: a flush (FLUSH_START until FLUSH_STOP) or a stop
 * (the change to READY until the next start). A frame that waits for a
 * free output slot sleeps on the wake's condition; one that waits for a
 * dma-buf's fences polls the wake's eventfd beside the dma-buf. Whoever
 * frees a slot calls gstc_wake_signal; whoever flushes or stops sets the
 * flag, which wakes every wait at once. */
#ifndef GSTC_WAKE_H
#define GSTC_WAKE_H

#include "cgo.h"

/* One per element, attached for its lifetime (gstc_wake_of): the flags
 * outlive a start and a stop (a flush may come while the element
 * starts); or one of an owner's own (gstc_wake_new), which no flag but
 * an interrupt ends. lock guards nothing but the condition's wait: the
 * flags, waiters and generation are atomics, so that a signal with no
 * waiter takes no lock. */
typedef struct
{
  gint refs;                    /* the element's, and each ring's */
  GMutex lock;
  GCond cond;
  gint flushing, stopping, seeking;
  gint waiters;                 /* threads inside a wait or a poll */
  gint gen;                     /* interrupts so far (gstc_wake_interrupt) */
  int efd;                      /* readable while flushing or stopping */
  GSList *pollers;              /* eventfds of interruptible polls, under lock */
} GstcWake;

/* The wake of element (borrowed: the element holds a reference until it
 * is finalized; a holder that may outlive the element takes its own),
 * attached on the first call. */
GstcWake *gstc_wake_of (GstElement * element);

/* A wake of no element and with no eventfd (no fence poll ends on it):
 * for waits off the streaming thread that flags must not end —
 * tensorsrc's application's Acquire, ended by gstc_wake_interrupt. One
 * reference, the caller's. */
GstcWake *gstc_wake_new (void);
GstcWake *gstc_wake_ref (GstcWake * w);
void gstc_wake_unref (GstcWake * w);

/* Sets or clears a flag; setting one wakes every wait. seeking: a
 * non-flushing seek that waits for the streaming thread to leave its
 * frame (tensorsrc). */
void gstc_wake_set_flushing (GstcWake * w, gboolean on);
void gstc_wake_set_stopping (GstcWake * w, gboolean on);
void gstc_wake_set_seeking (GstcWake * w, gboolean on);

/* Whether a flush, a stop or such a seek is under way. */
static inline gboolean
gstc_wake_ended (GstcWake * w)
{
  return g_atomic_int_get (&w->flushing) || g_atomic_int_get (&w->stopping)
      || g_atomic_int_get (&w->seeking);
}

/* Tells the waits that what they wait for may be there (a slot came
 * back): a broadcast if anyone waits, nothing else. */
void gstc_wake_signal (GstcWake * w);

/* The number of interrupts so far: read it before deciding to wait, and
 * a wait's ready function returns when it changed (no interrupt after
 * the read is missed). */
static inline gint
gstc_wake_gen (GstcWake * w)
{
  return g_atomic_int_get (&w->gen);
}

/* Ends every wait that read the generation before this call (its ready
 * function sees it changed): a stop, a new ring, the end of the stream,
 * a cancelled context. Sets no flag: later waits are not ended. */
void gstc_wake_interrupt (GstcWake * w);

/* Calls ready(data) until it returns TRUE (then TRUE), sleeping between
 * calls until gstc_wake_signal; FALSE as soon as a flush or a stop is
 * under way. ready is called with the wake's lock held and this thread
 * counted as a waiter, so a signal after a ready that returned FALSE is
 * never lost; it must not block. */
gboolean gstc_wake_wait_until (GstcWake * w, gboolean (*ready) (gpointer),
    gpointer data);

/* gstc_wake_wait_until, giving up at end_time (g_get_monotonic_time's
 * clock, µs; negative: never): 1 when ready returned TRUE, 0 when a
 * flush or a stop ended the wait, -1 when end_time passed first (ready
 * was called once more at the end: a slot freed just then is taken). */
int gstc_wake_wait_until_time (GstcWake * w, gboolean (*ready) (gpointer),
    gpointer data, gint64 end_time);

/* Polls fd for events for at most timeout_ms (negative: no bound)
 * beside the wake's eventfd: 0 when fd is ready, 1 at the timeout, 2
 * when a flush or a stop ended the wait, else a negative errno. *waited
 * is the time it slept, in ns. */
int gstc_wake_poll (GstcWake * w, int fd, short events, int timeout_ms,
    gint64 * waited);

/* Polls fd for events for at most timeout_ms (negative: no bound) until
 * an interrupt of w after gen was read (gstc_wake_gen): 0 when fd is
 * ready, 1 at the timeout, 3 interrupted, else a negative errno. No flag
 * ends it: an owner's own wait (tensorsrc's Acquire, on its
 * gstc_wake_new wake) that the interrupts end. When fd is not ready at
 * once, the poll has an eventfd of its own that an interrupt writes.
 * *waited is the time it slept, in ns (0 when fd was ready at once). */
int gstc_wake_poll_interruptible (GstcWake * w, gint gen, int fd,
    short events, int timeout_ms, gint64 * waited);

/* ---- a dma-buf's fences, waited for on a wake ---------------------- */

/* What a fence wait ended with. */
typedef enum
{
  GSTC_FENCES_SIGNALLED,        /* the fences have signalled */
  GSTC_FENCES_ENDED,            /* a flush or a stop ended the wait */
  GSTC_FENCES_TIMED_OUT,        /* they did not signal in time */
  GSTC_FENCES_POLL_FAILED       /* err: the poll's errno */
} GstcFencesResult;

typedef struct
{
  gboolean waited;              /* the poll slept (timed out or not) */
  gint64 waited_ns;
  int err;
} GstcFencesWait;

/* Waits for the fences of the dma-buf fd that an access with events
 * waits for (POLLIN: a read's, POLLOUT: every fence): SIGNALLED once they
 * have (no wait when they already have), else after a poll bounded by
 * timeout_ms (negative: no bound) beside w's eventfd — ENDED, TIMED_OUT
 * or POLL_FAILED (f->err). f->waited and f->waited_ns: the poll slept.
 * The frames' one fence wait. */
GstcFencesResult gstc_fences_wait (int fd, short events, GstcWake * w,
    int timeout_ms, GstcFencesWait * f);

#endif /* GSTC_WAKE_H */
