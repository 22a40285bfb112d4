/* outring.h: C side of outring.go — an element's ring of output slots
 * (tensorinfer's outputs, tensorsrc's frames): which slots are free, which memories are downstream,
 * which write brackets are open. Go (a frame it runs, a stop) and C (a
 * frame engine, a memory's return on any thread) share it under its
 * lock, which is never held across an ioctl, a call into Go or an unref
 * of a ring memory. */
#ifndef GSTC_OUTRING_H
#define GSTC_OUTRING_H

#include "cgo.h"
#include "cbracket.h"
#include "wake.h"

#define GSTC_OUT_MAX_SLOTS 64
#define GSTC_OUT_MAX_TENSORS 16

/* Counters an element keeps in C, added into its stats by Go:
 * refcounted, as a ring memory returning after the element is gone
 * still counts its write bracket's close. */
enum
{
  GSTC_INFER_FRAMES,            /* frames made in C */
  GSTC_INFER_HITS,
  GSTC_INFER_IN_SYNCS,
  GSTC_INFER_BEGINS_MATCHED,
  GSTC_INFER_BEGINS_EXPIRED,
  GSTC_INFER_END_EVENTS_SENT,
  GSTC_INFER_OUT_OPENED,
  GSTC_INFER_OUT_CLOSED,
  GSTC_INFER_RUNS,
  GSTC_INFER_RUN_NS,
  GSTC_INFER_RUN_CPU_NS,
  GSTC_INFER_RUN_WALL_SAMPLED,
  GSTC_INFER_RUNS_CPU_SAMPLED,
  GSTC_INFER_OUT_ENDED,         /* closes that did the END ioctl */
  GSTC_INFER_OUT_SYNC_ERRORS,   /* ENDs that failed, and tensorsrc's C STARTs */
  /* the frame engines (inferframe.h, srcsteady.h) */
  GSTC_INFER_WAITS,             /* frames that waited for a slot */
  GSTC_INFER_DROPPED,           /* frames dropped at a fence timeout */
  GSTC_INFER_FENCE_WAITS,       /* fence waits that blocked */
  GSTC_INFER_FENCE_TIMEOUTS,
  GSTC_INFER_FENCE_WAIT_NS,     /* their time, summed (tensorsrc) */
  GSTC_INFER_FENCE_WAIT_MAX_NS, /* the longest (tensorsrc) */
  GSTC_INFER_COPIES,            /* inputs copied into the element's memory */
  GSTC_INFER_BYTES_COPIED,
  GSTC_INFER_PREPROCESSED,
  GSTC_INFER_PREPROCESS_NS,
  GSTC_INFER_GO_FRAMES,         /* frames that called Go (gstcGoInferInput) */
  GSTC_INFER_N
};

typedef struct
{
  gint refs;
  guint64 v[GSTC_INFER_N];
} GstcInferCounters;

GstcInferCounters *gstc_infer_counters_new (void);
/* The block of element, attached on the first call, freed with the
 * element (and the rings that count into it). */
GstcInferCounters *gstc_infer_counters_of (GstElement * element);
GstcInferCounters *gstc_infer_counters_ref (GstcInferCounters * c);
void gstc_infer_counters_unref (GstcInferCounters * c);

static inline void
gstc_infer_count (GstcInferCounters * c, int i, guint64 n)
{
  __atomic_add_fetch (&c->v[i], n, __ATOMIC_RELAXED);
}

static inline guint64
gstc_infer_load (GstcInferCounters * c, int i)
{
  return __atomic_load_n (&c->v[i], __ATOMIC_RELAXED);
}

static inline void
gstc_infer_zero (GstcInferCounters * c, int i)
{
  __atomic_store_n (&c->v[i], 0, __ATOMIC_RELAXED);
}

/* One output tensor of a slot. mem: the ring's reference while held
 * (the slot's memory is not downstream); the tensor behind bracket.fd
 * is Go's (its ring), open until the memory is freed. */
typedef struct
{
  GstMemory *mem;
  GstcBracket bracket;
  guint64 dev, ino, offset;     /* for the frame's GstTensorSync begin */
  gboolean held, out, open;
} GstcOutTensor;

typedef struct
{
  int n;
  GstcOutTensor t[GSTC_OUT_MAX_TENSORS];
  gboolean busy;                /* from take until every memory came back */
  int pending;                  /* memories still downstream */
  guint64 freed_at;             /* take hands out the highest (0: never used) */
} GstcOutSlot;

typedef struct
{
  gint refs;                    /* Go's ring, and each memory until freed */
  GMutex lock;
  int n;
  GstcOutSlot slots[GSTC_OUT_MAX_SLOTS];
  guint64 free_clock;
  gboolean closed;
  GstcInferCounters *counters;
  /* wake: signalled by a free when a thread waits on it (the frame
   * engine's wait for a slot); a reference, under lock; NULL: none. */
  GstcWake *wake;
} GstcOutRing;

