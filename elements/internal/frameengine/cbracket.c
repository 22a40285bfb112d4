/* cbracket.c: entering and leaving package tensor's CPU-access brackets
 * from C, on the state words of internal/bracketabi (see there for the
 * protocol: a compare-and-swap of the whole word; Busy while a START or END
 * is issued, by its setter). Each function's contract — what it owns,
 * borrows and takes over, and who may call it — is its comment in
 * cbracket.h; the Go side is cbracket.go. */
#include "cbracket.h"

#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <linux/dma-buf.h>

/* As package tensor's maxSyncRetries. */
#define GSTC_SYNC_RETRIES 1000

guint64 *gstc_bracket_counters;

static inline void
count (int i)
{
  __atomic_add_fetch (&gstc_bracket_counters[i], 1, __ATOMIC_RELAXED);
}

static inline guint64
load (const GstcBracket * b)
{
  return __atomic_load_n (b->word, __ATOMIC_ACQUIRE);
}

static inline gboolean
cas (const GstcBracket * b, guint64 old, guint64 new)
{
  return __atomic_compare_exchange_n (b->word, &old, new, FALSE,
      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static inline guint64
pack (guint64 refs, int access)
{
  return (refs & GSTC_BRACKET_REFS_MASK) | ((guint64) (access & 3) <<
      GSTC_BRACKET_ACCESS_SHIFT);
}

/* DMA_BUF_IOCTL_SYNC once: 0 or its errno. */
static int
real_sync_ioctl (int fd, guint64 flags)
{
  struct dma_buf_sync arg = { flags };

  return ioctl (fd, DMA_BUF_IOCTL_SYNC, &arg) == 0 ? 0 : errno;
}

static gboolean
real_fences_ready (int fd, short events)
{
  return gstc_fences_signalled (fd, events);
}

int (*gstc_bracket_sync_ioctl) (int fd, guint64 flags) = real_sync_ioctl;
gboolean (*gstc_bracket_fences_ready) (int fd, short events) =
    real_fences_ready;

/* One START or END (b->ioctl is set) as package tensor's dmabufSync:
 * EINTR and EAGAIN retried, ENOTTY coherent (no more ioctls on b). 0 or
 * an errno. */
static int
sync_ioctl (GstcBracket * b, guint64 flags)
{
  int try, e;

  for (try = 0;; try++) {
    e = gstc_bracket_sync_ioctl (b->fd, flags);
    if (e == 0) {
      count (flags & DMA_BUF_SYNC_END ? GSTC_COUNT_SYNC_END :
          GSTC_COUNT_SYNC_START);
      return 0;
    }
    if ((e == EINTR || e == EAGAIN) && try < GSTC_SYNC_RETRIES) {
      count (GSTC_COUNT_SYNC_RETRIES);
      continue;
    }
    if (e == ENOTTY) {
      b->ioctl = FALSE;
      count (GSTC_COUNT_SYNC_NOT_TTY);
      return 0;
    }
    count (GSTC_COUNT_SYNC_ERRORS);
    return e;
  }
}

/* One more holder in the open bracket whose word was w; FALSE if the
 * word changed meanwhile (the caller looks again). */
static gboolean
join_open (const GstcBracket * b, guint64 w)
{
  if (!cas (b, w, w + 1))
    return FALSE;
  count (GSTC_COUNT_BRACKETS_JOINED);
  if (!b->ioctl)
    count (GSTC_COUNT_NOOP_SYNCS);
  return TRUE;
}

gboolean
gstc_bracket_try_join (const GstcBracket * b, int access)
{
  for (;;) {
    guint64 w = load (b);
    int have = (int) (w >> GSTC_BRACKET_ACCESS_SHIFT) & 3;

    if ((w & GSTC_BRACKET_BUSY) || (w & GSTC_BRACKET_REFS_MASK) == 0
        || (have & access) != access)
      return FALSE;
    if (join_open (b, w))
      return TRUE;
  }
}

gboolean
gstc_bracket_try_enter (GstcBracket * b, int access, int *err)
{
  *err = 0;
  for (;;) {
    guint64 w = load (b);
    guint64 refs = w & GSTC_BRACKET_REFS_MASK;
    int have = (int) (w >> GSTC_BRACKET_ACCESS_SHIFT) & 3;

    if (w & GSTC_BRACKET_BUSY)
      return FALSE;
    if (refs != 0 && (have & access) == access) {
      if (join_open (b, w))
        return TRUE;
      continue;
    }
    /* Open it, or widen it (open for less): a START for access, under
     * Busy. */
    if (!cas (b, w, w | GSTC_BRACKET_BUSY))
      continue;
    if (b->ioctl)
      *err = sync_ioctl (b, (guint64) access | DMA_BUF_SYNC_START);
    if (*err != 0) {
      __atomic_store_n (b->word, w, __ATOMIC_RELEASE);
      return FALSE;
    }
    __atomic_store_n (b->word, pack (refs + 1, have | access),
        __ATOMIC_RELEASE);
    if (refs == 0) {
      count (GSTC_COUNT_BRACKETS_OPENED);
    } else {
      count (GSTC_COUNT_BRACKETS_WIDENED);
      count (GSTC_COUNT_BRACKETS_JOINED);
    }
    if (!b->ioctl)
      count (GSTC_COUNT_NOOP_SYNCS);
    return TRUE;
  }
}

gboolean
gstc_bracket_try_enter_ready (GstcBracket * b, int access, int *err)
{
  *err = 0;
  if (gstc_bracket_try_join (b, access))
    return TRUE;
  if (b->ioctl && !gstc_bracket_fences_ready (b->fd,
          access == GSTC_ACCESS_READ ? POLLIN : POLLOUT))
    return FALSE;
  return gstc_bracket_try_enter (b, access, err);
}

gboolean
gstc_bracket_leave (GstcBracket * b, gboolean * closed, int *err)
{
  *closed = FALSE;
  *err = 0;
  for (;;) {
    guint64 w = load (b);
    guint64 refs = w & GSTC_BRACKET_REFS_MASK;

    if (w & GSTC_BRACKET_BUSY) {
      /* A START widening the bracket we are in (Go's or C's): one
       * ioctl. */
      sched_yield ();
      continue;
    }
    if (refs == 0)
      return FALSE;
    if (refs > 1) {
      if (!cas (b, w, w - 1))
        continue;
      if (!b->ioctl)
        count (GSTC_COUNT_NOOP_SYNCS);
      return TRUE;
    }
    if (!cas (b, w, w | GSTC_BRACKET_BUSY))
      continue;
    if (b->ioctl)
      *err = sync_ioctl (b, ((w >> GSTC_BRACKET_ACCESS_SHIFT) & 3) |
          DMA_BUF_SYNC_END);
    __atomic_store_n (b->word, 0, __ATOMIC_RELEASE);
    count (GSTC_COUNT_BRACKETS_CLOSED);
    if (!b->ioctl)
      count (GSTC_COUNT_NOOP_SYNCS);
    *closed = TRUE;
    return *err == 0;
  }
}
