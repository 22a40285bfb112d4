/* bracketalloc.c: a GstDmaBufAllocator whose map and unmap join the
 * process's CPU-access brackets. Each function's contract — what it owns,
 * borrows and takes over, and who may call it — is its comment in
 * bracketalloc.h; the Go side is bracketalloc.go. */
#include <sys/stat.h>
#include "bracketalloc.h"
#include "schedtick.h"
#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (bracket_debug);
#define GST_CAT_DEFAULT bracket_debug

G_DEFINE_TYPE_WITH_CODE (GstcBracketAllocator, gstc_bracket_allocator,
    GST_TYPE_DMABUF_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (bracket_debug, "tensorpin-bracket", 0,
        "dma-buf memory mapped inside the process's CPU-access brackets"));

/* Per memory, as qdata (freed with the memory): its dma-buf's identity,
 * read once, and whether a deferred write bracket is still to be left. */
typedef struct
{
  guint64 dev, ino;
  int fd;                       /* the memory's (it owns it; open until the memory's free) */
  gint pending;                 /* 1: a write map's bracket left open (atomic) */
} GstcBracketMem;

/* Records made and freed, for tests (gstc_bracket_test_records). */
static gint records_made, records_freed;

/* The qdata's destroy notify, run when the memory is freed — before its
 * allocator's free closes the fd: a deferred write bracket still open
 * (the buffer never went back to a pool) ends here. */
static void
bracket_mem_free (gpointer data)
{
  GstcBracketMem *bm = data;

  if (g_atomic_int_compare_and_exchange (&bm->pending, 1, 0))
    gstcGoFileBracketLeave (bm->fd, bm->dev, bm->ino);
  g_free (bm);
  g_atomic_int_inc (&records_freed);
}

static GQuark
bracket_quark (void)
{
  static GQuark q;

  if (q == 0)
    q = g_quark_from_static_string ("gstc-bracket-memory");
  return q;
}

/* One record per memory, made at its first map under this lock: two
 * maps racing on a fresh memory (tee branches) would otherwise both make
 * one, and the second gst_mini_object_set_qdata would free the first
 * while its maker still uses it (or has just set pending on it). Not made
 * at allocation instead: gst_memory_share makes memories of this
 * allocator that no alloc sees. Taken only on a miss, once per memory. */
static GMutex make_lock;

/* Tests: called by a map that found no record, before make_lock (NULL:
 * nothing). */
static void (*miss_hook) (void);

/* Returns mem's state, made on first use (NULL if its fd cannot be
 * stat'ed). Borrowed: the memory owns it, one record for its life. */
static GstcBracketMem *
bracket_mem (GstMemory * mem)
{
  GstMiniObject *obj = GST_MINI_OBJECT_CAST (mem);
  GstcBracketMem *bm = gst_mini_object_get_qdata (obj, bracket_quark ());
  struct stat sb;

  if (bm != NULL)
    return bm;
  if (G_UNLIKELY (miss_hook != NULL))
    miss_hook ();
  g_mutex_lock (&make_lock);
  /* Again under the lock: another map may have made it meanwhile. */
  bm = gst_mini_object_get_qdata (obj, bracket_quark ());
  if (bm == NULL && fstat (gst_fd_memory_get_fd (mem), &sb) == 0) {
    bm = g_new0 (GstcBracketMem, 1);
    bm->dev = sb.st_dev;
    bm->ino = sb.st_ino;
    bm->fd = gst_fd_memory_get_fd (mem);
    gst_mini_object_set_qdata (obj, bracket_quark (), bm, bracket_mem_free);
    g_atomic_int_inc (&records_made);
  }
  g_mutex_unlock (&make_lock);
  return bm;
}

/* info->user_data[0] tells the unmap that this map entered a bracket. */
#define ENTERED GINT_TO_POINTER (1)

static gpointer
bracket_mem_map (GstMemory * mem, GstMapInfo * info, gsize maxsize)
{
  GstAllocator *a = mem->allocator;
  GstcBracketMem *bm;
  gpointer data;
  int access = 0;

  data = a->mem_map (mem, maxsize, info->flags);
  info->user_data[0] = NULL;
  if (data == NULL)
    return NULL;
  if (info->flags & GST_MAP_READ)
    access |= 1;                /* tensor.AccessRead */
  if (info->flags & GST_MAP_WRITE)
    access |= 2;                /* tensor.AccessWrite */
  /* A pool buffer's write bracket travels to its readers (adopt): open
   * it for reading too, or the first reader's join would widen it with
   * a second START. */
  if (((GstcBracketAllocator *) a)->defer_write_end && (access & 2))
    access = 3;
  bm = bracket_mem (mem);
  if (bm == NULL || access == 0) {
    GST_WARNING_OBJECT (a, "memory %p mapped without a bracket", mem);
    return data;
  }
  /* As GStreamer's own map, a failed START is a warning, not a failed map. */
  if (gstcGoFileBracketEnter (gst_fd_memory_get_fd (mem), bm->dev, bm->ino,
          access))
    info->user_data[0] = ENTERED;
  gstc_sched_tick ();
  return data;
}

