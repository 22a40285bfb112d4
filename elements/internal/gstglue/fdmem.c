/* fdmem.c: fd and DMA-BUF GstMemory that never closes its fd and reports
 * its own free. Each function's contract — what it owns, borrows and takes
 * over, and who may call it — is its comment in fdmem.h; the Go side is
 * fdmem.go. */
#include "fdmem.h"
#include "qdata.h"

GstMemory *
gstc_wrap_fd (GstAllocator * alloc, int dmabuf, int fd, gsize size,
    int flags, GQuark q, uintptr_t handle)
{
  GstMemory *mem;

  /* The fd belongs to the caller: GStreamer must never close it. */
  flags |= GST_FD_MEMORY_FLAG_DONT_CLOSE;
  if (dmabuf)
    mem = gst_dmabuf_allocator_alloc_with_flags (alloc, fd, size, flags);
  else
    mem = gst_fd_allocator_alloc (alloc, fd, size, flags);
  if (mem != NULL && handle != 0)
    gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), q,
        (gpointer) handle, gstc_handle_destroy);
  return mem;
}
