/* pinpool.h: the pool of pinned fd memory tensorpinsink proposes upstream
 * (see pinpool.go for ownership). */
#ifndef GSTC_PINPOOL_H
#define GSTC_PINPOOL_H

#include <stdlib.h>
#include <gst/gst.h>

/* Kinds of memory the proposed pool allocates. */
enum
{
  GSTC_PINPOOL_MEMFD = 0,
  GSTC_PINPOOL_DMA_HEAP = 1,
};

/* Logs a warning in the pool's debug category, tensorpin-pool. */
void gstc_pinpool_warn (const char *msg);

GstCaps *gstc_allocation_caps (GstQuery * q, gboolean * need_pool);
/* adopt_writes: the dma-heap pool's producer write brackets stay open
 * until the buffer comes back (see bracketalloc.h, defer_write_end). */
int gstc_propose_pinned_pool (GstQuery * q, gboolean video, guint size,
    guint min_buffers, int kind, gboolean adopt_writes);

#endif
