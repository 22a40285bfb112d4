/* sinkframe.h: tensorpinsink's frame (sinkframe.c, its Go side
 * sinkframe.go), every frame, in one place: a lease taken (a wait that a returned lease ends,
 * and unlock, a flush or a stop; with drop the frame is dropped), the
 * buffer's memories found by their qdata in a table Go fills (or the
 * buffer copied into the lease's own pinned memory), their read brackets
 * joined or opened after their fences (inputread.h), the begin event
 * that announced the buffer matched, the bracket's begin posted
 * (post-sync-messages), new-frame emitted, and the frame released when
 * its lease returns — from the streaming thread, a Go application's
 * Release on any thread, or stop. Go is entered only for what only Go
 * can do, through one call each: a buffer the table or the plans do not
 * have (gstcGoSinkInput: a pin-cache import, a new plane layout), a Go
 * consumer of the frame (gstcGoSinkDeliver), and an input whose last
 * lease returns after Go let go of it (gstcGoSinkInputFree). */
#ifndef TENSORPINSINK_SINKFRAME_H
#define TENSORPINSINK_SINKFRAME_H

#include "cgo.h"
#include "inputread.h"
#include "pending.h"
#include "wake.h"
#include "counters.h"

#define GSTC_SINK_MAX_PLANES 16
#define GSTC_SINK_MAX_MEMS 16
#define GSTC_SINK_MAX_INPUTS 64
#define GSTC_SINK_MAX_PLANS 4

/* The element's counters (tensorpinsink's stats, counters.h: after the
 * ring's, which the sink does not use), attached to the element for its
 * lifetime: a frame released after stop counts too. */
enum
{
  GSTC_SINK_FRAMES = GSTC_COUNTERS_OWN,
  GSTC_SINK_HITS,
  GSTC_SINK_MISSES,
  GSTC_SINK_EVICTIONS,
  GSTC_SINK_MMAPS,
  GSTC_SINK_SYNCS,
  GSTC_SINK_JOINED,
  GSTC_SINK_BEGINS_MATCHED,
  GSTC_SINK_BEGINS_EXPIRED,
  GSTC_SINK_BEGINS_REJECTED,
  GSTC_SINK_COPIES,
  GSTC_SINK_BYTES_COPIED,
  GSTC_SINK_DROPPED,
  GSTC_SINK_CLOSED_AT_STOP,
  GSTC_SINK_WAITS_FOR_LEASE,
  GSTC_SINK_POOLS_PROPOSED,
  GSTC_SINK_HANDLER_PANICS,
  GSTC_SINK_CACHE_CAPACITY,
  GSTC_SINK_FENCE_WAITS,
  GSTC_SINK_FENCE_WAIT_NS,
  GSTC_SINK_FENCE_WAIT_MAX_NS,
  GSTC_SINK_FENCE_TIMEOUTS,
  GSTC_SINK_LEASES,             /* outstanding (signed) */
  GSTC_SINK_COUNTERS_END
};

/* One region the table knows (inputread.h's), reference counted: the
 * table's and each lease's. keep: Go's handle of the pin cache entry,
 * released (gstcGoSinkInputFree) when the last reference goes after the
 * table let go of it; fresh: imported, no frame yet (PlaneNewSlot). */
typedef struct
{
  GstcInput in;
  gint refs;
  int slot;
  gint fresh;
  uintptr_t keep;
  guint64 used;
} GstcSinkInput;

/* A frame layout Go worked out for buffers like this one: the key (the
 * video meta's planes, or none; the memories' sizes and which are fd)
 * and where each plane is — in memory mem at skip (fd), or at skip of
 * the buffer (copy) — with its extent and row stride. */
typedef struct
{
  gboolean valid, copy, video;
  gboolean has_meta;
  guint meta_width, meta_height, meta_n;
  gsize meta_offset[GST_VIDEO_MAX_PLANES];
  gint meta_stride[GST_VIDEO_MAX_PLANES];
  guint n_mem;
  gsize mem_size[GSTC_SINK_MAX_MEMS];
  guint fd_mask;
  gsize size;
  int n_planes;
  struct
  {
    int mem;
    guint64 skip, extent;
    guint stride;
  } p[GSTC_SINK_MAX_PLANES];
} GstcSinkPlan;

enum
{ GSTC_LEASE_FREE, GSTC_LEASE_FILLING, GSTC_LEASE_HELD, GSTC_LEASE_RELEASING };

