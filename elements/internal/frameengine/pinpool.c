/* pinpool.c: the GstAllocator glue of the buffer pool tensorpinsink
 * proposes: a GstFdAllocator (memfd) and a GstDmaBufAllocator (dma-heap)
 * whose alloc takes its fd from Go's tensor.AllocFD, the project's one
 * allocator (seals, heap path and fault seams live there). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <gst/allocators/allocators.h>
#include <gst/video/video.h>
#include "pinpool.h"
#include "bracketalloc.h"
#include "lifopool.h"
#include "_cgo_export.h"

/* ---- the allocators: one alloc, two parents ----
 *
 * memfd: a GstFdAllocator making one sealed memfd per memory. dma-heap: a
 * bracket allocator (bracketalloc.c, a GstDmaBufAllocator) making one
 * heap buffer per memory, so that producers' and converters' maps of the
 * pool's dma-bufs join the process's brackets, and with handoff=adopt a
 * producer's write bracket travels with the buffer until it comes back to
 * the pool. Both take their fd from tensor.AllocFD (memfd: sealed, page
 * rounded; dma-heap: from tensor.DMAHeapPath); mmap is page aligned, so
 * any align up to a page holds. The two types differ only in their
 * parent, so one class_init and one instance_init serve both. */

/* An fd from tensor.AllocFD wrapped as a memory of allocator a (the memory
 * owns the fd from then on: closed when it is freed), the prefix set
 * aside; NULL if either fails (the fd closed). The mapping a producer
 * makes is kept across map/unmap (KEEP_MAPPED). The kind follows a's
 * parent: a DMA-BUF allocator's memories come from the heap. */
static GstMemory *
pool_alloc (GstAllocator * a, gsize size, GstAllocationParams * params)
{
  gboolean heap = GST_IS_DMABUF_ALLOCATOR (a);
  gsize total = params->prefix + size + params->padding;
  GstMemory *mem;
  int fd;

  fd = gstcGoPoolAllocFD (heap ? GSTC_PINPOOL_DMA_HEAP : GSTC_PINPOOL_MEMFD,
      total);
  if (fd < 0)
    return NULL;
  if (heap)
    mem = gst_dmabuf_allocator_alloc_with_flags (a, fd, total,
        GST_FD_MEMORY_FLAG_KEEP_MAPPED);
  else
    mem = gst_fd_allocator_alloc (a, fd, total, GST_FD_MEMORY_FLAG_KEEP_MAPPED);
  if (mem == NULL) {
    close (fd);
    return NULL;
  }
  if (params->prefix)
    gst_memory_resize (mem, params->prefix, size);
  return mem;
}

static void
pool_allocator_class_init (gpointer klass, gpointer data)
{
  GST_ALLOCATOR_CLASS (klass)->alloc = pool_alloc;
}

static void
pool_allocator_init (GTypeInstance * self, gpointer klass)
{
  /* A generic alloc exists: producers may use it through the pool. */
  GST_OBJECT_FLAG_UNSET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* The pool allocator type of the given parent, registered once as name
 * (*type holds it). */
static GType
pool_allocator_type (gsize * type, const char *name, GType parent)
{
  if (g_once_init_enter (type)) {
    GTypeQuery q;

    g_type_query (parent, &q);
    g_once_init_leave (type,
        g_type_register_static_simple (parent, g_intern_static_string (name),
            q.class_size, pool_allocator_class_init, q.instance_size,
            pool_allocator_init, 0));
  }
  return (GType) * type;
}

GST_DEBUG_CATEGORY_STATIC (pinpool_debug);

void
gstc_pinpool_warn (const char *msg)
{
  gstc_debug_once (&pinpool_debug, "tensorpin-pool",
      "buffer pool proposed by tensorpinsink");
  GST_CAT_WARNING (pinpool_debug, "%s", msg);
}

/* ---- the proposal ---- */

GstCaps *
gstc_allocation_caps (GstQuery * q, gboolean * need_pool)
{
  GstCaps *caps = NULL;

  gst_query_parse_allocation (q, &caps, need_pool);
  return caps;                  /* borrowed from the query */
}

/* Makes the allocator and (when the query asks for one and has caps) the
 * pool of a proposal; both references are the caller's (*pool NULL when
 * no pool is made). FALSE if the pool refused its configuration. */
static gboolean
make_pinned_pool (GstQuery * q, gboolean video, guint size,
    guint min_buffers, guint max_buffers, int kind, gboolean adopt_writes,
    GstAllocator ** alloc_out, GstBufferPool ** pool_out)
{
  GstAllocationParams params;
  GstAllocator *alloc;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstCaps *caps;
  gboolean need_pool = FALSE;

  *pool_out = NULL;
  gst_query_parse_allocation (q, &caps, &need_pool);
  if (kind == GSTC_PINPOOL_DMA_HEAP) {
    static gsize heap_type = 0;

    alloc = g_object_new (pool_allocator_type (&heap_type, "GstcHeapAllocator",
            GSTC_TYPE_BRACKET_ALLOCATOR), NULL);
    ((GstcBracketAllocator *) alloc)->defer_write_end = adopt_writes;
  }
  else {
    static gsize memfd_type = 0;

    alloc = g_object_new (pool_allocator_type (&memfd_type,
            "GstcMemfdAllocator", GST_TYPE_FD_ALLOCATOR), NULL);
  }
  gst_object_ref_sink (alloc);
  gst_allocation_params_init (&params);
  params.align = 63;            /* 64-byte aligned: what TFLite asks */
  if (need_pool && caps != NULL) {
    /* Recycles the most recently returned buffer first (lifopool.c). */
    pool = gstc_lifo_pool_new (video);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, size, min_buffers,
        max_buffers);
    gst_buffer_pool_config_set_allocator (config, alloc, &params);
    if (video)
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config (pool, config)) {
      gst_object_unref (pool);
      gst_object_unref (alloc);
      return FALSE;
    }
  }
  *alloc_out = alloc;
  *pool_out = pool;
  return TRUE;
}

