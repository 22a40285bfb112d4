/* lifopool.c: the buffer pools tensorpinsink and tensorinfer propose
 * upstream, handing out the most recently returned buffer first.
 *
 * Why: GstBufferPool keeps its free buffers in a first-in first-out queue,
 * so a pool of N buffers cycles all N through the CPU cache even when each
 * buffer comes back before the next is acquired — five 8 MB 1080p RGBA
 * frames do not stay in a 32 MB L3. A stack hands out the buffer whose
 * lines are still cached; the pool's depth stays available for the frames
 * an application holds, and the working set is what is really in flight.
 *
 * Everything but the order is the parent's: configuration, allocation
 * (acquire chains up when the stack is empty, and the parent allocates),
 * freeing, and its private count of the buffers that exist, which its
 * max-buffers and stop depend on. So a buffer the stack does not keep goes
 * to the parent's release_buffer, which frees it; at stop the stack is
 * emptied into the parent's queue and the parent's stop frees it all.
 *
 * One implementation serves two classes: GstcLifoPool (a GstBufferPool,
 * for other/tensors) and GstcLifoVideoPool (a GstVideoBufferPool, for raw
 * video: GstVideoMeta and the caps' frame size come from it). */
#include <gst/video/video.h>
#include "lifopool.h"
#include "bracketalloc.h"

/* The LIFO state, one per pool. */
typedef struct
{
  GMutex lock;                  /* guards free and returns */
  GCond returned;               /* a buffer came back (kept or freed), or flushing began */
  guint waiting;                /* acquires waiting on returned: a release signals only
                                 * then (GLib's g_cond_signal is a futex system call
                                 * whether or not anyone waits, ~1.5 µs here a frame) */
  GPtrArray *free;              /* kept buffers, newest last: the stack owns each one */
  guint64 returns;              /* buffers released so far: what acquire waits on */
  guint size;                   /* the configured buffer size (the parent's is private) */
  GstBufferPoolClass *parent;   /* the parent class, whose vfuncs we chain to */
} GstcLifo;

typedef struct
{
  GstBufferPool parent;
  GstcLifo lifo;
} GstcLifoPool;

typedef struct
{
  GstBufferPoolClass parent_class;
} GstcLifoPoolClass;

typedef struct
{
  GstVideoBufferPool parent;
  GstcLifo lifo;
} GstcLifoVideoPool;

typedef struct
{
  GstVideoBufferPoolClass parent_class;
} GstcLifoVideoPoolClass;

GType gstc_lifo_pool_get_type (void);
GType gstc_lifo_video_pool_get_type (void);
G_DEFINE_TYPE (GstcLifoPool, gstc_lifo_pool, GST_TYPE_BUFFER_POOL);
G_DEFINE_TYPE (GstcLifoVideoPool, gstc_lifo_video_pool,
    GST_TYPE_VIDEO_BUFFER_POOL);

/* Returns pool's LIFO state (borrowed), or NULL if pool is neither class. */
static GstcLifo *
lifo_of (GstBufferPool * pool)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (pool, gstc_lifo_video_pool_get_type ()))
    return &((GstcLifoVideoPool *) pool)->lifo;
  if (G_TYPE_CHECK_INSTANCE_TYPE (pool, gstc_lifo_pool_get_type ()))
    return &((GstcLifoPool *) pool)->lifo;
  return NULL;
}

/* Hands every kept buffer (the stack's reference) to the parent's
 * release_buffer, which queues it in its own queue — it passed the
 * parent's checks when it came back and nothing has touched it since — for
 * the parent's stop to free with its accounting. Called outside the lock:
 * the parent takes its own. */
static void
lifo_drain_to_parent (GstBufferPool * pool, GstcLifo * lifo)
{
  GstBuffer *buf;

  g_mutex_lock (&lifo->lock);
  while (lifo->free->len > 0) {
    buf = g_ptr_array_steal_index_fast (lifo->free, lifo->free->len - 1);
    g_mutex_unlock (&lifo->lock);
    lifo->parent->release_buffer (pool, buf);
    g_mutex_lock (&lifo->lock);
  }
  g_mutex_unlock (&lifo->lock);
}

