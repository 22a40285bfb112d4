/* schedtick.h: C side of schedtick.go — a busy C thread that calls into
 * Go for every frame lets Go's scheduler see it, once per period. */
#ifndef GSTC_SCHEDTICK_H
#define GSTC_SCHEDTICK_H

#include "cgo.h"

/* Call after a Go callback made for a frame, on the thread that made it.
 * On a thread whose callbacks come less than 2 ms apart, it calls into Go
 * to yield (runtime.Gosched) once per 8 ms; otherwise it reads the
 * monotonic clock (vDSO) and returns. TRUE when it yielded. */
gboolean gstc_sched_tick (void);

#endif /* GSTC_SCHEDTICK_H */
