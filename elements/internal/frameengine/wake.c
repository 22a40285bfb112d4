/* wake.c: what ends an element's waits on its streaming thread: a flush
 * (FLUSH_START until FLUSH_STOP) or a stop (the change to READY until the
 * next start). A frame that waits for a free output slot sleeps on the
 * wake's condition; one that waits for a dma-buf's fences polls the wake's
 * eventfd beside the dma-buf. Whoever frees a slot calls gstc_wake_signal;
 * whoever flushes or stops sets the flag, which wakes every wait at once.
 * Each function's contract — what it owns, borrows and takes over, and who
 * may call it — is its comment in wake.h; the Go side is wake.go. */
#include "wake.h"
#include "cbracket.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

static GQuark
wake_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-wake");
}

GstcWake *
gstc_wake_new (void)
{
  GstcWake *w = g_new0 (GstcWake, 1);

  w->refs = 1;
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  w->efd = -1;
  return w;
}

static gpointer
wake_new (void)
{
  GstcWake *w = gstc_wake_new ();

  w->efd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (w->efd < 0)
    GST_WARNING ("eventfd: %s: a flush or a stop cannot end a wait for "
        "fences (only their signal or sync-timeout can)", g_strerror (errno));
  return w;
}

GstcWake *
gstc_wake_ref (GstcWake * w)
{
  if (w != NULL)
    g_atomic_int_inc (&w->refs);
  return w;
}

void
gstc_wake_unref (GstcWake * w)
{
  if (w == NULL || !g_atomic_int_dec_and_test (&w->refs))
    return;
  if (w->efd >= 0)
    close (w->efd);
  g_cond_clear (&w->cond);
  g_mutex_clear (&w->lock);
  g_free (w);
}

GstcWake *
gstc_wake_of (GstElement * element)
{
  return gstc_qdata_attach (element, wake_quark (), wake_new,
      (GDestroyNotify) gstc_wake_unref);
}

/* Makes the eventfd readable while a flag is set, drained when none is. */
static void
wake_update_efd (GstcWake * w)
{
  uint64_t v = 1;

  if (w->efd < 0)
    return;
  if (gstc_wake_ended (w)) {
    if (write (w->efd, &v, sizeof v) < 0) {
      /* EAGAIN: already readable. */
    }
  } else if (read (w->efd, &v, sizeof v) < 0) {
    /* EAGAIN: already drained. */
  }
}

static void
wake_set (GstcWake * w, gint * flag, gboolean on)
{
  g_mutex_lock (&w->lock);
  g_atomic_int_set (flag, on ? 1 : 0);
  wake_update_efd (w);
  if (on)
    g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
}

void
gstc_wake_set_flushing (GstcWake * w, gboolean on)
{
  wake_set (w, &w->flushing, on);
}

void
gstc_wake_set_stopping (GstcWake * w, gboolean on)
{
  wake_set (w, &w->stopping, on);
}

void
gstc_wake_set_seeking (GstcWake * w, gboolean on)
{
  wake_set (w, &w->seeking, on);
}

void
gstc_wake_signal (GstcWake * w)
{
  /* A waiter counts itself before it looks (under the lock): if this
   * load finds none, its look comes after what the caller freed. */
  if (w == NULL || g_atomic_int_get (&w->waiters) == 0)
    return;
  g_mutex_lock (&w->lock);
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
}

void
gstc_wake_interrupt (GstcWake * w)
{
  static const guint64 one = 1;
  GSList *l;

  g_mutex_lock (&w->lock);
  g_atomic_int_inc (&w->gen);
  g_cond_broadcast (&w->cond);
  /* An eventfd write does not block (the counter cannot overflow here). */
  for (l = w->pollers; l != NULL; l = l->next)
    if (write (GPOINTER_TO_INT (l->data), &one, sizeof one) < 0)
      GST_WARNING ("waking an interruptible poll: %s", g_strerror (errno));
  g_mutex_unlock (&w->lock);
}

gboolean
gstc_wake_wait_until (GstcWake * w, gboolean (*ready) (gpointer),
    gpointer data)
{
  gboolean ok = FALSE;

  g_mutex_lock (&w->lock);
  g_atomic_int_inc (&w->waiters);
  while (!gstc_wake_ended (w)) {
    if (ready (data)) {
      ok = TRUE;
      break;
    }
    g_cond_wait (&w->cond, &w->lock);
  }
  g_atomic_int_dec_and_test (&w->waiters);
  g_mutex_unlock (&w->lock);
  return ok;
}

int
gstc_wake_wait_until_time (GstcWake * w, gboolean (*ready) (gpointer),
    gpointer data, gint64 end_time)
{
  int r = 0;

  g_mutex_lock (&w->lock);
  g_atomic_int_inc (&w->waiters);
  while (!gstc_wake_ended (w)) {
    if (ready (data)) {
      r = 1;
      break;
    }
    if (end_time < 0)
      g_cond_wait (&w->cond, &w->lock);
    else if (!g_cond_wait_until (&w->cond, &w->lock, end_time)
        && !gstc_wake_ended (w)) {
      r = ready (data) ? 1 : -1;
      break;
    }
  }
  g_atomic_int_dec_and_test (&w->waiters);
  g_mutex_unlock (&w->lock);
  return r;
}

