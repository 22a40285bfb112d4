/* foreignmem.c: C definitions of foreignmem.go (see foreignmem.h). */
#include "foreignmem.h"
#include "_cgo_export.h"

GST_DEBUG_CATEGORY_STATIC (foreign_debug);
#define GST_CAT_DEFAULT foreign_debug

G_DEFINE_TYPE_WITH_CODE (GstcForeignAllocator, gstc_foreign_allocator,
    GSTC_TYPE_BRACKET_ALLOCATOR,
    GST_DEBUG_CATEGORY_INIT (foreign_debug, "tensorpin-foreign", 0,
        "foreign dma-buf memory wrapped in one shared CPU-access bracket"));

/* A wrapper's record: qdata of the wrapper, freed with it. bracket and
 * handle are the Go tensor's (its state word, its fd — the wrapper's own
 * — and whether it issues ioctls), closed through handle when the
 * wrapper is freed. offset, size: the foreign memory's, restored at each
 * lend. lock guards lent, never held across a call out (an ioctl, an
 * unref). */
typedef struct
{
  GMutex lock;
  GstcBracket bracket;
  uintptr_t handle;
  gsize offset, size;
  GstBuffer *lent;              /* the camera's buffer while lent (a reference) */
  gint home_gone;               /* the foreign memory was freed (atomic) */
} GstcForeign;

static gint made_count, freed_count, lent_count, returned_count;

/* Tests: a dispose of a lent wrapper marks disposing and sleeps this many
 * microseconds before it takes the lock (0: neither). */
static gint dispose_hold_us, disposing;

static GQuark
wrapper_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-foreign-wrapper");
}

static GQuark
record_quark (void)
{
  static GQuark q;

  return gstc_quark (&q, "gstc-foreign-record");
}

static GstcForeign *
record_of (GstMemory * w)
{
  return gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (w), record_quark ());
}

/* The record of w or of the wrapper w shares (gst_memory_share). */
static GstcForeign *
root_record (GstMemory * w)
{
  while (w->parent != NULL)
    w = w->parent;
  return record_of (w);
}

static GstAllocator *
foreign_allocator (void)
{
  static GstAllocator *a;

  if (g_once_init_enter (&a)) {
    GstAllocator *n = g_object_new (GSTC_TYPE_FOREIGN_ALLOCATOR, NULL);

    /* Process-lifetime, like GStreamer's own sysmem allocator. */
    gst_object_ref_sink (n);
    GST_OBJECT_FLAG_SET (n, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&a, n);
  }
  return a;
}

gboolean
gstc_foreign_candidate (GstMemory * mem)
{
  return mem != NULL && mem->parent == NULL && mem->allocator != NULL
      && gst_is_dmabuf_memory (mem)
      && !G_TYPE_CHECK_INSTANCE_TYPE (mem->allocator,
      GSTC_TYPE_BRACKET_ALLOCATOR);
}

GstMemory *
gstc_foreign_wrapper_of (GstMemory * mem)
{
  if (mem == NULL || mem->parent != NULL)
    return NULL;
  return gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      wrapper_quark ());
}

/* References n > 0 times held become n + 1; FALSE, with nothing changed,
 * at 0: its last holder let go and its dispose is under way. */
