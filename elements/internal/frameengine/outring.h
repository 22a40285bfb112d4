/* outring.h: an element's ring of output slots in C — tensorinfer's
 * outputs, tensorsrc's frames — as one unit with its memories and their
 * end tally (outring.c, ringmem.c, endtally.c):
 *
 * - the ring: which slots are free, which memories are downstream,
 *   which write brackets are open. Go (a frame it runs, a stop) and C (a
 *   frame engine, a memory's return on any thread) share it under its
 *   lock, which is never held across an ioctl, a call into Go or an
 *   unref of a ring memory;
 * - its memories: fd memories that come back to the ring when their last
 *   holder drops them (a GstMiniObject dispose hook, on whatever thread),
 *   the frame buffer around one, and the pad probe that announces each
 *   frame with a GstTensorSync begin event;
 * - a source's end tally: which of its memories are in flight, so that
 *   its event vfunc counts the GstTensorSync end events readers send
 *   upstream without calling Go. */
#ifndef GSTC_OUTRING_H
#define GSTC_OUTRING_H

#include "cgo.h"
#include "gsttensorsync.h"
#include "cbracket.h"
#include "wake.h"
#include "counters.h"

#define GSTC_OUT_MAX_SLOTS 64
#define GSTC_OUT_MAX_TENSORS 16

/* ---- the end tally (endtally.c) ------------------------------------ */

/* A source element's tally: qdata of the element (gstc_end_tally_attach)
 * holding one reference, and one more for each ring memory tracked in it
 * (a memory can outlive its element downstream). lock guards mems, each
 * tracked memory's in-flight state and bracket, and the counters; it is
 * never held across a call out. A GLib atomic rc box (ref and unref
 * below). */
typedef struct
{
  GMutex lock;
  GPtrArray *mems;              /* GstcRingMem *, not owned */
  guint64 reader_ends;          /* ends about a frame of this run in flight */
  guint64 other_ends;           /* ends about none */
  guint run;                    /* frames made from now on are of this run */
} GstcEndTally;

/* The tally of element (attached on the first call). */
GstcEndTally *gstc_end_tally_attach (GstElement * element);

/* The tally of obj (an element), or NULL if none is attached. */
GstcEndTally *gstc_end_tally_of (gpointer obj);

GstcEndTally *gstc_end_tally_ref (GstcEndTally * t);
void gstc_end_tally_unref (GstcEndTally * t);

/* Starts a new run: frames made before it are not the run's (an end
 * about one of them is an other end). */
void gstc_end_tally_new_run (GstcEndTally * t);

/* Counts end event ts: TRUE (a reader end) if a tracked memory is in
 * flight with a frame of the current run whose bracket ts names (dev,
 * ino, offset, seqnum), FALSE (an other end) otherwise. */
gboolean gstc_end_tally_count (GstcEndTally * t, const GstTensorSyncInfo * ts);

/* Reads the counters. */
void gstc_end_tally_read (GstcEndTally * t, guint64 * reader_ends,
    guint64 * other_ends);

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
  GstcCounters *counters;
  /* wake: signalled by a free when a thread waits on it (the frame
   * engine's wait for a slot); a reference, under lock; NULL: none. */
  GstcWake *wake;
} GstcOutRing;

GstcOutRing *gstc_out_ring_new (GstcCounters * c);
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

/* gstc_out_ring_add_slot, the slot added taken (busy) for its adder —
 * who publishes what else it keeps of the slot before anyone else can
 * take it, then pushes it or gives it back: a ring that grows while
 * others wait for its slots. */
int gstc_out_ring_add_taken_slot (GstcOutRing * r, int n, GstMemory ** mems,
    const GstcBracket * b, const guint64 * dev, const guint64 * ino,
    const guint64 * offset);

/* The free slot freed last (never-used ones last, lowest first), now
 * busy; -1 if none or closed. */
int gstc_out_ring_take (GstcOutRing * r);

/* gstc_out_ring_take, waiting on w (the element's wake, which the
 * ring's frees signal) while every slot is busy — a wait counted in c's
 * GSTC_RING_WAITS as it begins: the frame engines' wait. -1 when a
 * flush, a stop or a seek ended it. */
