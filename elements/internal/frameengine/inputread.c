/* inputread.c: C definitions of inputread.go (see inputread.h). */
#include "inputread.h"

GstcInputResult
gstc_fences_wait (int fd, short events, GstcWake * w, int timeout_ms,
    GstcInputEnter * e)
{
  int p;

  if (gstc_fences_signalled (fd, events))
    return GSTC_INPUT_ENTERED;
  p = gstc_wake_poll (w, fd, events, timeout_ms, &e->waited_ns);
  if (p == 2)
    return GSTC_INPUT_FLUSHING;
  e->waited = p == 0 || p == 1;
  if (p == 1)
    return GSTC_INPUT_TIMED_OUT;
  if (p < 0) {
    e->err = -p;
    return GSTC_INPUT_POLL_FAILED;
  }
  return GSTC_INPUT_ENTERED;
}

GstcInputResult
gstc_input_enter (GstcInput * r, int access, GstcWake * w, int timeout_ms,
    GstcInputEnter * e)
{
  GstcBracket *b = &r->bracket;
  int err = 0;

  memset (e, 0, sizeof *e);
  if (gstc_bracket_try_join (b, access)) {
    e->joined = TRUE;
    return GSTC_INPUT_ENTERED;
  }
  if (timeout_ms != 0 && b->ioctl) {
    GstcInputResult f = gstc_fences_wait (b->fd,
        access & GSTC_ACCESS_WRITE ? POLLOUT : POLLIN, w, timeout_ms, e);

    if (f != GSTC_INPUT_ENTERED)
      return f;
  }
  /* Busy only while another holder's START or END is issued. */
  while (!gstc_bracket_try_enter (b, access, &err)) {
    if (err != 0) {
      e->err = err;
      return GSTC_INPUT_START_FAILED;
    }
    g_thread_yield ();
  }
  return GSTC_INPUT_ENTERED;
}

gboolean
gstc_input_leave (GstcInput * r, int *err)
{
  gboolean closed;

  *err = 0;
  if (r->copy)
    return TRUE;
  return gstc_bracket_leave (&r->bracket, &closed, err) || *err == 0;
}
