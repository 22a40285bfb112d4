// Package tensor describes typed, shaped memory — a dma-buf, a memfd or a
// pinned Go buffer — and brackets CPU access to it with cache-coherency
// syncs. It does not import GStreamer.
//
// A [Tensor] is a [Layout] (dtype, shape outermost first, row stride,
// byte offset) over a storage. Storage comes from:
//
//   - [ImportFD] (dups the fd; the caller keeps its own) or [AdoptFD] (takes
//     ownership of the fd). The fd is classified with fstatfs: a dma-buf
//     (DMA_BUF_MAGIC) or a tmpfs/hugetlbfs regular file (memfd, /dev/shm);
//     anything else is [ErrUnknownBufferType]. Capacity is fstat's size;
//     identity is (st_dev, st_ino), so a dup'd fd and every view share it.
//   - [Alloc]: the DMA heap (/dev/dma_heap/system), then memfd, then the Go
//     heap (64-byte aligned, pinned with runtime.Pinner); [BackendEnv] forces
//     one source, and /dev/udmabuf can be asked for explicitly.
//
// Lifetime rules:
//
//   - The storage (and its fd) lives until the last tensor on it — the
//     original and every [Tensor.View] — is closed. Each must be closed.
//   - [Tensor.PinHost] returns a pin.HostPin on the storage's one long-lived
//     mapping, created at the first pin or guard and shared by all later
//     ones. Pins do not borrow the tensor: it may be reshaped, viewed and
//     closed while they live; the mapping goes when the storage is closed
//     and the last pin is released.
//   - A pin keeps the address valid, not the content. CPU access to a
//     dma-buf is bracketed: [Tensor.SyncForCPU](a) before reading or
//     writing, [Tensor.SyncForDevice](a) with the same access after.
//     DMA_BUF_IOCTL_SYNC is retried on EINTR/EAGAIN; an fd that answers
//     ENOTTY is coherent and is not asked again. SHM and heap tensors need no
//     ioctl, but their brackets are still counted, so an unbalanced
//     SyncForDevice is [ErrUnbalancedSync] on every backend.
//   - [Tensor.Map] wraps a bracket in a [Guard]; its Close ends the bracket.
//   - A bracket is the buffer's, process-wide: every import of one dma-buf
//     shares it, and so does C code of this module (the elements' steady
//     frames, through the state word internal/bracketabi describes); the
//     first one in STARTs, the last one out ENDs, and [ReadStats] counts
//     both sides' ioctls.
//
// Layouts are validated with overflow-checked arithmetic; out-of-range
// offsets, views and strides are errors, never clamped. [ReadStats] returns
// process-wide counters (mmaps, sync ioctls by kind, retries, errors) for
// asserting what a frame cost.
package tensor