/* One of max-leases frame records. */
typedef struct
{
  int state;
  guint64 gen;                  /* changes at each release */
  GstBuffer *buf;
  int nmem;
  GstcSinkInput *mem[GSTC_SINK_MAX_PLANES];
  guint new_mask;               /* mems just imported */
  int nplanes;
  struct
  {
    int m;                      /* index into mem */
    guint8 *addr;
    guint64 size, offset;
    guint stride;
  } plane[GSTC_SINK_MAX_PLANES];
  GstcSinkInput *copy_in;       /* the lease's own memory (Go's) */
  gboolean copied, announced;
  gboolean closed, closing_at_stop, release_deferred;
  GstTensorSyncInfo sync;
  guint64 pts;
} GstcSinkLease;

/* The engine of one run (start to stop) and of its frames after it:
 * Go's reference until stop, one per outstanding lease. lock guards the
 * leases' states and the free list; the table and the plans are the
 * streaming thread's (Go changes them there, or while nothing streams).
 * The settings are atomics Go sets from any thread. */
typedef struct
{
  gint refs;
  GMutex lock;
  GstElement *element;
  GstPad *pad;
  GstcWake *wake;
  GstcPending *begins;
  GstcCounters *counters;
  GQuark qkey;
  guint new_frame;
  gint ready, drop, emit_signals, post_sync, go_consumer;
  gint sync_timeout_ms, drop_on_timeout;
  int max;
  GstcSinkLease *l;
  int *free;
  int nfree;
  gboolean retired;
  int n_plans, next_plan;
  GstcSinkPlan plans[GSTC_SINK_MAX_PLANS];
  int n_in;
  GstcSinkInput *in[GSTC_SINK_MAX_INPUTS];
  guint64 uses;
} GstcSinkFrame;

GstcSinkFrame *gstc_sink_frame_new (GstElement * element, int max_leases);

/* Makes s the engine of element's renders (NULL: none). */
void gstc_sink_frame_set (GstElement * element, GstcSinkFrame * s);

/* render: FALSE when element has no engine. */
gboolean gstc_sink_frame_render (GstBaseSink * sink, GstBuffer * buf,
    GstFlowReturn * ret);

/* gstc_sink_frame_render's flow, or G_MININT without an engine (no
 * pointer for a Go caller to pass). */
static inline int
gstc_sink_frame_render_flow (GstBaseSink * sink, GstBuffer * buf)
{
  GstFlowReturn ret;

  return gstc_sink_frame_render (sink, buf, &ret) ? (int) ret : G_MININT;
}

/* The index of the plan that lays out buf, or -1. */
int gstc_sink_frame_plan_of (GstcSinkFrame * s, GstBuffer * buf);

/* Adds a region to the table (one reference, the table's); NULL if full. */
GstcSinkInput *gstc_sink_frame_add_input (GstcSinkFrame * s,
    const GstcInput * in, int slot, uintptr_t keep, gboolean fresh);

/* Makes a region lease i's copy memory (fresh; the one before goes). */
void gstc_sink_frame_set_lease_copy (GstcSinkFrame * s, int i,
    const GstcInput * in, int slot, uintptr_t keep);

/* Removes table input i (the last takes its index); TRUE when its last
 * reference went with it (the caller releases the entry), FALSE when a
 * lease still holds it (gstcGoSinkInputFree releases it later). */
gboolean gstc_sink_frame_remove_input (GstcSinkFrame * s, int i);

/* Sets plan i (i == n_plans: a new one; i == GSTC_SINK_MAX_PLANS: the
 * next to replace); returns its index. */
int gstc_sink_frame_set_plan (GstcSinkFrame * s, const GstcSinkPlan * p);

/* Forgets the plans (caps changed). */
void gstc_sink_frame_clear_plans (GstcSinkFrame * s);

/* At stop: no more frames; leaves the brackets of held frames (their
 * release finishes the rest) and returns how many. */
int gstc_sink_frame_retire (GstcSinkFrame * s);

/* Drops a reference (Go's at stop, after retire). */
void gstc_sink_frame_unref (GstcSinkFrame * s);

/* Releases lease i of generation gen; FALSE if it is not held in that
 * generation (stale). Any thread. */
gboolean gstc_sink_frame_release (GstcSinkFrame * s, int i, guint64 gen);

/* A reference of lease i's buffer if it is held in generation gen. */
GstBuffer *gstc_sink_frame_lease_buffer (GstcSinkFrame * s, int i,
    guint64 gen);

#endif /* TENSORPINSINK_SINKFRAME_H */