GstcOutRing *gstc_out_ring_new (GstcInferCounters * c);
void gstc_out_ring_unref (GstcOutRing * r);

/* Makes every free of r signal w (the wake of the element whose frames
 * wait for r's slots): r takes a reference of w (and drops the one it
 * had), under its lock; a closed ring keeps none. */
void gstc_out_ring_set_wake (GstcOutRing * r, GstcWake * w);

/* Adds a slot of n tensors (mems: the ring's references; the memories
 * must be ring memories of this ring: gstc_ring_mem_return_to). Its
 * index, or -1 if the ring is full or closed (nothing taken). */
int gstc_out_ring_add_slot (GstcOutRing * r, int n, GstMemory ** mems,
    const GstcBracket * b, const guint64 * dev, const guint64 * ino,
    const guint64 * offset);

/* The free slot freed last (never-used ones last, lowest first), now
 * busy; -1 if none or closed. */
int gstc_out_ring_take (GstcOutRing * r);

/* gstc_out_ring_take, waiting on w (the element's wake, which the
 * ring's frees signal) while every slot is busy — a wait counted in c's
 * GSTC_INFER_WAITS as it begins: the frame engines' wait. -1 when a
 * flush, a stop or a seek ended it. */
int gstc_out_ring_take_waiting (GstcOutRing * r, GstcWake * w,
    GstcInferCounters * c);

/* gstc_out_ring_take, waiting on w (which r's frees signal:
 * gstc_out_ring_set_wake) while every slot is busy, until w is
 * interrupted after gen was read (gstc_wake_gen): then -1. For a wait
 * off the streaming thread that a flush must not end — tensorsrc's
 * application's Acquire, from any number of threads. r NULL: only the
 * interrupt is waited for. */
int gstc_out_ring_take_until_interrupted (GstcOutRing * r, GstcWake * w,
    gint gen);

/* Puts back a slot taken but not pushed (its brackets left already, or
 * left here if the ring is closed: then its memories are dropped). */
void gstc_out_ring_give (GstcOutRing * r, int slot);

/* Enters the write (readwrite) bracket of each tensor of slot (taken).
 * With wait, a Busy word is waited out; without, it fails. 0 when every
 * bracket is entered; else the brackets entered are left and it returns
 * the START's errno, or -1 for a Busy word. (An int, not an out
 * parameter: Go calls it, and a pointer to a Go variable would move it
 * to the heap on every frame.) */
int gstc_out_ring_open_writes (GstcOutRing * r, int slot, gboolean wait);

/* Leaves the write brackets open on slot (a frame not pushed). */
void gstc_out_ring_close_writes (GstcOutRing * r, int slot);

/* Marks slot's memories downstream; returns its first memory, whose
 * reference (the ring's) the caller now owns, with the others' in
 * rest[0..n-2] (n: the slot's tensors, into *n). Each memory's offset
 * and size are its whole region again (gstc_ring_mem_restore), whatever
 * downstream left them at on an earlier frame. */
GstMemory *gstc_out_ring_push (GstcOutRing * r, int slot, int *n,
    GstMemory ** rest);

/* A ring memory's return (its dispose, any thread): id = slot *
 * GSTC_OUT_MAX_TENSORS + tensor. Leaves its write bracket, frees the
 * slot when every memory is back. TRUE: the ring keeps the memory. */
gboolean gstc_out_ring_returned (GstcOutRing * r, int id);

/* The ring's number of slots. */
int gstc_out_ring_size (GstcOutRing * r);

/* The ring's slots taken or downstream (not free). */
int gstc_out_ring_busy (GstcOutRing * r);

/* Tests: called by a return between leaving a memory's write bracket and
 * freeing its slot (NULL: nothing). */
extern void (*gstc_out_ring_test_hook) (GstcOutRing * r, GstcOutTensor * t);

/* Tests: the hook gstc_out_ring_probe_install installs records, for the
 * last return that left a write bracket, the bracket's state word and
 * what a take found then (a slot it found is given back). */
typedef struct
{
  int calls;
  guint64 word;
  int take;
} GstcOutRingProbe;
extern GstcOutRingProbe gstc_out_ring_probe;
void gstc_out_ring_probe_install (gboolean on);

/* Retires the ring: the memories it holds are dropped (their write
 * brackets left first), memories downstream are freed when they come
 * back, and a slot taken and not pushed keeps its memories until it is
 * given back (its taker may still write it). Idempotent. */
void gstc_out_ring_close (GstcOutRing * r);

#endif /* GSTC_OUTRING_H */
