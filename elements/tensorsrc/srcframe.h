/* srcframe.h: tensorsrc's frame (srcframe.c, its Go side srcframe.go):
 * every frame
 * of every pattern, in C inside GstPushSrcClass.create with no call into
 * Go. A built-in pattern's: a free slot of its output ring (outring.h)
 * taken — waiting while every slot is downstream —, the slot's fences
 * waited for (a poll bounded by sync-timeout), its write bracket
 * entered, the pattern written. pattern=app's: the oldest slot the
 * application pushed (its queue here, GstcSrcAppQueue) — waiting while
 * there is none —, its bracket opened by the application's Acquire.
 * Then for both: the first frame after a start or a seek placed at the
 * segment's position, a live source's clock wait (livepacer.h), the
 * bracket left at once (handoff=close) or announced and left when the
 * memory comes back (handoff=adopt: the ring does it), the buffer made;
 * errors are posted here. A flush (unlock), a stop or a non-flushing
 * seek ends the waits (the element's wake.h).
 *
 * Why in C: a C streaming thread that calls into Go keeps a Go P until
 * its next call, and while it does Go's sysmon never sleeps deeply — it
 * wakes every 20 µs to 10 ms, tens of µs of CPU a wake on this project's
 * VMs (docs/design-notes.md, "A source with no Go in its frame"). */
#ifndef TENSORSRC_SRCFRAME_H
#define TENSORSRC_SRCFRAME_H

#include "cgo.h"
#include "outring.h"
#include "counters.h"
#include "livepacer.h"
#include "wake.h"

#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

/* The element's own counters (counters.h: after the ring's), read by
 * stats.go. */
enum
{
  GSTC_SRC_FRAMES = GSTC_COUNTERS_OWN,  /* frames made (every pattern) */
  GSTC_SRC_FENCE_WAITS,         /* fence waits that blocked */
  GSTC_SRC_FENCE_WAIT_NS,       /* their time, summed */
  GSTC_SRC_FENCE_WAIT_MAX_NS,   /* the longest */
  GSTC_SRC_FENCE_TIMEOUTS,
  GSTC_SRC_COUNTERS_END
};

/* The built-in patterns (tensorsrc's pattern property). */
enum
{
  GSTC_SRC_COUNTER,
  GSTC_SRC_GRADIENT,
  GSTC_SRC_BLACK,
  GSTC_SRC_NONE
};

/* pattern=app's queue: the slots the application pushed, oldest first,
 * each with its PTS, and whether it ended the stream. Under lock: the
 * application pushes from any thread while create pops. A slot in it is
 * taken in the ring (busy) and its bracket is as Acquire left it. */
typedef struct
{
  GMutex lock;
  int head, n;
  int slot[GSTC_OUT_MAX_SLOTS];
  guint64 pts[GSTC_OUT_MAX_SLOTS];
  gboolean eos;
} GstcSrcAppQueue;

/* An element's frame, attached to it on the first gstc_src_frame_of
 * and freed with it. Go changes it only where no create runs: on the
 * streaming thread (create, caps, allocation), under the stream lock (a
 * seek), or while the element is stopped; so it has no lock (but for
 * app, which has its own). data[i] is slot i's pinned bytes, Go's (its
 * ring's tensor pins), valid while ring is the element's current ring. */
typedef struct
{
  gboolean enabled;
  gboolean is_app;              /* pattern=app: frames from app */
  GstcSrcAppQueue app;
  GstcWake *wake;               /* the element's (found on the first frame) */
  GstcOutRing *ring;            /* a reference, or NULL */
  GstcCounters *counters;       /* a reference: frames counted here */
  int pattern;
  gboolean close_after_write;
  guint64 frame;                /* the next frame's number (Go's too) */
  gint fps_n, fps_d;
  guint8 *data[GSTC_OUT_MAX_SLOTS];
  gsize size[GSTC_OUT_MAX_SLOTS];
  gboolean has_vmeta;
  GstVideoFormat vformat;
  guint width, height, n_planes;
  gsize offsets[GST_VIDEO_MAX_PLANES];
  gint strides[GST_VIDEO_MAX_PLANES];
  char *vmeta_error;            /* why the caps' video meta cannot be made */
  /* The next frame is the one at seek_pos (a start or a seek), placed
   * once the frame rate is known. */
  gboolean seek_pending;
  guint64 seek_pos;
  GstcLivePacer *pacer;         /* Go's (is-live), or NULL */
  int sync_timeout_ms;          /* the bound of a fence wait; negative: none */
  /* The ring grows (one slot from Go: gstcGoSrcGrow) while it has fewer
   * than max_slots (max-pool-size; 0: it does not grow) when no slot
   * came back for grow_after_us and a preroll waits
   * (gstc_src_preroll_waits); grow_after_us doubles with each growth in
   * a row and is back to GSTC_SRC_GROW_AFTER_US when a slot comes back. */
  int max_slots;
  gint64 grow_after_us;
  /* Tests: a stand-in for slot i's fences (fence_fd[i] polled for
   * fence_events[i] instead of the dma-buf's); -1: none. */
  int fence_fd[GSTC_OUT_MAX_SLOTS];
  short fence_events[GSTC_OUT_MAX_SLOTS];
} GstcSrcFrame;

