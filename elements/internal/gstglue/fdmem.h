/* fdmem.h: C side of fdmem.go — fd and DMA-BUF GstMemory that never
 * closes its fd and reports its own free. */
#ifndef GSTC_FDMEM_H
#define GSTC_FDMEM_H

#include "cgo.h"
#include "bracketalloc.h"

/* Wraps fd (flags: extra GstFdMemoryFlags; DONT_CLOSE is always added).
 * The handle (0 for none) is attached as qdata under quark q and released
 * through gstc_handle_destroy when the memory is freed. */
GstMemory *gstc_wrap_fd (GstAllocator * alloc, int dmabuf, int fd,
    gsize size, int flags, GQuark q, uintptr_t handle);

/* Marks a process-lifetime object as expected to be alive at exit (the
 * leaks tracer skips it). */
static inline void
gstc_object_flag_may_be_leaked (gpointer obj)
{
  GST_OBJECT_FLAG_SET (obj, GST_OBJECT_FLAG_MAY_BE_LEAKED);
}

#endif /* GSTC_FDMEM_H */
