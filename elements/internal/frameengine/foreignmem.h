/* foreignmem.h: C side of foreignmem.go — a dma-buf memory that another
 * allocator made (a camera's: v4l2src io-mode=dmabuf, GStreamer's own
 * GstDmaBufAllocator) wrapped in one of the project's, so that the
 * project's elements share ONE CPU-access bracket on it per frame and
 * the bracket's END comes when the last of them lets go.
 *
 * GStreamer gives no hook when a foreign buffer is done with: its pool
 * takes it back (and the camera writes into it again) when the last
 * reference goes, and the project's readers each bracketed their own
 * access (tensorinfer's read, tensoroverlay's write through GStreamer's
 * map, the sink's read: a START and an END each). The wrapper is that
 * hook. Per foreign memory M (qdata of M, made once by Go: the first time
 * tensorinfer sees M with its video going on), one wrapper W:
 *
 * - W is dma-buf memory of the project's bracket allocator class (a
 *   subclass whose maps enter the bracket in C, no call into Go) over a
 *   dup of M's fd (a tensor of package tensor, whose record holds the
 *   bracket's state word), with M's offset and size; kept mapped.
 * - Lending W for a frame (gstc_foreign_lend, tensorinfer inside the
 *   bracket it opened for read and write): W joins the bracket and holds
 *   a reference of the camera's buffer; the video goes on in a new buffer
 *   with W in place of M (flags, timestamps and metas copied). Every
 *   element downstream — a converter's map, tensoroverlay's write map, a
 *   second tensorinfer, each tensorpinsink — joins the open bracket. W
 *   is writable only when the camera's buffer was the caller's alone and
 *   M in no other buffer (as GStreamer would let the caller write into
 *   them); else it is lent read-only, and a writer copies the frame.
 * - When W's last reference goes (its dispose hook, on whatever thread),
 *   W leaves the bracket — the END if it was the last one in — and only
 *   then drops the camera's buffer, which goes back to its pool (and the
 *   camera) after the END, never before. W is resurrected for M's next
 *   frame, as a pool resurrects its buffers: nothing is made per frame
 *   but the buffer around it.
 * - When M is freed (its pool's end), W goes with it and Go closes the
 *   tensor.
 *
 * A lent W holds the camera's buffer, so M cannot be freed while W is
 * lent. A frame whose camera buffer is lent already (a tee before two
 * tensorinfers) shares W; a memory with no wrapper, shared by another
 * memory, or lent with another buffer goes on unwrapped (each element
 * brackets its own access, as before). */
#ifndef GSTC_FOREIGNMEM_H
#define GSTC_FOREIGNMEM_H

#include "cgo.h"
#include "cbracket.h"
#include "bracketalloc.h"

/* The wrappers' allocator: a bracket allocator (gst_is_dmabuf_memory
 * holds, and the project's elements see its memories as their own)
 * whose maps enter the wrapper's bracket from C. One per process. */
typedef struct
{
  GstcBracketAllocator parent;
} GstcForeignAllocator;

typedef struct
{
  GstcBracketAllocatorClass parent_class;
} GstcForeignAllocatorClass;

GType gstc_foreign_allocator_get_type (void);
#define GSTC_TYPE_FOREIGN_ALLOCATOR (gstc_foreign_allocator_get_type ())

/* Whether mem (borrowed) may be wrapped: dma-buf memory of an allocator
 * that is not the project's (no bracket allocator), not a share of
 * another memory. */
gboolean gstc_foreign_candidate (GstMemory * mem);

/* The wrapper of mem (borrowed: mem keeps it), or NULL. */
GstMemory *gstc_foreign_wrapper_of (GstMemory * mem);

/* Makes mem's wrapper over fd (the bracket's: b.fd, a tensor's that Go
 * keeps open until the wrapper is freed, then closes through handle —
 * gstcGoForeignRelease) unless mem has one already. Returns the wrapper
 * (borrowed), *made TRUE if it is this call's; on FALSE the handle is
 * still the caller's. NULL if mem is not a candidate or the allocation
 * failed. */
GstMemory *gstc_foreign_attach (GstMemory * mem, GstcBracket b,
    uintptr_t handle, gboolean * made);

/* The buffer in's video goes on in (the caller's reference): a new
 * buffer with in's flags, timestamps and metas and the wrapper of in's
 * single memory, which joins the bracket the caller holds open on it for
 * read and write (as long as the caller holds it, the join cannot fail)
 * and holds a reference of in until its last holder lets go. NULL — go
 * on with in — when in's memory has no wrapper, the bracket is not open
 * for read and write, or the wrapper is lent with another buffer. in is
 * borrowed. */
GstBuffer *gstc_foreign_lend (GstBuffer * in);

/* Tests: wrappers made, freed, lent and given back since the process
 * started. */
void gstc_foreign_test_counts (guint64 * made, guint64 * freed,
    guint64 * lent, guint64 * returned);

/* Tests: from now on, a wrapper's dispose marks itself under way and
 * sleeps us microseconds before taking the wrapper's lock (0: off), so
 * that a lend can meet a wrapper whose last holder let go; disposing
 * reports (and clears) the mark. */
void gstc_foreign_test_hold_dispose (int us);
gboolean gstc_foreign_test_disposing (void);

/* Tests: a memory of GStreamer's own GstDmaBufAllocator over fd (not
 * closed by it) of size bytes, as a camera's. */
GstMemory *gstc_foreign_test_gst_dmabuf (int fd, gsize size);

#endif /* GSTC_FOREIGNMEM_H */
