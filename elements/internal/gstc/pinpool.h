/* pinpool.h: the pool of pinned fd memory tensorpinsink proposes upstream
 * (see pinpool.go for ownership). */
#ifndef GSTC_PINPOOL_H
#define GSTC_PINPOOL_H

#include <gst/gst.h>

/* Kinds of memory the proposed pool allocates. */
enum
{
  GSTC_PINPOOL_MEMFD = 0,
  GSTC_PINPOOL_DMA_HEAP = 1,
};

GstCaps *gstc_allocation_caps (GstQuery * q, gboolean * need_pool);
int gstc_propose_pinned_pool (GstQuery * q, gboolean video, guint size,
    guint min_buffers, int kind);

#endif
