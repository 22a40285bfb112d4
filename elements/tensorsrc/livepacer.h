/* livepacer.h: C side of livepacer.go — a live source's clock wait, kept
 * in the subclass instead of GstBaseSrc's do_sync. */
#ifndef GSTC_LIVEPACER_H
#define GSTC_LIVEPACER_H

#include "cgo.h"

typedef struct
{
  GMutex lock;
  GstClockID id;                /* the wait in progress, or NULL */
  gboolean unlocked;            /* flushing or stopping: waits end at once */
  gboolean aligned;             /* offset holds for base_time */
  GstClockTime base_time;       /* the base time offset was computed for */
  GstClockTimeDiff offset;      /* running time minus stream time */
  GstClockTime last;            /* the last PTS handed out, or NONE */
} GstcLivePacer;

GstcLivePacer *gstc_live_pacer_new (void);
void gstc_live_pacer_free (GstcLivePacer * p);

/* Wait on e's clock until *pts (a stream time, shifted by the pacer's
 * offset into running time, *pts updated) is reached. Returns
 * GST_CLOCK_UNSCHEDULED when the pacer is unlocked before or during the
 * wait, else GST_CLOCK_OK (also when e has no clock or *pts is NONE). */
GstClockReturn gstc_live_pacer_wait (GstcLivePacer * p, GstElement * e,
    GstClockTime * pts);

/* unlocked TRUE ends a wait in progress and makes later ones return at
 * once; FALSE ends that and realigns the offset on the next frame. */
void gstc_live_pacer_set_unlocked (GstcLivePacer * p, gboolean unlocked);

#endif /* GSTC_LIVEPACER_H */
