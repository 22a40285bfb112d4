/* syncpush.h: C side of syncpush.go — GstTensorSync events pushed
 * through a pad from a few events the pad keeps and rewrites once no one
 * else holds them, instead of a new event (structure, fields, event) per
 * frame. */
#ifndef GSTC_SYNCPUSH_H
#define GSTC_SYNCPUSH_H

#include "cgo.h"
#include "gsttensorsync.h"

/* Pushes a GstTensorSync event for info through pad (upstream: a
 * GST_EVENT_CUSTOM_UPSTREAM, else GST_EVENT_CUSTOM_DOWNSTREAM) and returns
 * gst_pad_push_event's answer; FALSE without pushing when info's phase or
 * access is out of range. The event is one of pad's cached events if one
 * is held by no one but the cache (rewritten, with a new seqnum), else a
 * new one, kept in the cache if there is room. An event someone still
 * holds (a queue, an application's probe) is never rewritten. Safe from
 * any thread. pad and info are borrowed; the cache is pad's qdata, freed
 * with pad. */
gboolean gstc_push_tensor_sync (GstPad * pad, gboolean upstream,
    const GstTensorSyncInfo * info);

/* gstc_push_tensor_sync with info's fields as scalars, so that Go passes
 * no pointer (a pointer argument would make the Go value escape). */
gboolean gstc_push_tensor_sync_fields (GstPad * pad, gboolean upstream,
    int phase, int access, guint64 dev, guint64 ino, guint64 offset,
    guint64 pts, guint seqnum);

#endif /* GSTC_SYNCPUSH_H */
