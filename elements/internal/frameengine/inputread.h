/* inputread.h: C side of inputread.go — how a frame engine reads its
 * input, shared by tensorinfer's (inferframe.c) and tensorpinsink's
 * (sinkframe.c): a memory found by its qdata (the pin cache entry's tag
 * under the element's qkey), its read bracket joined or opened after its
 * fences (a poll bounded by sync-timeout that a flush or a stop ends),
 * left, and the copy of a buffer that is not fd memory into the
 * element's own pinned memory. The callers count and post (their words,
 * their counters). */
#ifndef GSTC_INPUTREAD_H
#define GSTC_INPUTREAD_H

#include "cgo.h"
#include "cbracket.h"
#include "wake.h"

#include <gst/allocators/gstfdmemory.h>

/* One pinned memory region an engine reads: the pin cache entry whose
 * memories carry tag as qdata, over [mem_offset, mem_offset + mem_size)
 * of the dma-buf (dev, ino), its first byte pinned at host. copy: the
 * element's own memory a frame is copied into (tag 0; no bracket:
 * nothing else maps it). Go holds a reference of the entry (its tensor,
 * fd and pin) while the engine knows the region. */
typedef struct
{
  uintptr_t tag;
  guint64 mem_offset, mem_size;
  GstcBracket bracket;
  guint64 dev, ino;
  guint8 *host;
  gboolean copy;
} GstcInput;

/* The qdata tag of mem under qkey: 0 if mem is not fd memory or has
 * none. */
static inline uintptr_t
gstc_input_tag (GstMemory * mem, GQuark qkey)
{
  if (!gst_is_fd_memory (mem))
    return 0;
  return (uintptr_t) gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      qkey);
}

/* Whether r is the region of mem, whose tag is tag. */
static inline gboolean
gstc_input_is (const GstcInput * r, uintptr_t tag, const GstMemory * mem)
{
  return tag != 0 && r->tag == tag && !r->copy
      && r->mem_offset == (guint64) mem->offset
      && r->mem_size == (guint64) mem->size;
}

/* What gstc_input_enter did. */
typedef enum
{
  GSTC_INPUT_ENTERED,           /* inside the bracket */
  GSTC_INPUT_FLUSHING,          /* a flush or a stop ended the fence wait */
  GSTC_INPUT_TIMED_OUT,         /* the fences did not signal in time */
  GSTC_INPUT_POLL_FAILED,       /* err: the poll's errno */
  GSTC_INPUT_START_FAILED       /* err: the START's errno */
} GstcInputResult;

/* What gstc_input_enter's wait for the dma-buf's fences came to (and
 * the START after it): the caller's, filled in by the call. */
typedef struct
{
  gboolean joined;              /* found the bracket open: no ioctl, no fence look */
  gboolean waited;              /* the fence poll slept (timed out or not) */
  gint64 waited_ns;
  int err;
} GstcFenceWait;

/* Joins r's bracket for access, or — after its fences: a poll bounded
 * by timeout_ms (negative: no bound; 0: no poll, the START waits in the
 * kernel) beside w's eventfd — opens it. Nothing held unless ENTERED. */
GstcInputResult gstc_input_enter (GstcInput * r, int access, GstcWake * w,
    int timeout_ms, GstcFenceWait * e);

/* Leaves r's bracket (the last one out ENDs it). FALSE with *err when
 * the END failed (the bracket is closed all the same). */
gboolean gstc_input_leave (GstcInput * r, int *err);

/* Copies in into the copy region r (at most its size); returns the bytes
 * copied. */
static inline gsize
gstc_input_copy_in (GstcInput * r, GstBuffer * in)
{
  return gst_buffer_extract (in, 0, r->host, r->mem_size);
}

#endif /* GSTC_INPUTREAD_H */
