/* endtally.h: C side of endtally.go — which of a source's ring memories
 * are in flight, so that its event trampoline counts the GstTensorSync
 * end events readers send upstream without calling Go. */
#ifndef GSTC_ENDTALLY_H
#define GSTC_ENDTALLY_H

#include "cgo.h"
#include "gsttensorsync.h"

/* A source element's tally: qdata of the element (gstc_end_tally_attach)
 * holding one reference, and one more for each ring memory tracked in it
 * (a memory can outlive its element downstream). lock guards mems, each
 * tracked memory's in-flight state and bracket, and the counters; it is
 * never held across a call out. */
typedef struct
{
  gint refs;
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

#endif /* GSTC_ENDTALLY_H */
