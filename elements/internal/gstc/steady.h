/* steady.h: C side of steady.go — tensorinfer's steady frame, done in C
 * inside prepare_output_buffer with no call into Go: the input's pinned
 * slot found by its memory's qdata and bound with this layout, a free
 * output slot, the input's read bracket joined and the outputs' write
 * brackets opened (on the state words package tensor shares), ONNX
 * Runtime's RunWithBinding on the pair's IoBinding, the input ended and
 * the output buffer made; its run is timed as package infer's (every
 * run's wall time, a sample's thread CPU time). Any frame that is not
 * steady — first binding, a copy, a conversion, a fence to wait for, no
 * free slot, an error — goes to Go instead, which runs it the same way
 * with everything Go has (waits, errors, logs). */
#ifndef GSTC_STEADY_H
#define GSTC_STEADY_H

#include "cgo.h"
#include "cbracket.h"
#include "outring.h"
#include "pending.h"

#define GSTC_STEADY_MAX_INPUTS 64

/* One input slot bound once: the pin cache entry whose memories carry
 * tag as qdata (under the steady's qkey), over the memory region
 * [mem_offset, mem_offset + mem_size) — the input's bracket and its
 * identity — bound with the model's input at offset with row stride
 * stride; io[k]: the OrtIoBinding of this slot and output slot k (NULL:
 * not bound, or the slot is converted on every run). Go holds a
 * reference of the entry (its tensor, fd and pin) while the record is in
 * the table. */
typedef struct
{
  uintptr_t tag;
  guint64 mem_offset, mem_size;
  GstcBracket bracket;
  guint64 dev, ino;
  guint64 offset;
  gint stride;
  void *io[GSTC_OUT_MAX_SLOTS];
  guint64 used;                 /* the steady's use count at its last frame */
} GstcSteadyInput;

typedef void *(*GstcRunFunc) (void *session, void *io);
typedef void (*GstcReleaseFunc) (void *status);

/* Go builds and changes it on the streaming thread only (or while no
 * thread streams: before the first frame, after stop), which is where
 * gstc_steady_frame reads it, so it has no lock. The ring and the
 * counters are references. */
typedef struct
{
  gboolean enabled;
  GQuark qkey;
  GstcPending *begins;
  GstcOutRing *ring;
  GstcInferCounters *counters;
  void *session;
  GstcRunFunc run;
  GstcReleaseFunc release_status;
  /* The caps' layout of the input when a buffer has no GstVideoMeta. */
  guint64 default_offset;
  gint default_stride;
  int n_in;
  GstcSteadyInput in[GSTC_STEADY_MAX_INPUTS];
  guint64 seq;                  /* the next output frame's seqnum (Go's too) */
  guint64 uses;                 /* frames done here (GstcSteadyInput.used) */
  /* The run clock of package infer (runclock.go), for the runs done
   * here: every run's wall time; the thread's CPU time of a sample. */
  int until_sample;
  guint64 timed;
  gint64 pair_ns;
  guint64 sample_period_ns;
  int sample_max;
} GstcSteady;

GstcSteady *gstc_steady_new (GstcOutRing * ring, GstcInferCounters * c);
void gstc_steady_free (GstcSteady * s);

/* Makes s the steady frame of element (NULL: none). */
void gstc_steady_set (GstElement * element, GstcSteady * s);

/* The frame of in done in C, into *out (the caller's): TRUE; FALSE,
 * with nothing held, if the frame is not steady and Go must run it.
 * What it did before it found out is counted as done (a run that
 * failed: its time; output brackets opened and closed again). */
gboolean gstc_steady_frame (GstBaseTransform * t, GstBuffer * in,
    GstBuffer ** out);

#endif /* GSTC_STEADY_H */