static gint64
mono_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* poll_time_left sets *left to the milliseconds a poll may wait until
 * deadline (monotonic ns) — rounded up: a poll that returns early polls
 * again — or -1 for no timeout (timeout_ms < 0); FALSE once the deadline
 * has passed. */
static gboolean
poll_time_left (int timeout_ms, gint64 deadline, int *left)
{
  gint64 now;

  *left = -1;
  if (timeout_ms < 0)
    return TRUE;
  now = mono_ns ();
  if (now >= deadline)
    return FALSE;
  *left = (int) ((deadline - now + 999999) / 1000000);
  return TRUE;
}

int
gstc_wake_poll (GstcWake * w, int fd, short events, int timeout_ms,
    gint64 * waited)
{
  gint64 t0 = mono_ns (), deadline = t0 + (gint64) timeout_ms * 1000000;
  int r;

  /* Counted as a waiter (tests see the wait under way). */
  g_atomic_int_inc (&w->waiters);
  for (;;) {
    struct pollfd p[2] = { {fd, events, 0}, {w->efd, POLLIN, 0} };
    int left, n;

    if (gstc_wake_ended (w)) {
      r = 2;
      break;
    }
    if (!poll_time_left (timeout_ms, deadline, &left)) {
      r = 1;
      break;
    }
    n = poll (p, w->efd >= 0 ? 2 : 1, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      r = -errno;
      break;
    }
    if (n > 0 && (p[0].revents & events) != 0) {
      r = 0;
      break;
    }
    /* An fd that can never become ready (closed, hung up) would make
     * this loop spin. */
    if (n > 0 && (p[0].revents & (POLLERR | POLLNVAL | POLLHUP)) != 0) {
      r = -EBADF;
      break;
    }
    /* The eventfd or a timeout: the loop's checks say which. */
  }
  g_atomic_int_dec_and_test (&w->waiters);
  *waited = mono_ns () - t0;
  return r;
}

int
gstc_wake_poll_interruptible (GstcWake * w, gint gen, int fd, short events,
    int timeout_ms, gint64 * waited)
{
  struct pollfd p[2] = { {fd, events, 0}, {-1, POLLIN, 0} };
  gint64 t0, deadline;
  int r, n;

  *waited = 0;
  /* Most fds are ready at once: no eventfd, no registration. */
  do
    n = poll (p, 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -errno;
  if ((p[0].revents & events) != 0)
    return 0;
  p[1].fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (p[1].fd < 0)
    return -errno;
  t0 = mono_ns ();
  deadline = t0 + (gint64) timeout_ms * 1000000;
  g_mutex_lock (&w->lock);
  w->pollers = g_slist_prepend (w->pollers, GINT_TO_POINTER (p[1].fd));
  g_mutex_unlock (&w->lock);
  g_atomic_int_inc (&w->waiters);
  for (;;) {
    int left;

    /* Registered before this check: an interrupt after it writes our
     * eventfd, so none is missed. */
    if (gstc_wake_gen (w) != gen) {
      r = 3;
      break;
    }
    if (!poll_time_left (timeout_ms, deadline, &left)) {
      r = 1;
      break;
    }
    p[0].revents = p[1].revents = 0;
    n = poll (p, 2, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      r = -errno;
      break;
    }
    if ((p[0].revents & events) != 0) {
      r = 0;
      break;
    }
    if ((p[0].revents & (POLLERR | POLLNVAL | POLLHUP)) != 0) {
      r = -EBADF;
      break;
    }
    if ((p[1].revents & POLLIN) != 0) {
      guint64 v;

      /* Reset: the loop's check says whether the interrupt is ours. */
      if (read (p[1].fd, &v, sizeof v) < 0 && errno != EAGAIN)
        GST_WARNING ("reading an interruptible poll's eventfd: %s",
            g_strerror (errno));
    }
  }
  g_atomic_int_dec_and_test (&w->waiters);
  g_mutex_lock (&w->lock);
  w->pollers = g_slist_remove (w->pollers, GINT_TO_POINTER (p[1].fd));
  g_mutex_unlock (&w->lock);
  close (p[1].fd);
  *waited = mono_ns () - t0;
  return r;
}

GstcFencesResult
gstc_fences_wait (int fd, short events, GstcWake * w, int timeout_ms,
    GstcFencesWait * f)
{
  int p;

  memset (f, 0, sizeof *f);
  if (gstc_fences_signalled (fd, events))
    return GSTC_FENCES_SIGNALLED;
  p = gstc_wake_poll (w, fd, events, timeout_ms, &f->waited_ns);
  if (p == 2)
    return GSTC_FENCES_ENDED;
  f->waited = p == 0 || p == 1;
  if (p == 1)
    return GSTC_FENCES_TIMED_OUT;
  if (p < 0) {
    f->err = -p;
    return GSTC_FENCES_POLL_FAILED;
  }
  return GSTC_FENCES_SIGNALLED;
}
