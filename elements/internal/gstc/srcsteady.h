/* srcsteady.h: C side of srcsteady.go — tensorsrc's steady frame, done
 * in C inside GstPushSrcClass.create with no call into Go: a free slot of
 * its output ring (outring.h) taken, its write bracket entered (a
 * dma-buf's only once its fences have signalled), the built-in pattern
 * written, the bracket left at once (handoff=close) or announced and left
 * when the memory comes back (handoff=adopt: the ring does it), and the
 * buffer made. Any frame that is not steady — no free slot, fences or a
 * bracket to wait for, the first frame after a start, a seek or a caps
 * change, a live source, pattern=app — goes to Go, which runs it the
 * same way with everything Go has (waits, errors, logs).
 *
 * Why in C: a C streaming thread that calls into Go keeps a Go P until
 * its next call, and while it does Go's sysmon never sleeps deeply — it
 * wakes every 20 µs to 10 ms, tens of µs of CPU a wake on this project's
 * VMs (docs/design-notes.md, "A source with no Go in its frame"). */
#ifndef GSTC_SRCSTEADY_H
#define GSTC_SRCSTEADY_H

#include "cgo.h"
#include "outring.h"

#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

/* The built-in patterns (tensorsrc's pattern property). */
enum
{
  GSTC_SRC_COUNTER,
  GSTC_SRC_GRADIENT,
  GSTC_SRC_BLACK,
  GSTC_SRC_NONE
};

/* An element's steady frame, attached to it on the first
 * gstc_src_steady_of and freed with it. Go changes it only where no
 * create runs: on the streaming thread (create, caps, allocation), under
 * the stream lock (a seek), or while the element is stopped; so it has
 * no lock. data[i] is slot i's pinned bytes, Go's (its ring's tensor
 * pins), valid while ring is the element's current ring. */
typedef struct
{
  gboolean enabled;
  /* Set by unlock (any thread), cleared by unlock_stop: a create during
   * a flush is Go's, which returns FLUSHING without using a frame. */
  gint flushing;
  GstcOutRing *ring;            /* a reference, or NULL */
  GstcInferCounters *counters;  /* a reference: frames counted here */
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
} GstcSrcSteady;

GstcSrcSteady *gstc_src_steady_of (GstElement * element);

static inline void
gstc_src_steady_set_flushing (GstcSrcSteady * s, gboolean on)
{
  g_atomic_int_set (&s->flushing, on ? 1 : 0);
}

/* Makes r (NULL: none) the ring of s, dropping the one it had, and
 * disables s. */
void gstc_src_steady_set_ring (GstcSrcSteady * s, GstcOutRing * r,
    GstcInferCounters * c);

/* The frame of src done in C, into *out (the caller's): TRUE; FALSE,
 * with nothing taken, when Go must run it. */
gboolean gstc_src_steady_create (GstPushSrc * src, GstBuffer ** out);

/* The PTS and duration of frame n at fps_n/fps_d (n × fps_d / fps_n s,
 * without drift); GST_CLOCK_TIME_NONE for an unknown or variable rate,
 * or a time that does not fit 64 bits (then the duration too). */
void gstc_src_frame_times (guint64 n, gint fps_n, gint fps_d, guint64 * pts,
    guint64 * dur);

/* Writes pattern's frame n into data[0..size) (tensorsrc's fill). */
void gstc_src_fill (guint8 * data, gsize size, int pattern, guint64 n);

#endif /* GSTC_SRCSTEADY_H */
