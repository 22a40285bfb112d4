/* livepacer.c: a live source's clock wait, kept in the subclass instead of
 * GstBaseSrc's do_sync. Each function's contract — what it owns, borrows
 * and takes over, and who may call it — is its comment in livepacer.h; the
 * Go side is livepacer.go. */
#include "livepacer.h"

GstcLivePacer *
gstc_live_pacer_new (void)
{
  GstcLivePacer *p = g_new0 (GstcLivePacer, 1);
  g_mutex_init (&p->lock);
  p->last = GST_CLOCK_TIME_NONE;
  return p;
}

void
gstc_live_pacer_free (GstcLivePacer * p)
{
  if (p == NULL)
    return;
  g_mutex_clear (&p->lock);
  g_free (p);
}

GstClockReturn
gstc_live_pacer_wait (GstcLivePacer * p, GstElement * e, GstClockTime * pts)
{
  GstClock *clock;
  GstClockTime base, running;
  GstClockID id;
  GstClockReturn ret;

  if (!GST_CLOCK_TIME_IS_VALID (*pts))
    return GST_CLOCK_OK;
  clock = gst_element_get_clock (e);
  if (clock == NULL)
    return GST_CLOCK_OK;
  base = gst_element_get_base_time (e);
  g_mutex_lock (&p->lock);
  if (p->unlocked) {
    g_mutex_unlock (&p->lock);
    gst_object_unref (clock);
    return GST_CLOCK_UNSCHEDULED;
  }
  if (!p->aligned || p->base_time != base) {
    /* The first frame of a run, or the first after PAUSED->PLAYING gave
     * the pipeline a new base time: this frame is now, as GstBaseSrc's
     * pseudo-live ts_offset makes it — but never before the last frame
     * (one made while paused may have run ahead of the paused clock). */
    GstClockTime now = gst_clock_get_time (clock);
    running = now > base ? now - base : 0;
    if (GST_CLOCK_TIME_IS_VALID (p->last) && running <= p->last)
      running = p->last + 1;
    p->offset = GST_CLOCK_DIFF (*pts, running);
    p->base_time = base;
    p->aligned = TRUE;
  }
  if (p->offset < 0 && (GstClockTime) (-p->offset) > *pts)
    *pts = 0;
  else
    *pts = *pts + p->offset;
  p->last = *pts;
  id = gst_clock_new_single_shot_id (clock, *pts + base);
  p->id = id;
  g_mutex_unlock (&p->lock);

  /* An unschedule between the unlock above and this wait still counts:
   * the wait then returns GST_CLOCK_UNSCHEDULED at once. */
  ret = gst_clock_id_wait (id, NULL);

  g_mutex_lock (&p->lock);
  p->id = NULL;
  if (p->unlocked)
    ret = GST_CLOCK_UNSCHEDULED;
  g_mutex_unlock (&p->lock);
  gst_clock_id_unref (id);
  gst_object_unref (clock);
  return ret == GST_CLOCK_UNSCHEDULED ? GST_CLOCK_UNSCHEDULED : GST_CLOCK_OK;
}

void
gstc_live_pacer_set_unlocked (GstcLivePacer * p, gboolean unlocked)
{
  g_mutex_lock (&p->lock);
  p->unlocked = unlocked;
  if (unlocked && p->id != NULL)
    gst_clock_id_unschedule (p->id);
  if (!unlocked) {
    /* After a flush the running time may start again from 0. */
    p->aligned = FALSE;
    p->last = GST_CLOCK_TIME_NONE;
  }
  g_mutex_unlock (&p->lock);
}
