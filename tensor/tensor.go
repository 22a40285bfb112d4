package tensor

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

// Tensor is a typed, shaped window on fd-backed or heap storage.
//
// A Tensor owns one reference on its storage (the fd, for fd backends);
// Close drops it, and the fd is closed when the last tensor or view on it is
// closed. Pins made with PinHost hold the host mapping, not the tensor: they
// stay valid after Close. A Tensor's layout methods are not safe to call
// concurrently with Reshape; SyncForCPU/SyncForDevice and PinHost are safe
// for concurrent use.
type Tensor struct {
	st     *storage
	layout Layout
	geom   Geometry
	closed atomic.Bool
	// lender is the tensor this one was lent from (Lend), or nil: a lent
	// tensor holds no reference of its own and refuses what would change
	// its owner's tensor or brackets.
	lender *Tensor
}

func newTensor(st *storage, l Layout) (*Tensor, error) {
	g, err := l.check(st.capacity)
	if err != nil {
		return nil, err
	}
	return &Tensor{st: st, layout: l.clone(), geom: g}, nil
}

// Layout returns the tensor's layout (its Shape is a copy).
func (t *Tensor) Layout() Layout { return t.layout.clone() }

// Geometry returns the sizes the layout works out to.
func (t *Tensor) Geometry() Geometry { return t.geom }

// DType returns the element type.
func (t *Tensor) DType() DType { return t.layout.DType }

// Shape returns a copy of the shape, outermost first.
func (t *Tensor) Shape() []int { return slices.Clone(t.layout.Shape) }

// RowStride returns the bytes between row starts.
func (t *Tensor) RowStride() int { return t.geom.Stride }

// Offset returns the byte offset of the first element in the storage.
func (t *Tensor) Offset() int { return t.layout.Offset }

// Size returns the logical size in bytes: the elements alone, no padding.
func (t *Tensor) Size() int { return t.geom.Size }

// Capacity returns the size of the whole storage in bytes (fstat's st_size
// for an fd).
func (t *Tensor) Capacity() int { return t.st.capacity }

// Backend returns the kind of storage.
func (t *Tensor) Backend() Backend { return t.st.backend }

// Identity returns (st_dev, st_ino) of the storage, shared by views and by
// every import of the same file.
func (t *Tensor) Identity() Identity { return t.st.id }

// FD returns the storage's fd, or -1 for heap tensors. The fd is borrowed:
// it is owned by the storage and closed when the last tensor on it closes.
func (t *Tensor) FD() int { return t.st.fd }

// Coherent reports whether the fd answered ENOTTY to a sync, i.e. needs no
// cache maintenance (always false before the first sync of a dma-buf).
func (t *Tensor) Coherent() bool { return t.st.sync.coherent.Load() }

// OpenSyncs returns the number of CPU brackets opened on the storage and not
// yet closed: non-zero after a frame is done means an unbalanced bracket.
func (t *Tensor) OpenSyncs() int { return t.st.sync.openBrackets() }

func (t *Tensor) usable(op string) error {
	if t.closed.Load() || t.lender != nil && t.lender.closed.Load() {
		return fmt.Errorf("%s on tensor %v: %w", op, t.st.id, ErrClosed)
	}
	return nil
}

// changeable is usable for the operations a lent tensor refuses.
func (t *Tensor) changeable(op string) error {
	if t.lender != nil {
		return fmt.Errorf("%s on tensor %v: %w", op, t.st.id, ErrLent)
	}
	return t.usable(op)
}

// Lend returns a handle on t for code that may read the tensor but must
// not change it: an owner hands it out (tensorpinsink's frames do) and
// keeps its own tensor safe. The handle has t's layout and storage and
// holds no reference: it is valid while t is open (then its methods
// return ErrClosed). Close, Reshape, SyncForCPU, BeginCPUAccess* and
// SyncForDevice/EndCPUAccess return ErrLent and change nothing; the
// getters, PinHost, Map (a guard's bracket is balanced by its own Close),
// View and Alias (new tensors of the caller's, to Close) work as on t.
// Lend allocates; call it once per tensor handed out, not per use.
func (t *Tensor) Lend() *Tensor {
	owner := t
	if t.lender != nil {
		owner = t.lender
	}
	return &Tensor{st: t.st, layout: t.layout.clone(), geom: t.geom, lender: owner}
}

// Lent reports whether the tensor was handed out by Lend.
func (t *Tensor) Lent() bool { return t.lender != nil }

// Reshape gives the tensor a new layout on the same storage. Pins made
// before keep their windows; the tensor may be reshaped while they live.
func (t *Tensor) Reshape(l Layout) error {
	if err := t.changeable("reshape"); err != nil {
		return err
	}
	g, err := l.check(t.st.capacity)
	if err != nil {
		return fmt.Errorf("reshape tensor %v: %w", t.st.id, err)
	}
	t.layout, t.geom = l.clone(), g
	return nil
}

// View returns a new tensor over a region of this one, sharing its storage
// and identity and taking its own reference on it (Close it too). A region
// outside the tensor is ErrOutOfBounds; one that rows and a single stride
// cannot describe is ErrInvalidLayout.
func (t *Tensor) View(r Region) (*Tensor, error) {
	if err := t.usable("view"); err != nil {
		return nil, err
	}
	l, err := t.layout.view(t.geom, r)
	if err != nil {
		return nil, err
	}
	v, err := newTensor(t.st, l)
	if err != nil {
		return nil, err
	}
	if err := t.st.keep.Acquire(); err != nil {
		return nil, fmt.Errorf("view of tensor %v: %w", t.st.id, ErrClosed)
	}
	return v, nil
}