/* Adds a proposal to q: the pool (if any) and the allocator. */
static void
add_proposal (GstQuery * q, GstAllocator * alloc, GstBufferPool * pool,
    guint size, guint min_buffers, guint max_buffers)
{
  GstAllocationParams params;

  gst_allocation_params_init (&params);
  params.align = 63;
  if (pool != NULL)
    gst_query_add_allocation_pool (q, pool, size, min_buffers, max_buffers);
  gst_query_add_allocation_param (q, alloc, &params);
}

int
gstc_propose_pinned_pool (GstQuery * q, gboolean video, guint size,
    guint min_buffers, int kind, gboolean adopt_writes)
{
  GstAllocator *alloc;
  GstBufferPool *pool;

  if (!make_pinned_pool (q, video, size, min_buffers, 0, kind, adopt_writes,
          &alloc, &pool))
    return 0;
  add_proposal (q, alloc, pool, size, min_buffers, 0);
  if (pool != NULL)
    gst_object_unref (pool);
  gst_object_unref (alloc);
  return 1;
}

struct _GstcPoolCache
{
  GstBufferPool *pool;
  GstAllocator *alloc;
  GstCaps *caps;
  guint size, min_buffers, max_buffers;
  int kind;
  gboolean video, adopt_writes;
};

GstcPoolCache *
gstc_pool_cache_new (void)
{
  return g_new0 (GstcPoolCache, 1);
}

static void
pool_cache_clear (GstcPoolCache * c)
{
  gst_clear_object (&c->pool);
  gst_clear_object (&c->alloc);
  gst_clear_caps (&c->caps);
}

int
gstc_pool_cache_propose (GstcPoolCache * c, GstQuery * q, gboolean video,
    guint size, guint min_buffers, guint max_buffers, int kind,
    gboolean adopt_writes, gboolean * reused)
{
  GstCaps *caps;
  gboolean need_pool = FALSE;
  GstAllocator *alloc;
  GstBufferPool *pool;

  gst_query_parse_allocation (q, &caps, &need_pool);
  *reused = c->pool != NULL && need_pool && caps != NULL
      && c->caps != NULL && gst_caps_is_equal (caps, c->caps)
      && c->size == size && c->min_buffers == min_buffers
      && c->max_buffers == max_buffers && c->kind == kind
      && c->video == video && c->adopt_writes == adopt_writes;
  if (*reused) {
    add_proposal (q, c->alloc, c->pool, size, min_buffers, max_buffers);
    return 1;
  }
  if (!make_pinned_pool (q, video, size, min_buffers, max_buffers, kind,
          adopt_writes, &alloc, &pool))
    return 0;
  add_proposal (q, alloc, pool, size, min_buffers, max_buffers);
  if (pool == NULL) {
    gst_object_unref (alloc);
    return 1;
  }
  pool_cache_clear (c);
  c->pool = pool;
  c->alloc = alloc;
  c->caps = gst_caps_ref (caps);
  c->size = size;
  c->min_buffers = min_buffers;
  c->max_buffers = max_buffers;
  c->kind = kind;
  c->video = video;
  c->adopt_writes = adopt_writes;
  return 1;
}

void
gstc_pool_cache_free (GstcPoolCache * c)
{
  if (c == NULL)
    return;
  pool_cache_clear (c);
  g_free (c);
}

gboolean
gstc_allocation_pool (gpointer q, guint n, GstBufferPool ** pool,
    guint * size, guint * min_buffers, guint * max_buffers)
{
  GstQuery *query = q;

  if (n >= gst_query_get_n_allocation_pools (query))
    return FALSE;
  gst_query_parse_nth_allocation_pool (query, n, pool, size, min_buffers,
      max_buffers);
  if (*pool != NULL)
    gst_object_unref (*pool);
  return TRUE;
}
