/* lifopool.h: buffer pools that hand out the most recently returned buffer
 * first (see lifopool.c for why and for ownership). */
#ifndef GSTC_LIFOPOOL_H
#define GSTC_LIFOPOOL_H

#include <gst/gst.h>

/* Returns a new pool (transfer full, not floating): a GstVideoBufferPool
 * when video is TRUE, else a plain GstBufferPool, either keeping its free
 * buffers in a last-in first-out stack. */
GstBufferPool *gstc_lifo_pool_new (gboolean video);

/* Returns how many free buffers pool keeps (pool borrowed; a pool made by
 * gstc_lifo_pool_new), or -1 for any other pool. For tests. */
gint gstc_lifo_pool_kept (GstBufferPool * pool);

#endif