// Alias returns a new tensor over the same storage with layout l — for
// another reading of the same bytes, such as one plane of a video frame
// (l.Offset is from the start of the storage). It shares the storage and
// identity and takes its own reference (Close it too). A layout that does
// not fit the storage is an error, never a clamp.
func (t *Tensor) Alias(l Layout) (*Tensor, error) {
	if err := t.usable("alias"); err != nil {
		return nil, err
	}
	v, err := newTensor(t.st, l)
	if err != nil {
		return nil, fmt.Errorf("alias of tensor %v: %w", t.st.id, err)
	}
	if err := t.st.keep.Acquire(); err != nil {
		return nil, fmt.Errorf("alias of tensor %v: %w", t.st.id, ErrClosed)
	}
	return v, nil
}

// PinHost returns a pin at the tensor's first element whose length is the
// extent of its rows (the logical size when rows are packed; never the
// padding after the last row or the rest of the capacity). The pin is made
// on the storage's one long-lived mapping (created on first use, then
// shared by every pin), so it costs no mmap after the first. The pin does
// not borrow the tensor: it stays valid after Reshape and Close.
func (t *Tensor) PinHost() (pin.HostPin, error) {
	if err := t.usable("pin"); err != nil {
		return pin.HostPin{}, err
	}
	return t.st.hostPin(t.layout.Offset, t.geom.Extent)
}

// SyncForCPU opens a CPU-access bracket: DMA_BUF_IOCTL_SYNC with
// START|access for a dma-buf (retried on EINTR/EAGAIN; an fd that answers
// ENOTTY is remembered as coherent), nothing for SHM and heap tensors.
// Brackets belong to the buffer: while another tensor over the same
// buffer (same Identity) in this process has one open that covers a, this
// call joins it without an ioctl. Close it with SyncForDevice and the same
// access. AccessNone is ErrAccess.
func (t *Tensor) SyncForCPU(a Access) error {
	_, err := t.BeginCPUAccess(a)
	return err
}

// BeginCPUAccess is SyncForCPU that also reports whether the call joined a
// bracket already open on the buffer (no ioctl) rather than opening one.
func (t *Tensor) BeginCPUAccess(a Access) (joined bool, err error) {
	joined, _, err = t.BeginCPUAccessTimeout(a, 0)
	return joined, err
}

// BeginCPUAccessTimeout is BeginCPUAccess that, for a dma-buf, first waits
// at most timeout for the buffer's fences — poll() on its fd: for
// AccessRead until its writers are done, for a write until every fence
// has signalled — and only then issues the START ioctl, which then does
// not block. timeout ≤ 0 does not wait here (the kernel waits inside
// START, without a limit: BeginCPUAccess). Joining a bracket that is
// already open with access a does not wait: its opener did. It reports
// how long it blocked (0 when the fences had already signalled: one
// poll, nothing counted). On timeout the error wraps ErrFenceTimeout,
// names the buffer, the access and the time waited, and no bracket is
// open — not on this tensor, not on the buffer. SHM and heap tensors have
// no fences and never wait. Waits and timeouts are counted in Stats.
func (t *Tensor) BeginCPUAccessTimeout(a Access, timeout time.Duration) (joined bool, waited time.Duration, err error) {
	if err := t.changeable("sync for cpu"); err != nil {
		return false, 0, err
	}
	return t.st.beginCPU(a, timeout)
}

// SyncForDevice closes a bracket opened by SyncForCPU with the same access.
// The buffer's bracket ends — DMA_BUF_IOCTL_SYNC END for a dma-buf, with
// every access it was opened or joined for — when the last tensor inside
// it leaves. Without an open bracket of that access on this tensor it is
// ErrUnbalancedSync and no ioctl is made.
func (t *Tensor) SyncForDevice(a Access) error {
	_, err := t.EndCPUAccess(a)
	return err
}

// EndCPUAccess is SyncForDevice that also reports whether this call ended
// the buffer's bracket (it was the last inside).
//
// It works after Close too: an open bracket holds a reference on the
// storage (its fd and mapping), so a tensor closed inside a bracket can
// still end it, and the END reaches the file the START did — never another
// file that has since taken the fd's number.
func (t *Tensor) EndCPUAccess(a Access) (closed bool, err error) {
	if t.lender != nil {
		return false, fmt.Errorf("sync for device on tensor %v: %w", t.st.id, ErrLent)
	}
	return t.st.endCPU(a)
}

// Close drops this tensor's reference on its storage; the last one closes
// the fd. Pins stay valid, and so do open brackets and guards: each holds
// its own reference, so the fd is closed only after their END. Close is
// idempotent.
func (t *Tensor) Close() error {
	if t.lender != nil {
		return fmt.Errorf("close tensor %v: %w", t.st.id, ErrLent)
	}
	if !t.closed.CompareAndSwap(false, true) {
		return nil
	}
	return t.st.keep.Release()
}

// String describes the tensor for logs.
func (t *Tensor) String() string {
	return fmt.Sprintf("tensor(%v %v %v stride %d offset %d of %d bytes, %v)",
		t.st.backend, t.layout.DType, t.layout.Shape, t.geom.Stride, t.layout.Offset, t.st.capacity, t.st.id)
}