/* config is borrowed (GStreamer keeps it as the pool's configuration). The
 * parent may change its size (a video pool sets the frame size of the
 * caps), so the size is read after it. GStreamer refuses a configuration
 * while the pool is active, so no release reads size concurrently. */
static gboolean
lifo_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstcLifo *lifo = lifo_of (pool);
  guint size;

  if (!lifo->parent->set_config (pool, config))
    return FALSE;
  if (!gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL))
    return FALSE;
  lifo->size = size;
  return TRUE;
}

/* The parent preallocates min-buffers, releasing each into the stack. If
 * an allocation fails it returns FALSE with the first ones kept, and the
 * pool is not started — so stop would never free them: free them here. */
static gboolean
lifo_start (GstBufferPool * pool)
{
  GstcLifo *lifo = lifo_of (pool);

  if (lifo->parent->start (pool))
    return TRUE;
  lifo_drain_to_parent (pool, lifo);
  lifo->parent->stop (pool);
  return FALSE;
}

/* Runs when the pool is deactivated and every buffer is back: the kept
 * buffers are freed by the parent's stop, which also checks that none is
 * missing. */
static gboolean
lifo_stop (GstBufferPool * pool)
{
  GstcLifo *lifo = lifo_of (pool);

  lifo_drain_to_parent (pool, lifo);
  return lifo->parent->stop (pool);
}

/* pool->flushing is already set when this runs: wake the acquires waiting
 * in lifo_acquire_buffer so they return GST_FLOW_FLUSHING. */
static void
lifo_flush_start (GstBufferPool * pool)
{
  GstcLifo *lifo = lifo_of (pool);

  g_mutex_lock (&lifo->lock);
  g_cond_broadcast (&lifo->returned);
  g_mutex_unlock (&lifo->lock);
  if (lifo->parent->flush_start)
    lifo->parent->flush_start (pool);
}

/* *buffer (transfer full) is the most recently returned kept buffer, or a
 * new one the parent allocates when none is kept. params is borrowed.
 *
 * The parent is never allowed to wait (DONTWAIT): it would wait for its
 * own queue, which nothing fills since releases come to the stack. When it
 * reports GST_FLOW_EOS — max-buffers are all out; the proposed pools have
 * no max, so only a pool configured with one gets here — we wait instead
 * for a buffer to come back (or be freed, which makes room to allocate),
 * unless the caller asked not to wait, or for flushing. */
static GstFlowReturn
lifo_acquire_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstcLifo *lifo = lifo_of (pool);
  GstBufferPoolAcquireParams dontwait = { 0 };
  gboolean caller_waits =
      !(params && (params->flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT));
  GstFlowReturn ret;
  guint64 seen;

  if (params)
    dontwait = *params;
  dontwait.flags |= GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;

  g_mutex_lock (&lifo->lock);
  for (;;) {
    if (GST_BUFFER_POOL_IS_FLUSHING (pool)) {
      ret = GST_FLOW_FLUSHING;
      break;
    }
    if (lifo->free->len > 0) {
      /* The stack's reference becomes the caller's. */
      *buffer = g_ptr_array_steal_index_fast (lifo->free, lifo->free->len - 1);
      ret = GST_FLOW_OK;
      break;
    }
    seen = lifo->returns;
    g_mutex_unlock (&lifo->lock);

    ret = lifo->parent->acquire_buffer (pool, buffer, &dontwait);
    if (ret != GST_FLOW_EOS || !caller_waits)
      return ret;

    g_mutex_lock (&lifo->lock);
    lifo->waiting++;
    while (lifo->returns == seen && !GST_BUFFER_POOL_IS_FLUSHING (pool))
      g_cond_wait (&lifo->returned, &lifo->lock);
    lifo->waiting--;
  }
  g_mutex_unlock (&lifo->lock);
  return ret;
}

/* buffer is transfer full, already reset by the parent's reset_buffer. It
 * is kept on the stack under GstBufferPool's own conditions — its memory
 * is the pool's (not replaced or tagged, GST_BUFFER_FLAG_TAG_MEMORY), its
 * size is the configured one, and nothing else shares its memory — else
 * the parent's release_buffer, running the same checks, frees it. */
