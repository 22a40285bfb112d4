/* pending.h: C side of pending.go — the GstTensorSync begin events an
 * element has received and not yet matched to their buffers, kept in C
 * so that the sink-event trampolines store a begin without calling Go. */
#ifndef GSTC_PENDING_H
#define GSTC_PENDING_H

#include "cgo.h"
#include "gsttensorsync.h"

/* More than a few frames between an announcement and its buffer means
 * the buffer is not coming (dropped or filtered upstream). */
#define GSTC_PENDING_MAX 16

/* An element's pending begins: qdata of the element (gstc_pending_attach),
 * freed with it. lock guards the rest; it is never held across a call
 * out (a push, Go). */
typedef struct
{
  GMutex lock;
  int n;
  guint displaced;              /* expired by trampoline adds since Go last asked */
  GstTensorSyncInfo e[GSTC_PENDING_MAX];
} GstcPending;

/* The store of element (attached on the first call). Safe from any
 * thread. */
GstcPending *gstc_pending_attach (GstElement * element);

/* The store of obj (an element), or NULL if none is attached. */
GstcPending *gstc_pending_of (gpointer obj);

/* Records ts; returns how many pending begins it displaced: the same
 * buffer announced again (its earlier frame never arrived) or, when full,
 * the oldest. */
int gstc_pending_add (GstcPending * p, const GstTensorSyncInfo * ts);

/* gstc_pending_add for the event trampolines: the displaced count waits
 * in p->displaced for the next match or clear. */
void gstc_pending_store (GstcPending * p, const GstTensorSyncInfo * ts);

/* For a sink-event vfunc (transfer full): if ev is a GstTensorSync begin,
 * takes it (unrefs ev) and returns TRUE. A serialized begin, in order with
 * the buffers, is stored in element's pending begins for its buffer to
 * match (*stored TRUE); an out-of-band one, on the sender's thread, cannot
 * announce the next buffer and is refused (*stored FALSE). Any other event
 * is left to the caller (FALSE). */
gboolean gstc_pending_take_begin (GstElement * element, GstEvent * ev,
    gboolean * stored);

/* Removes the begin announcing the buffer at offset of the dma-buf
 * (dev, ino) whose GST_BUFFER_OFFSET is buf_offset (the producer's
 * seqnum, or GST_BUFFER_OFFSET_NONE) into *out and returns TRUE; FALSE if
 * none. Begins of the same buffer with an older seqnum are stale and
 * removed; *expired counts them and the begins the trampolines displaced
 * since the last match or clear. */
gboolean gstc_pending_match (GstcPending * p, guint64 dev, guint64 ino,
    guint64 offset, guint64 buf_offset, GstTensorSyncInfo * out,
    int *expired);

/* Forgets every pending begin; returns how many there were, plus the
 * begins the trampolines displaced since the last match or clear. */
int gstc_pending_clear (GstcPending * p);

#endif /* GSTC_PENDING_H */
