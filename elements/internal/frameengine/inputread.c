/* inputread.c: how a frame engine reads its input, shared by tensorinfer's
 * (inferframe.c) and tensorpinsink's (sinkframe.c): a memory found by its
 * qdata (the pin cache entry's tag under the element's qkey), its read
 * bracket joined or opened after its fences (a poll bounded by sync-timeout
 * that a flush or a stop ends), left, and the copy of a buffer that is not
 * fd memory into the element's own pinned memory. The callers count and
 * post (their words, their counters). Each function's contract — what it
 * owns, borrows and takes over, and who may call it — is its comment in
 * inputread.h; the Go side is inputread.go. */
#include "inputread.h"

GstcInputResult
gstc_input_enter (GstcInput * r, int access, GstcWake * w, int timeout_ms,
    GstcFenceWait * e)
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