static gboolean
ref_if_held (GstMiniObject * o)
{
  gint n = g_atomic_int_get (&o->refcount);

  while (n > 0)
    if (__atomic_compare_exchange_n (&o->refcount, &n, n + 1, FALSE,
            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return TRUE;
  return FALSE;
}

/* The wrapper's last reference went: leave the bracket (the END if no
 * one else is in it), then give the camera its buffer back, and keep the
 * wrapper for the foreign memory's next frame; or, once that memory is
 * freed, free the wrapper. Any thread. */
static gboolean
foreign_dispose (GstMiniObject * obj)
{
  GstcForeign *f = record_of ((GstMemory *) obj);
  GstBuffer *lent;
  gboolean closed;
  int err;

  if (f == NULL || g_atomic_int_get (&f->home_gone))
    return TRUE;
  if (G_UNLIKELY (g_atomic_int_get (&dispose_hold_us) > 0)) {
    g_atomic_int_set (&disposing, 1);
    g_usleep (g_atomic_int_get (&dispose_hold_us));
  }
  /* Resurrected under the lock (the foreign memory's reference again),
   * so that a lend that finds it lent with its buffer either shares it
   * before this (its reference then keeps it from being here) or finds
   * it given back after. */
  g_mutex_lock (&f->lock);
  gst_mini_object_ref (obj);
  lent = f->lent;
  f->lent = NULL;
  g_mutex_unlock (&f->lock);
  if (lent == NULL)
    return FALSE;
  g_atomic_int_inc (&returned_count);
  if (!gstc_bracket_leave (&f->bracket, &closed, &err) && err != 0)
    GST_WARNING ("ending CPU access to a camera's dma-buf: %s",
        g_strerror (err));
  /* Last: the camera's buffer goes back to its pool only now, after the
   * END; if the pool is gone this frees the foreign memory, and the
   * wrapper with it (foreign_home_gone): nothing of it is touched after. */
  gst_buffer_unref (lent);
  return FALSE;
}

/* The foreign memory was freed: drop its reference of the wrapper, which
 * is idle (a lent wrapper holds the buffer that holds the memory), so
 * that the wrapper is freed now. */
static void
foreign_home_gone (gpointer data)
{
  GstMemory *w = data;
  GstcForeign *f = record_of (w);

  if (f != NULL)
    g_atomic_int_set (&f->home_gone, 1);
  gst_memory_unref (w);
}

/* The wrapper is freed: its record goes, and Go closes the tensor. */
static void
foreign_free (gpointer data)
{
  GstcForeign *f = data;

  if (f->lent != NULL)          /* cannot be: a lent wrapper is held */
    gst_buffer_unref (f->lent);
  gstcGoForeignRelease (f->handle);
  g_mutex_clear (&f->lock);
  g_free (f);
  g_atomic_int_inc (&freed_count);
}

/* One attach at a time: two tensorinfers seeing a new memory at once
 * (tee branches) make one wrapper. */
static GMutex attach_lock;

GstMemory *
gstc_foreign_attach (GstMemory * mem, GstcBracket b, uintptr_t handle,
    gboolean * made)
{
  GstMemory *w;
  GstcForeign *f;

  *made = FALSE;
  if (!gstc_foreign_candidate (mem))
    return NULL;
  g_mutex_lock (&attach_lock);
  w = gstc_foreign_wrapper_of (mem);
  if (w != NULL) {
    g_mutex_unlock (&attach_lock);
    return w;
  }
  /* The tensor's fd (DONT_CLOSE: Go closes it), mapped once, kept mapped. */
  w = gst_dmabuf_allocator_alloc_with_flags (foreign_allocator (), b.fd,
      mem->maxsize,
      GST_FD_MEMORY_FLAG_DONT_CLOSE | GST_FD_MEMORY_FLAG_KEEP_MAPPED);
  if (w == NULL) {
    g_mutex_unlock (&attach_lock);
    return NULL;
  }
  f = g_new0 (GstcForeign, 1);
  g_mutex_init (&f->lock);
  f->bracket = b;
  f->handle = handle;
  f->offset = mem->offset;
  f->size = mem->size;
  w->offset = f->offset;
  w->size = f->size;
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (w), record_quark (), f,
      foreign_free);
  /* GstMemory leaves dispose unset (gst_memory_init passes NULL). */
  GST_MINI_OBJECT_CAST (w)->dispose = foreign_dispose;
  /* The foreign memory holds the wrapper's one reference while it is
   * idle. */
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), wrapper_quark (), w,
      foreign_home_gone);
  g_atomic_int_inc (&made_count);
  *made = TRUE;
  g_mutex_unlock (&attach_lock);
  GST_DEBUG ("memory %p (fd %d): wrapper %p over fd %d", mem,
      gst_fd_memory_get_fd (mem), w, b.fd);
  return w;
}