static void
bracket_mem_unmap (GstMemory * mem, GstMapInfo * info)
{
  GstAllocator *a = mem->allocator;
  GstcBracketAllocator *self = (GstcBracketAllocator *) a;
  GstcBracketMem *bm;

  if (info->user_data[0] == ENTERED
      && (bm = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
              bracket_quark ())) != NULL) {
    /* adopt: the first write map's bracket travels with the buffer; its
     * readers join it, and the pool's release (or the memory's free)
     * leaves it. */
    if (!(self->defer_write_end && (info->flags & GST_MAP_WRITE)
            && g_atomic_int_compare_and_exchange (&bm->pending, 0, 1)))
      gstcGoFileBracketLeave (gst_fd_memory_get_fd (mem), bm->dev, bm->ino);
  }
  a->mem_unmap (mem);
}

void
gstc_bracket_memory_settle (GstMemory * mem)
{
  GstcBracketMem *bm;

  if (mem == NULL || mem->allocator == NULL
      || !G_TYPE_CHECK_INSTANCE_TYPE (mem->allocator,
          GSTC_TYPE_BRACKET_ALLOCATOR))
    return;
  bm = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      bracket_quark ());
  if (bm != NULL && g_atomic_int_compare_and_exchange (&bm->pending, 1, 0))
    gstcGoFileBracketLeave (gst_fd_memory_get_fd (mem), bm->dev, bm->ino);
}

void
gstc_bracket_buffer_settle (GstBuffer * buf)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++)
    gstc_bracket_memory_settle (gst_buffer_peek_memory (buf, i));
}

static void
gstc_bracket_allocator_class_init (GstcBracketAllocatorClass * klass)
{
}

static void
gstc_bracket_allocator_init (GstcBracketAllocator * self)
{
  GstAllocator *a = GST_ALLOCATOR_CAST (self);

  /* After GstDmaBufAllocator's init, which set its ioctl-issuing pair;
   * a->mem_map / mem_unmap stay the fd allocator's mmap. */
  a->mem_map_full = bracket_mem_map;
  a->mem_unmap_full = bracket_mem_unmap;
}

GstAllocator *
gstc_bracket_allocator_new (gboolean defer_write_end)
{
  GstcBracketAllocator *self =
      g_object_new (GSTC_TYPE_BRACKET_ALLOCATOR, NULL);

  self->defer_write_end = defer_write_end;
  gst_object_ref_sink (self);
  return GST_ALLOCATOR_CAST (self);
}

/* Tests (bracketalloc.go): the records' count, and a barrier that holds
 * each map finding no record until n maps have (so that n threads'
 * first maps of a memory all find none, as they can by chance). */
static struct
{
  GMutex lock;
  GCond cond;
  int n, arrived;
  guint gen;
} miss_barrier;

static void
miss_barrier_wait (void)
{
  guint gen;

  g_mutex_lock (&miss_barrier.lock);
  gen = miss_barrier.gen;
  if (++miss_barrier.arrived == miss_barrier.n) {
    miss_barrier.arrived = 0;
    miss_barrier.gen++;
    g_cond_broadcast (&miss_barrier.cond);
  } else {
    while (gen == miss_barrier.gen)
      g_cond_wait (&miss_barrier.cond, &miss_barrier.lock);
  }
  g_mutex_unlock (&miss_barrier.lock);
}

void
gstc_bracket_test_hold_misses (int n)
{
  g_mutex_lock (&miss_barrier.lock);
  miss_barrier.n = n;
  miss_barrier.arrived = 0;
  g_mutex_unlock (&miss_barrier.lock);
  miss_hook = n > 1 ? miss_barrier_wait : NULL;
}

void
gstc_bracket_test_records (guint64 * made, guint64 * freed)
{
  *made = (guint) g_atomic_int_get (&records_made);
  *freed = (guint) g_atomic_int_get (&records_freed);
}
