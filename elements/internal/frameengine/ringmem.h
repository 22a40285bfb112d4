/* ringmem.h: C side of ringmem.go — tensorsrc's recyclable ring memory:
 * its record, its dispose hook, the frame buffer around it and the probe
 * that announces its frames with a GstTensorSync begin event. */
#ifndef GSTC_RINGMEM_H
#define GSTC_RINGMEM_H

#include "cgo.h"
#include "gsttensorsync.h"
#include "endtally.h"
#include "outring.h"

/* The ring state of a recyclable memory, attached to it as qdata. When
 * the memory's last reference is dropped its dispose asks Go whether the
 * ring keeps it; if so it is resurrected (same object, same qdata). */
typedef struct
{
  uintptr_t owner;              /* Go handle of the MemRing */
  int slot;
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
  /* The output ring that takes the memory back in C (a reference), or
   * NULL: Go's MemRing does (gstcGoRingMemReturned). */
  GstcOutRing *out;
} GstcRingMem;

/* Attach the ring record (slot of the MemRing whose handle is owner) to
 * mem and give mem the dispose hook that offers it back to the ring. If
 * tally is not NULL, mem is tracked in it (a reference is taken) until
 * it is freed. */
void gstc_ring_mem_attach (GstMemory * mem, uintptr_t owner, int slot,
    GstcEndTally * tally);

/* Makes mem's return (slot: its id in out) gstc_out_ring_returned's
 * business instead of Go's; takes a reference of out, dropped when mem
 * is freed. mem must be a ring memory. */
void gstc_ring_mem_return_to (GstMemory * mem, GstcOutRing * out);

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
gboolean gstc_ring_mem_get (GstMemory * mem, int *slot,
    GstTensorSyncInfo * ts, int *announce);

/* A buffer probe on pad that pushes each ring frame's pending begin event
 * right before the buffer. */
gulong gstc_add_announcer (GstPad * pad);

#endif /* GSTC_RINGMEM_H */