GstBuffer *
gstc_foreign_lend (GstBuffer * in)
{
  GstMemory *mem, *w;
  GstcForeign *f;
  GstBuffer *out;

  if (gst_buffer_n_memory (in) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (in, 0);
  w = gstc_foreign_wrapper_of (mem);
  if (w == NULL || (f = record_of (w)) == NULL)
    return NULL;
  for (;;) {
    g_mutex_lock (&f->lock);
    if (f->lent == NULL) {
      /* Idle: its one reference (the foreign memory's) becomes the new
       * buffer's; it joins the caller's bracket. */
      if (!gstc_bracket_try_join (&f->bracket, GSTC_ACCESS_READWRITE)) {
        g_mutex_unlock (&f->lock);
        return NULL;
      }
      /* Undo a resize done downstream on an earlier frame. */
      w->offset = f->offset;
      w->size = f->size;
      /* Writable only where the camera's buffer would be: when the
       * caller is its only holder and mem is in no other buffer, the
       * wrapper is about to be the one way to its pixels; else (a tee
       * before, a holder upstream) read-only, so that a writer downstream
       * copies the frame, as it would have copied the camera's buffer,
       * instead of drawing on pixels another branch reads. */
      if (gst_buffer_is_writable (in) && gst_memory_is_writable (mem)
          && !GST_MEMORY_FLAG_IS_SET (mem, GST_MEMORY_FLAG_READONLY))
        GST_MINI_OBJECT_FLAG_UNSET (w, GST_MEMORY_FLAG_READONLY);
      else
        GST_MINI_OBJECT_FLAG_SET (w, GST_MEMORY_FLAG_READONLY);
      f->lent = gst_buffer_ref (in);
      g_mutex_unlock (&f->lock);
      g_atomic_int_inc (&lent_count);
      break;
    }
    if (f->lent != in) {
      g_mutex_unlock (&f->lock);
      return NULL;
    }
    /* Lent with this very buffer (a tee before two tensorinfers): one
     * more holder of the same wrapper, inside the same bracket. */
    if (ref_if_held (GST_MINI_OBJECT_CAST (w))) {
      g_mutex_unlock (&f->lock);
      break;
    }
    /* Its last holder let go and its dispose waits for the lock. */
    g_mutex_unlock (&f->lock);
    g_thread_yield ();
  }
  out = gst_buffer_new ();
  gst_buffer_append_memory (out, w);
  gst_buffer_copy_into (out, in, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_META, 0, -1);
  return out;
}

/* ---- the allocator: maps inside the wrapper's bracket, in C --------- */

/* info->user_data[0] tells the unmap that this map entered the bracket. */
#define ENTERED GINT_TO_POINTER (1)

static gpointer
foreign_map (GstMemory * mem, GstMapInfo * info, gsize maxsize)
{
  GstAllocator *a = mem->allocator;
  GstcForeign *f = root_record (mem);
  gpointer data = a->mem_map (mem, maxsize, info->flags);
  int access = 0, err;

  info->user_data[0] = NULL;
  if (data == NULL || f == NULL)
    return data;
  if (info->flags & GST_MAP_READ)
    access |= GSTC_ACCESS_READ;
  if (info->flags & GST_MAP_WRITE)
    access |= GSTC_ACCESS_WRITE;
  if (access == 0)
    return data;
  /* Joins the open bracket of a lent wrapper; else opens (or widens) one
   * for this map, as GStreamer's own map would (its START waits for the
   * fences in the kernel). Busy only while another holder's START or END
   * is issued. */
  while (!gstc_bracket_try_enter (&f->bracket, access, &err)) {
    if (err != 0) {
      /* As GStreamer's own map, a failed START is a warning. */
      GST_WARNING ("memory %p mapped without a bracket: %s", mem,
          g_strerror (err));
      return data;
    }
    g_thread_yield ();
  }
  info->user_data[0] = ENTERED;
  return data;
}

static void
foreign_unmap (GstMemory * mem, GstMapInfo * info)
{
  GstAllocator *a = mem->allocator;
  GstcForeign *f;
  gboolean closed;
  int err;

  if (info->user_data[0] == ENTERED && (f = root_record (mem)) != NULL
      && !gstc_bracket_leave (&f->bracket, &closed, &err) && err != 0)
    GST_WARNING ("memory %p: ending CPU access: %s", mem, g_strerror (err));
  a->mem_unmap (mem);
}

static void
gstc_foreign_allocator_class_init (GstcForeignAllocatorClass * klass)
{
}

static void
gstc_foreign_allocator_init (GstcForeignAllocator * self)
{
  GstAllocator *a = GST_ALLOCATOR_CAST (self);

  /* After the bracket allocator's init, which set its own (Go's) pair;
   * a->mem_map / mem_unmap stay the fd allocator's mmap. */
  a->mem_map_full = foreign_map;
  a->mem_unmap_full = foreign_unmap;
}

/* ---- tests ----------------------------------------------------------- */

void
gstc_foreign_test_counts (guint64 * made, guint64 * freed, guint64 * lent,
    guint64 * returned)
{
  *made = (guint) g_atomic_int_get (&made_count);
  *freed = (guint) g_atomic_int_get (&freed_count);
  *lent = (guint) g_atomic_int_get (&lent_count);
  *returned = (guint) g_atomic_int_get (&returned_count);
}

void
gstc_foreign_test_hold_dispose (int us)
{
  g_atomic_int_set (&disposing, 0);
  g_atomic_int_set (&dispose_hold_us, us);
}

gboolean
gstc_foreign_test_disposing (void)
{
  return g_atomic_int_compare_and_exchange (&disposing, 1, 0);
}

GstMemory *
gstc_foreign_test_gst_dmabuf (int fd, gsize size)
{
  static GstAllocator *a;

  if (g_once_init_enter (&a)) {
    GstAllocator *n = gst_dmabuf_allocator_new ();

    GST_OBJECT_FLAG_SET (n, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&a, n);
  }
  return gst_dmabuf_allocator_alloc_with_flags (a, fd, size,
      GST_FD_MEMORY_FLAG_DONT_CLOSE);
}