static void
lifo_release_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  GstcLifo *lifo = lifo_of (pool);
  gboolean keep;

  /* Back in the pool, the frame is done: a producer's write bracket that
   * travelled with it (handoff=adopt) ends here, before anyone can write
   * the buffer again. */
  gstc_bracket_buffer_settle (buffer);
  keep =
      !GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY)
      && gst_buffer_get_size (buffer) == lifo->size
      && gst_buffer_is_all_memory_writable (buffer);

  if (!keep)
    lifo->parent->release_buffer (pool, buffer);

  g_mutex_lock (&lifo->lock);
  if (keep)
    g_ptr_array_add (lifo->free, buffer);       /* the stack owns it now */
  lifo->returns++;
  if (lifo->waiting > 0)
    g_cond_signal (&lifo->returned);
  g_mutex_unlock (&lifo->lock);
}

static void
lifo_class_init (GstBufferPoolClass * klass)
{
  klass->set_config = lifo_set_config;
  klass->start = lifo_start;
  klass->stop = lifo_stop;
  klass->flush_start = lifo_flush_start;
  klass->acquire_buffer = lifo_acquire_buffer;
  klass->release_buffer = lifo_release_buffer;
}

static void
lifo_init (GstcLifo * lifo, gpointer parent_class)
{
  g_mutex_init (&lifo->lock);
  g_cond_init (&lifo->returned);
  lifo->free = g_ptr_array_new ();
  lifo->parent = GST_BUFFER_POOL_CLASS (parent_class);
}

/* Dispose deactivated the pool, so stop emptied the stack; a buffer left
 * (none is expected) is freed here — its pool pointer is NULL while kept,
 * so unref frees it. */
static void
lifo_clear (GstcLifo * lifo)
{
  while (lifo->free->len > 0)
    gst_buffer_unref (g_ptr_array_steal_index_fast (lifo->free,
            lifo->free->len - 1));
  g_ptr_array_free (lifo->free, TRUE);
  g_cond_clear (&lifo->returned);
  g_mutex_clear (&lifo->lock);
}

/* ---- the two classes: same vfuncs, different parents ---- */

static void
gstc_lifo_pool_finalize (GObject * obj)
{
  lifo_clear (&((GstcLifoPool *) obj)->lifo);
  G_OBJECT_CLASS (gstc_lifo_pool_parent_class)->finalize (obj);
}

static void
gstc_lifo_pool_class_init (GstcLifoPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gstc_lifo_pool_finalize;
  lifo_class_init (GST_BUFFER_POOL_CLASS (klass));
}

static void
gstc_lifo_pool_init (GstcLifoPool * self)
{
  lifo_init (&self->lifo, gstc_lifo_pool_parent_class);
}

static void
gstc_lifo_video_pool_finalize (GObject * obj)
{
  lifo_clear (&((GstcLifoVideoPool *) obj)->lifo);
  G_OBJECT_CLASS (gstc_lifo_video_pool_parent_class)->finalize (obj);
}

static void
gstc_lifo_video_pool_class_init (GstcLifoVideoPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gstc_lifo_video_pool_finalize;
  lifo_class_init (GST_BUFFER_POOL_CLASS (klass));
}

static void
gstc_lifo_video_pool_init (GstcLifoVideoPool * self)
{
  lifo_init (&self->lifo, gstc_lifo_video_pool_parent_class);
}

GstBufferPool *
gstc_lifo_pool_new (gboolean video)
{
  GstBufferPool *pool = g_object_new (video ? gstc_lifo_video_pool_get_type ()
      : gstc_lifo_pool_get_type (), NULL);

  /* Pools are created floating; the caller gets a plain reference. */
  return gst_object_ref_sink (pool);
}

gint
gstc_lifo_pool_kept (GstBufferPool * pool)
{
  GstcLifo *lifo = lifo_of (pool);
  gint n;

  if (lifo == NULL)
    return -1;
  g_mutex_lock (&lifo->lock);
  n = (gint) lifo->free->len;
  g_mutex_unlock (&lifo->lock);
  return n;
}
