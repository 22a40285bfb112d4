/* ringmem.h: C side of ringmem.go — tensorsrc's recyclable ring memory:
 * its record, its dispose hook, the frame buffer around it and the probe
 * that announces its frames with a GstTensorSync begin event. */
#ifndef GSTC_RINGMEM_H
#define GSTC_RINGMEM_H

#include "cgo.h"
#include "gsttensorsync.h"

/* Attach the ring record (slot of the MemRing whose handle is owner) to
 * mem and give mem the dispose hook that offers it back to the ring. */
void gstc_ring_mem_attach (GstMemory * mem, uintptr_t owner, int slot);

/* Moves the caller's reference of mem into a new buffer and records the
 * frame's GstTensorSync on mem. The fields come as scalars, so that Go
 * passes no pointer (a pointer argument would make the Go value escape:
 * one allocation per frame). */
GstBuffer *gstc_ring_frame_new (GstMemory * mem, guint64 pts,
    guint64 duration, guint64 offset, int announce, int phase, int access,
    guint64 dev, guint64 ino, guint64 moffset, guint seqnum);

/* The ring record of mem; FALSE if mem is not a ring memory. */
gboolean gstc_ring_mem_get (GstMemory * mem, int *slot,
    GstTensorSyncInfo * ts, int *announce);

/* A buffer probe on pad that pushes each ring frame's pending begin event
 * right before the buffer. */
gulong gstc_add_announcer (GstPad * pad);

#endif /* GSTC_RINGMEM_H */
