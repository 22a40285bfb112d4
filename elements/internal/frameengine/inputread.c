/* inputread.c: C definitions of inputread.go (see inputread.h). */
#include "inputread.h"

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
    GstcFencesWait f;

    switch (gstc_fences_wait (b->fd,
            access & GSTC_ACCESS_WRITE ? POLLOUT : POLLIN, w, timeout_ms,
            &f)) {
      case GSTC_FENCES_SIGNALLED:
        e->waited = f.waited;
        e->waited_ns = f.waited_ns;
        break;
      case GSTC_FENCES_ENDED:
        return GSTC_INPUT_FLUSHING;
      case GSTC_FENCES_TIMED_OUT:
        e->waited = f.waited;
        e->waited_ns = f.waited_ns;
        return GSTC_INPUT_TIMED_OUT;
      default:
        e->err = f.err;
        return GSTC_INPUT_POLL_FAILED;
    }
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
