/* inferframe.h: C side of inferframe.go — tensorinfer's frame, every
 * frame, in one place: the input found by its memory's qdata (or copied
 * into the element's pinned memory), its read bracket joined or opened
 * after its fences (a poll bounded by sync-timeout that a flush or a stop
 * ends), a free output slot (a wait that a returned slot, a flush or a
 * stop ends), the outputs' write brackets opened, the fused
 * pre-processing, ONNX Runtime's RunWithBinding on the pair's IoBinding,
 * the input ended, the output buffer made (gstc_transform_finish_frame),
 * and every error posted where it happens. Go is called only for what
 * only Go can do, through one call (gstcGoInferInput): a memory the
 * table does not have yet (a pin-cache import, a binding, a new
 * pre-processing plan for a frame's video meta), and the run of an input
 * slot package infer converts before each run (gstcGoInferRun). Go
 * changes the table on the streaming thread only (those calls, caps,
 * allocation), and from start to stop. */
#ifndef TENSORINFER_INFERFRAME_H
#define TENSORINFER_INFERFRAME_H

#include "cgo.h"
#include "cbracket.h"
#include "inputread.h"
#include "outring.h"
#include "foreignmem.h"
#include "pending.h"
#include "wake.h"
#include "counters.h"
#include "preprocess.h"

#include <time.h>

/* The element's own counters (counters.h: after the ring's), read by
 * stats.go. */
enum
{
  GSTC_INFER_FRAMES = GSTC_COUNTERS_OWN,        /* frames made */
  GSTC_INFER_HITS,              /* inputs found in the table */
  GSTC_INFER_IN_SYNCS,          /* input brackets entered */
  GSTC_INFER_BEGINS_MATCHED,
  GSTC_INFER_BEGINS_EXPIRED,
  GSTC_INFER_END_EVENTS_SENT,
  GSTC_INFER_RUNS,
  GSTC_INFER_RUN_NS,
  GSTC_INFER_RUN_CPU_NS,
  GSTC_INFER_RUN_WALL_SAMPLED,
  GSTC_INFER_RUNS_CPU_SAMPLED,
  GSTC_INFER_DROPPED,           /* frames dropped at a fence timeout */
  GSTC_INFER_FENCE_WAITS,       /* fence waits that blocked */
  GSTC_INFER_FENCE_TIMEOUTS,
  GSTC_INFER_COPIES,            /* inputs copied into the element's memory */
  GSTC_INFER_BYTES_COPIED,
  GSTC_INFER_PREPROCESSED,
  GSTC_INFER_PREPROCESS_NS,     /* the pass's wall time */
  GSTC_INFER_GO_FRAMES,         /* frames that called Go (gstcGoInferInput) */
  GSTC_INFER_REGIONS,           /* regions run (inference-region=roi-list) */
  GSTC_INFER_REGIONS_SMALL,     /* regions skipped: under min-region-size */
  GSTC_INFER_REGIONS_DROPPED,   /* regions over max-regions or with no slot */
  GSTC_INFER_REGIONS_REUSED,    /* regions not run: their track had a result */
  GSTC_INFER_WRAPPED,           /* frames whose video went on in its memory's wrapper */
  GSTC_INFER_COUNTERS_END
};

#define GSTC_INFER_MAX_INPUTS 64
#define GSTC_INFER_MAX_PLANES 4

/* One input the table knows: the pin cache entry whose memories carry
 * tag as qdata (under the engine's qkey), over the memory region
 * [mem_offset, mem_offset + mem_size) — the input's bracket and its
 * identity — read at offset with row stride stride (the caps' or a video
 * meta's), at host (the region's pinned first byte). need: the bytes a
 * frame reads from offset (a shorter buffer is refused). slot: the
 * session input slot bound to it (-1: pre-processing reads it). io[k]:
 * the OrtIoBinding of slot and output slot k (NULL: the slot is
 * converted before each run: gstcGoInferRun). copy: the element's own
 * memory, which a frame that is not one fd memory is copied into (tag
 * 0, no bracket: nothing else maps it). Go holds a reference of the
 * entry (its tensor, fd and pin) while the record is in the table. */
