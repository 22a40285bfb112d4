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

/* The pool an element proposed last and the configuration it was made
 * for: an identical query gets the same pool (a producer that keeps it
 * keeps its buffers, so nothing is imported or bound again). The cache
 * holds a reference of the pool and of its allocator. */
typedef struct _GstcPoolCache GstcPoolCache;

GstcPoolCache *gstc_pool_cache_new (void);
/* As gstc_propose_pinned_pool, with at most max_buffers buffers (0: no
 * limit), reusing the cached pool when the query's caps and every
 * argument are the ones it was made for. Returns 1 and sets *reused, or 0
 * if a new pool refused its configuration. */
int gstc_pool_cache_propose (GstcPoolCache * c, GstQuery * q,
    gboolean video, guint size, guint min_buffers, guint max_buffers,
    int kind, gboolean adopt_writes, gboolean * reused);
/* Drops the cache's references (the pool lives on in a producer that
 * took it) and frees the cache. */
void gstc_pool_cache_free (GstcPoolCache * c);

/* The n-th pool of an ALLOCATION query (q: a GstQuery), with its
 * parameters: its address only (the reference is dropped before
 * returning; an identity for tests). FALSE if there is no n-th pool. */
gboolean gstc_allocation_pool (gpointer q, guint n, GstBufferPool ** pool,
    guint * size, guint * min_buffers, guint * max_buffers);

#endif
