package tensor

import (
	"errors"
	"os"
)

// Sentinel errors of this package. Returned errors wrap them with the
// operation and values involved; match them with errors.Is.
var (
	// ErrUnknownBufferType: an fd is neither a dma-buf nor a tmpfs/memfd file.
	ErrUnknownBufferType = errors.New("tensor: fd is neither a dma-buf nor shared memory")
	// ErrOutOfBounds: an offset, view or extent lies outside the storage.
	ErrOutOfBounds = errors.New("tensor: out of bounds")
	// ErrInvalidLayout: a dtype, shape or stride that cannot describe a tensor.
	ErrInvalidLayout = errors.New("tensor: invalid layout")
	// ErrOverflow: sizes that do not fit in an int.
	ErrOverflow = errors.New("tensor: size overflows")
	// ErrClosed: the tensor was closed. It is os.ErrClosed.
	ErrClosed = os.ErrClosed
	// ErrNotSupported: the backend or operation is not available here.
	ErrNotSupported = errors.New("tensor: not supported")
	// ErrAccess: an access mode that is none, unknown, or not allowed
	// (writing through a read guard, or into a read-only mapping).
	ErrAccess = errors.New("tensor: access not allowed")
	// ErrUnbalancedSync: SyncForDevice with no open SyncForCPU bracket of the
	// same access.
	ErrUnbalancedSync = errors.New("tensor: sync-for-device without a matching sync-for-cpu")
	// ErrSync: DMA_BUF_IOCTL_SYNC failed (wrapped with the errno).
	ErrSync = errors.New("tensor: dma-buf sync failed")
	// ErrFenceTimeout: a dma-buf's fences were not all signalled within the
	// time limit of BeginCPUAccessTimeout; no bracket was opened.
	ErrFenceTimeout = errors.New("tensor: dma-buf fences not signalled in time")
	// ErrLent: Close, Reshape, SyncForCPU or SyncForDevice on a tensor
	// handed out by its owner (Lend) — such as a frame's tensor from
	// tensorpinsink — which the owner alone may change or close.
	ErrLent = errors.New("tensor: lent by its owner, who alone may close, reshape or bracket it")
)
