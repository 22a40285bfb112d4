/* bracketalloc.h: C side of bracketalloc.go — a GstDmaBufAllocator whose
 * map and unmap join the process's CPU-access brackets. */
#ifndef GSTC_BRACKETALLOC_H
#define GSTC_BRACKETALLOC_H

#include <gst/allocators/allocators.h>

typedef struct
{
  GstDmaBufAllocator parent;
  /* A write map's bracket stays open after its unmap, until the memory's
   * buffer goes back to its pool (gstc_bracket_memory_settle) or the
   * memory is freed: the pool handoff "adopt". FALSE: every unmap leaves
   * ("close", GStreamer's own behaviour). Set before any memory exists. */
  gboolean defer_write_end;
} GstcBracketAllocator;

typedef struct
{
  GstDmaBufAllocatorClass parent_class;
} GstcBracketAllocatorClass;

GType gstc_bracket_allocator_get_type (void);
#define GSTC_TYPE_BRACKET_ALLOCATOR (gstc_bracket_allocator_get_type ())

/* Returns a new bracket allocator (transfer full, not floating). */
GstAllocator *gstc_bracket_allocator_new (gboolean defer_write_end);

/* Leaves the bracket a write map of mem left open (defer_write_end), if
 * any: the END when no one else is inside. mem is borrowed; any memory is
 * accepted (others are ignored). Idempotent. */
void gstc_bracket_memory_settle (GstMemory * mem);

/* gstc_bracket_memory_settle on every memory of buf (borrowed). */
void gstc_bracket_buffer_settle (GstBuffer * buf);

/* Tests: from now on each map of a bracket memory that finds no record
 * waits until n such maps have (n < 2: no wait). */
void gstc_bracket_test_hold_misses (int n);

/* Tests: the per-memory records made and freed since the process
 * started. */
void gstc_bracket_test_records (guint64 * made, guint64 * freed);

#endif /* GSTC_BRACKETALLOC_H */