typedef struct
{
  GstcInput in;                 /* the region (inputread.h) */
  guint64 offset;
  gint stride;
  guint64 need;
  int slot;
  void *io[GSTC_OUT_MAX_SLOTS];
  guint64 used;                 /* the engine's frame count at its last frame */
} GstcInferInput;

#define GSTC_INFER_MAX_VARIANTS 128
#define GSTC_INFER_MAX_BATCH 64
#define GSTC_INFER_MAX_CLASSES 32

/* One shape a region run takes (inference-region=roi-list): rows images
 * of dst_w x dst_h in the batch input, the shared input memory read as
 * that many; io[k] its IoBinding with output slot k (NULL: not bound yet
 * — a slot the ring grew, which Go binds: gstcGoInferVariant); caps (a
 * reference) the run's outputs' other/tensors caps, which its meta
 * carries. Go makes it (a reshaped session) when a frame first needs it,
 * and frees it at stop or a new session. */
typedef struct
{
  int rows, dst_w, dst_h;
  void *io[GSTC_OUT_MAX_SLOTS];
  GstCaps *caps;
} GstcInferVariant;

/* A region of a frame the model runs on: its GstVideoRegionOfInterestMeta
 * id and its rectangle, clipped to the frame. */
typedef struct
{
  gint id;
  gint x, y, w, h;
} GstcInferRegion;

typedef void *(*GstcRunFunc) (void *session, void *io);
typedef void (*GstcReleaseFunc) (void *status);
typedef const char *(*GstcErrorMessageFunc) (void *status);
typedef int (*GstcPreRunFunc) (const void *plan, const guint8 * src,
    size_t src_len, void *dst, size_t dst_len);


/* A track region mode has seen (reclassify-interval): its id, the frame
 * it last ran on and the last frame it was on (GstcInferFrame.seq's). */
typedef struct
{
  guint64 id;
  guint64 ran, seen;
} GstcInferTrack;

/* The engine of one element, from start to stop: Go makes it at start
 * and frees it at stop (after the streaming thread stopped), and changes
 * it on the streaming thread only, where gstc_infer_frame reads it; it
 * has no lock. The ring, the counters and the wake are references; the
 * pending begins are the element's (borrowed: it outlives the engine). */
typedef struct
{
  GstcWake *wake;
  GQuark qkey;
  GstcPending *begins;
  GstcOutRing *ring;
  GstcCounters *counters;
  /* ready: caps set and a session live; per_frame: runs are Go's, the
   * upstream way (TENSORPIN_INFER_MODE=per-frame, a benchmark aid). */
  gboolean ready, per_frame;
  void *session;
  GstcRunFunc run;
  GstcReleaseFunc release_status;
  GstcErrorMessageFunc error_message;
  char *model;                  /* for error texts */
  /* The caps' layout of the input when a buffer has no GstVideoMeta. */
  guint64 default_offset;
  gint default_stride;
  /* Fences: wait at most sync_timeout_ms (negative: no bound); at the
   * timeout drop the frame (drop_on_timeout) or fail. */
  int sync_timeout_ms;
  gboolean drop_on_timeout;
  /* Pre-processing (pre_plan non-NULL): a frame's memory read whole into
   * dst, laid out as the plan's planes (a frame whose video meta says
   * otherwise goes to Go for a new plan), run on pre_io. */
  const void *pre_plan;
  GstcPreRunFunc pre_run;
  void *pre_dst;
  size_t pre_dst_len;
  int pre_n_planes;
  gint pre_strides[GSTC_INFER_MAX_PLANES];
  guint64 pre_offsets[GSTC_INFER_MAX_PLANES];
  /* The caps' layout: a frame without a video meta is laid out so. */
  int pre_caps_n_planes;
  gint pre_caps_strides[GSTC_INFER_MAX_PLANES];
  guint64 pre_caps_offsets[GSTC_INFER_MAX_PLANES];
  void *pre_io[GSTC_OUT_MAX_SLOTS];
  int n_in;
  GstcInferInput in[GSTC_INFER_MAX_INPUTS];
  /* Region mode (regions): each frame's regions (its
   * GstVideoRegionOfInterestMetas whose type or detection label is one
   * of classes, or any with n_classes 0; clipped to the frame_w x
   * frame_h frame; at least min_size on a side; at most max_regions)
   * cropped by pre_region (pre_plan, a region plan) into batch_dst —
   * batch_max images at most a run, a variant's rows, image i at i times
   * its image's bytes — and run in batches, each batch's outputs in an
   * output slot of its own held by a GstTensorPinMeta on the video that
   * names the batch's regions. The free side of the model's image
   * (fixed_w or fixed_h 0) follows the batch's widest (tallest) region at
   * the fixed side, rounded up to free_step, at most free_max; with both
   * fixed, regions are stretched or letterboxed. regions_scratch holds
   * max_regions regions. */
  gboolean regions;
  GstppRegionFunc pre_region;
  guint8 *batch_dst;
  size_t batch_dst_len, elem_size;
  int batch_max, max_regions, min_size;
  int frame_w, frame_h;
  int fixed_w, fixed_h, free_max, free_step;
  gboolean letterbox;
  int n_classes;
  GQuark classes[GSTC_INFER_MAX_CLASSES];
  GstcInferRegion *regions_scratch;
  /* reclassify (reclassify-interval): a region whose "tracking"
   * structure names a track run on fewer than reclassify frames ago (0:
   * ever) is not run: its track's result stands. tracks: each track
   * seen, by id (a GstcInferTrack, its id the key: g_int64_hash); a
   * track not on a frame is forgotten (it ended, or left the frame). 1:
   * every region runs, no table. */
  guint reclassify;
  GHashTable *tracks;
  /* ring_base: the output ring's size before region frames grew it;
   * batches_max: the most batches a frame has run. The ring may grow to
   * ring_base x batches_max (the frames downstream may hold, each with
   * its batches' slots, and one being made), so that a frame's first
   * batch never waits for a slot only a later frame frees. */
  int ring_base, batches_max;
  int n_var;
  GstcInferVariant var[GSTC_INFER_MAX_VARIANTS];
  guint64 seq;                  /* the next output frame's seqnum */
  guint64 uses;                 /* frames made (GstcInferInput.used) */
  /* The run clock of package infer (runclock.go): every run's wall
   * time; the thread's CPU time of a sample. */
  int until_sample;
  guint64 timed;
  gint64 pair_ns;
  guint64 sample_period_ns;
  int sample_max;
} GstcInferFrame;