int gstc_out_ring_take_waiting (GstcOutRing * r, GstcWake * w,
    GstcCounters * c);

/* gstc_out_ring_take, waiting on w (which r's frees signal:
 * gstc_out_ring_set_wake) while every slot is busy, until w is
 * interrupted after gen was read (gstc_wake_gen): then -1. For a wait
 * off the streaming thread that a flush must not end — tensorsrc's
 * application's Acquire, from any number of threads. r NULL: only the
 * interrupt is waited for. */
int gstc_out_ring_take_until_interrupted (GstcOutRing * r, GstcWake * w,
    gint gen);

/* gstc_out_ring_take_waiting with a bound and no count: waits on w
 * while every slot is busy until end_time (g_get_monotonic_time's
 * clock, µs; negative: no bound). The slot; -1 when a flush, a stop or a
 * seek ended the wait; -2 when end_time passed with no slot free (a
 * source that grows its ring when none comes back: tensorsrc). */
int gstc_out_ring_take_waiting_until (GstcOutRing * r, GstcWake * w,
    gint64 end_time);

/* gstc_out_ring_take_until_interrupted with a bound: -2 when end_time
 * (as above) passed with no slot free and no interrupt. */
int gstc_out_ring_take_until_interrupted_or (GstcOutRing * r, GstcWake * w,
    gint gen, gint64 end_time);

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

/* ---- the ring's memories (ringmem.c) ------------------------------- */

/* The ring state of a memory, attached to it as qdata. When the
 * memory's last reference is dropped its dispose asks the ring
 * (gstc_out_ring_returned) whether it keeps it; if so it is resurrected
 * (same object, same qdata: a reader's pin cache entry stays valid). */
typedef struct
{
  GstcOutRing *out;             /* the ring (a reference, dropped when freed) */
  int id;                       /* slot * GSTC_OUT_MAX_TENSORS + tensor */
  int announce;                 /* the next push of this memory is announced */
  gsize offset, size;           /* the memory's region when wrapped: a
                                 * downstream gst_buffer_resize changes it
                                 * in place, and each frame starts from it */
  /* The end tally the memory is tracked in (a reference), or NULL. With
   * a tally, its lock guards ts (but for ts.pts) and in_flight. */
  GstcEndTally *tally;
  gboolean in_flight;           /* in a frame buffer, not returned yet */
  guint run;                    /* the tally's run when the frame was made */
  GstTensorSyncInfo ts;         /* bracket of the current frame */
} GstcRingMem;

/* Makes mem (the caller's reference) memory id of ring out (which takes
 * a reference of it until mem is freed): its dispose offers it back to
 * out. If tally is not NULL, mem is tracked in it (a reference is
 * taken) until it is freed. */
void gstc_ring_mem_attach (GstMemory * mem, GstcOutRing * out, int id,
    GstcEndTally * tally);

/* Moves the caller's reference of mem into a new buffer and records the
 * frame's GstTensorSync on mem. The fields come as scalars, so that Go
 * passes no pointer (a pointer argument would make the Go value escape:
 * one allocation per frame). */
GstBuffer *gstc_ring_frame_new (GstMemory * mem, guint64 pts,
    guint64 duration, guint64 offset, int announce, int phase, int access,
    guint64 dev, guint64 ino, guint64 moffset, guint seqnum);

/* Puts mem's offset and size back to its region when wrapped: a
 * downstream gst_buffer_resize changes them in place, and the memory
 * comes back as the same object. The caller holds the only reference of
 * mem (the ring's, before it hands the memory out). A memory that is not
 * a ring memory is left alone. */
void gstc_ring_mem_restore (GstMemory * mem);

/* The ring record of mem; FALSE if mem is not a ring memory. */
gboolean gstc_ring_mem_get (GstMemory * mem, int *id,
    GstTensorSyncInfo * ts, int *announce);

/* A buffer probe on pad that pushes each ring frame's pending begin event
 * right before the buffer. */
gulong gstc_add_announcer (GstPad * pad);

#endif /* GSTC_OUTRING_H */