GstcSrcFrame *gstc_src_frame_of (GstElement * element);

/* The first wait for a free slot after which the ring grows, and the
 * longest (each growth in a row doubles it). */
#define GSTC_SRC_GROW_AFTER_US (100 * G_TIME_SPAN_MILLISECOND)
#define GSTC_SRC_GROW_AFTER_MAX_US (10 * G_TIME_SPAN_SECOND)

/* Makes s's ring grow to at most max_slots slots (0: not at all), the
 * next growth after GSTC_SRC_GROW_AFTER_US. */
void gstc_src_frame_set_growth (GstcSrcFrame * s, int max_slots);

/* Whether src is PAUSED while the state change of a bin it is in is
 * still pending — a sink's preroll (an ASYNC change), which a buffer
 * ends: what a source whose every slot is downstream and held (queues
 * and a prerolled sink free none in PAUSED) waits for in vain. Takes the
 * object locks of src and its bins in turn, one at a time. */
gboolean gstc_src_preroll_waits (GstElement * src);

/* Makes r (NULL: none) the ring of s, counting into c — s takes a
 * reference of each and drops the ones it had — and disables s. Slots
 * still in the application's queue go back to the old ring, their
 * brackets left (gstc_src_app_drain). */
void gstc_src_frame_set_ring (GstcSrcFrame * s, GstcOutRing * r,
    GstcCounters * c);

/* The frame of src (borrowed): TRUE with *ret GST_FLOW_OK and *out the
 * buffer (the caller's), or *ret FLUSHING, EOS (pattern=app) or an
 * error (posted: NOT_NEGOTIATED before a ring was configured) and
 * nothing held; FALSE when src has no frame (not a tensorsrc). */
gboolean gstc_src_frame_create (GstPushSrc * src, GstBuffer ** out,
    GstFlowReturn * ret);

/* pattern=app: queues slot (taken from s's ring by the application,
 * its bracket as it left it) as the next frame, with PTS pts. The caller
 * checked that the ring is s's and the stream not ended. */
void gstc_src_app_push (GstcSrcFrame * s, int slot, guint64 pts);

/* pattern=app: gives every queued slot back to s's ring, its write
 * bracket left; the number given back. Where no create runs (a seek,
 * a new ring, a stop). */
int gstc_src_app_drain (GstcSrcFrame * s);

/* pattern=app: the frames queued are the last (EOS after them); FALSE
 * clears it (a start). */
void gstc_src_app_set_eos (GstcSrcFrame * s, gboolean eos);

/* The PTS and duration of frame n at fps_n/fps_d (n × fps_d / fps_n s,
 * without drift); GST_CLOCK_TIME_NONE for an unknown or variable rate,
 * or a time that does not fit 64 bits (then the duration too). */
void gstc_src_frame_times (guint64 n, gint fps_n, gint fps_d, guint64 * pts,
    guint64 * dur);

/* The number of the frame at stream time pos at fps_n/fps_d (pos ×
 * fps_n / (fps_d s), rounded down); 0 for an unknown or variable rate or
 * no position; G_MAXUINT64 when it does not fit. */
guint64 gstc_src_frame_at (guint64 pos, gint fps_n, gint fps_d);

/* Writes pattern's frame n into data[0..size) (tensorsrc's fill). */
void gstc_src_fill (guint8 * data, gsize size, int pattern, guint64 n);

#endif /* TENSORSRC_SRCFRAME_H */