GstcInferFrame *gstc_infer_frame_new (GstElement * element,
    GstcCounters * c);
void gstc_infer_frame_free (GstcInferFrame * s);

/* Makes s the engine of element (NULL: none). */
void gstc_infer_frame_set (GstElement * element, GstcInferFrame * s);

/* Replaces the output ring (a reference; it signals the element's
 * wake). */
void gstc_infer_frame_set_ring (GstcInferFrame * s, GstcOutRing * ring);

/* Removes input i (the last one takes its place). */
void gstc_infer_frame_remove_input (GstcInferFrame * s, int i);

/* Frees the region variants (their caps; the sessions are Go's). */
void gstc_infer_frame_clear_variants (GstcInferFrame * s);

/* Region mode on (max_regions > 0: its scratch for that many regions)
 * or off (0). Go sets the rest of the region fields itself, where no
 * frame runs. */
void gstc_infer_frame_set_regions (GstcInferFrame * s, int max_regions);

/* Sets reclassify-interval (1: every region runs, the track table
 * dropped; 0: a track runs once; N: every N frames of a track). */
void gstc_infer_frame_set_reclassify (GstcInferFrame * s, guint interval);

/* The frame of in (borrowed): TRUE with *ret GST_FLOW_OK and *out the output buffer
 * (the caller's), or with *ret a flow error (posted),
 * GST_FLOW_FLUSHING or GST_BASE_TRANSFORM_FLOW_DROPPED and nothing
 * held; FALSE when element has no engine. With per_frame the run is Go's
 * (gstcGoInferPerFrame), the rest of the frame the engine's. */
gboolean gstc_infer_frame (GstBaseTransform * t, GstBuffer * in,
    GstBuffer ** out, GstFlowReturn * ret);

/* Matches the input buffer at offset of the dma-buf (dev, ino) with
 * GST_BUFFER_OFFSET buf_offset to its begin in p and, if there is one,
 * pushes the GstTensorSync end (the begin's access and seqnum) upstream
 * from t's sink pad. Returns bit 0: matched, bit 1: the end was handled,
 * bits 2 and up: the stale begins removed. No lock is held across the
 * push. */
int gstc_infer_end_input (GstBaseTransform * t, GstcPending * p,
    guint64 dev, guint64 ino, guint64 offset, guint64 buf_offset);

/* A frame output=video does not run (interval): its input's begin, if
 * announced, is answered as a run's would be. */
void gstc_infer_skipped_input_end (GstBaseTransform * t, GstBuffer * in);

/* What gstc_infer_finish_frame did: the output buffer (the caller's) and
 * gstc_infer_end_input's return value. */
typedef struct
{
  GstBuffer *buf;
  int end;
} GstcFinishedFrame;

/* The end of a frame's input (gstc_infer_end_input with dev ...
 * buf_offset), then its output from output slot slot of ring: the slot's
 * memories pushed (gstc_out_ring_push) into a frame buffer with in's PTS,
 * DTS and duration and offset seq, and either — output=video (the
 * element's GstcVideoOut on) — in's video (or wrapped's, in's video in
 * its memory's wrapper: gstc_foreign_lend, the caller's reference taken
 * over; NULL: none) with those tensors in a GstTensorPinMeta, or that
 * buffer itself, its begin (the slot's first tensor, seqnum seq) pushed
 * downstream from t's src pad first. GstBaseTransform pushes the
 * returned buffer next. in is borrowed. */
GstcFinishedFrame gstc_infer_finish_frame (GstBaseTransform * t,
    GstcPending * p, guint64 dev, guint64 ino, guint64 offset,
    guint64 buf_offset, GstcOutRing * ring, int slot, GstBuffer * in,
    GstBuffer * wrapped, guint64 seq);

/* The frame's steps, shared by the whole-frame frame (inferframe.c) and
 * the region frame (regions.c); on the streaming thread, inside a frame. */
gint64 gstc_infer_clock_ns (clockid_t id);
/* A free output slot, waiting while every slot is downstream; -1 when a
 * flush or a stop ended the wait. */
int gstc_infer_take_slot (GstcInferFrame * s, GstBaseTransform * t);
/* Joins or opens the input's bracket for access (GSTC_ACCESS_READ, or
 * READWRITE when its video goes on in a wrapper: gstc_infer_wraps) after
 * its fences: GST_FLOW_OK (entered), else nothing held and an error
 * posted (GST_FLOW_ERROR), or FLUSHING, or DROPPED. */
GstFlowReturn gstc_infer_enter_input (GstcInferFrame * s,
    GstBaseTransform * t, GstcInferInput * rec, int access);
/* Whether in's video goes on in the wrapper of its memory (foreignmem.h:
 * a camera's dma-buf, wrapped when Go first saw it): video goes on (video
 * is output=video's or the region mode's) and in is one memory that has
 * one. The input's bracket is then opened for read and write — the
 * access the wrapper is lent on, which covers tensoroverlay's write —
 * and the wrapper is lent before the frame leaves it. */
gboolean gstc_infer_wraps (GstcInferInput * rec, GstBuffer * in,
    gboolean video);
void gstc_infer_leave_input (GstcInferFrame * s, GstBaseTransform * t,
    GstcInferInput * rec);
/* The run of io, timed: TRUE when it ran; else the error is posted. */
gboolean gstc_infer_timed_run (GstcInferFrame * s, GstBaseTransform * t,
    void *io, int in_slot, int out_slot);
/* Counts what ending a frame's input did (gstc_infer_end_input's
 * return value). */
void gstc_infer_count_end (GstcCounters * c, int end);
/* The input's place as its producer's begin names it. */
guint64 gstc_infer_input_end_offset (GstcInferFrame * s,
    GstcInferInput * rec);
/* The end of a frame's input after it was read (or failed). */
void gstc_infer_end_input_read (GstcInferFrame * s, GstBaseTransform * t,
    GstcInferInput * rec, GstBuffer * in);

/* The frame of in in region mode (regions.c): its regions, in batches,
 * each run into an output slot held by a GstTensorPinMeta on *out (in,
 * or a copy of it); *ret as gstc_infer_frame's. rec: in's input, found. */
void gstc_infer_region_frame (GstcInferFrame * s, GstBaseTransform * t,
    GstBuffer * in, GstcInferInput * rec, GstBuffer ** out,
    GstFlowReturn * ret);

#endif /* TENSORINFER_INFERFRAME_H */
