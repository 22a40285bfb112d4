package tensor

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
)

// Fences.
//
// A dma-buf written by a device carries implicit fences (in its
// reservation object) until the device is done. DMA_BUF_IOCTL_SYNC START
// waits for them inside the kernel with no time limit, so a device that
// never signals would hang the caller for good. BeginCPUAccessTimeout
// waits first, with poll() on the dma-buf fd and a limit — POLLIN is ready
// when every writer's fence has signalled (what a reader needs), POLLOUT
// when every fence has (what a writer needs) — and issues START only
// then, when it no longer blocks. A new fence attached between the poll
// and the START is still waited for by the kernel: the poll bounds the
// wait for the fences that were there, which is what a stuck device leaves.

// fenceEvents is the poll event a CPU access with access a waits for.
func fenceEvents(a Access) int16 {
	if a == AccessRead {
		return unix.POLLIN // the writers' fences
	}
	return unix.POLLOUT // every fence: a writer must not overtake readers either
}

// pollFence polls fd once for events with a time limit (0: do not block)
// and reports whether it is ready. It is a variable so this package's
// tests can stand in for a fenced dma-buf over a memfd (which is always
// ready); production code never reassigns it.
var pollFence = func(fd int, events int16, timeout time.Duration) (bool, error) {
	pfd := unix.PollFd{Fd: int32(fd), Events: events}
	ts := unix.NsecToTimespec(int64(timeout))
	// ppoll, not poll: nanoseconds, so the limit is not rounded to a
	// millisecond; and a raw syscall, so nothing escapes to the heap.
	n, _, e := unix.Syscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	if e != 0 {
		return false, e
	}
	if n == 0 {
		return false, nil
	}
	if pfd.Revents&(unix.POLLERR|unix.POLLNVAL) != 0 {
		return false, unix.EBADF
	}
	return pfd.Revents&events != 0, nil
}

// pollOnce is pollFence behind the fault seam.
func pollOnce(fd int, events int16, timeout time.Duration) (bool, error) {
	if e := faultinject.Fault(faultinject.FencePoll); e != 0 {
		return false, e // a test's injected fault, handled as the kernel's would be
	}
	return pollFence(fd, events, timeout)
}

// waitFences waits up to timeout for the fences a CPU access a to the
// dma-buf st must wait for, and reports how long it blocked (0 when the
// buffer was ready at once: one poll, no clock read). EINTR and EAGAIN are
// retried with the time that remains. On timeout the error wraps
// ErrFenceTimeout and names the buffer, the access and the time waited.
func (st *storage) waitFences(a Access, timeout time.Duration) (time.Duration, error) {
	events := fenceEvents(a)
	// Fast path: most frames are ready (their fences long signalled).
	for try := 0; ; try++ {
		ready, err := pollOnce(st.fd, events, 0)
		if err == nil {
			if ready {
				return 0, nil
			}
			break
		}
		if !retryable(err) || try >= maxSyncRetries {
			return 0, st.pollError(a, 0, err)
		}
	}
	start := time.Now()
	deadline := start.Add(timeout)
	var waited time.Duration
	for try := 0; ; try++ {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			waited = time.Since(start)
			counters.fences.Record(waited)
			counters.fences.Timeout()
			return waited, fmt.Errorf("dma-buf %v (fd %d): fences for %v access not signalled after %v (limit %v): %w",
				st.id, st.fd, a, waited.Round(time.Microsecond), timeout, ErrFenceTimeout)
		}
		ready, err := pollOnce(st.fd, events, remaining)
		if err != nil {
			if retryable(err) && try < maxSyncRetries {
				continue // a signal: poll again with what remains
			}
			waited = time.Since(start)
			counters.fences.Record(waited)
			return waited, st.pollError(a, waited, err)
		}
		if ready {
			waited = time.Since(start)
			counters.fences.Record(waited)
			return waited, nil
		}
	}
}

func retryable(err error) bool { return errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) }

func (st *storage) pollError(a Access, waited time.Duration, err error) error {
	return fmt.Errorf("poll on dma-buf %v (fd %d) for %v access after %v: %w: %w", st.id, st.fd, a, waited, ErrSync, err)
}

// FenceWaitCounter counts fence waits: those that blocked (timed-out ones
// included), their total and longest time, and the timeouts. The zero
// value is ready; it is safe for concurrent use and allocates nothing.
// Package tensor keeps one for the process (Stats); the elements keep
// their own.
type FenceWaitCounter struct {
	waits, nanos, maxNanos, timeouts atomic.Uint64
}

// Record counts one wait that blocked for d.
func (c *FenceWaitCounter) Record(d time.Duration) {
	ns := uint64(max(d, 0))
	c.waits.Add(1)
	c.nanos.Add(ns)
	for {
		m := c.maxNanos.Load()
		if ns <= m || c.maxNanos.CompareAndSwap(m, ns) {
			return
		}
	}
}

// Timeout counts one wait that ran out of time.
func (c *FenceWaitCounter) Timeout() { c.timeouts.Add(1) }

// Read returns the counts.
func (c *FenceWaitCounter) Read() (waits, totalNanos, maxNanos, timeouts uint64) {
	return c.waits.Load(), c.nanos.Load(), c.maxNanos.Load(), c.timeouts.Load()
}

// Reset sets every count to zero.
func (c *FenceWaitCounter) Reset() {
	c.waits.Store(0)
	c.nanos.Store(0)
	c.maxNanos.Store(0)
	c.timeouts.Store(0)
}

// ExportSyncFile returns a new sync_file fd holding the fences a CPU
// access a to this dma-buf would wait for (DMA_BUF_IOCTL_EXPORT_SYNC_FILE:
// for AccessRead the writers' fences, for a write every fence). The fd is
// the caller's, to close; it can be polled, or attached to another
// dma-buf with ImportSyncFile. Only for BackendDMABuf; others are
// ErrNotSupported.
func (t *Tensor) ExportSyncFile(a Access) (int, error) {
	if err := t.usable("export sync file"); err != nil {
		return -1, err
	}
	if !a.valid() {
		return -1, fmt.Errorf("export sync file with access %v: %w", a, ErrAccess)
	}
	if t.st.backend != BackendDMABuf {
		return -1, fmt.Errorf("export sync file from a %v tensor: %w", t.st.backend, ErrNotSupported)
	}
	arg := dmaBufSyncFile{flags: uint32(a), fd: -1}
	if err := ioctlPtr(t.st.fd, dmaBufIoctlExportSyncFile, unsafe.Pointer(&arg)); err != nil {
		return -1, fmt.Errorf("DMA_BUF_IOCTL_EXPORT_SYNC_FILE %v on dma-buf %v (fd %d): %w", a, t.st.id, t.st.fd, err)
	}
	return int(arg.fd), nil
}

// ImportSyncFile adds the fences of the sync_file syncFD to this dma-buf
// (DMA_BUF_IOCTL_IMPORT_SYNC_FILE) as the fences of an access a: with
// AccessWrite (or AccessReadWrite) as a writer's, which every later reader
// and writer waits for; with AccessRead as a reader's, which only later
// writers wait for. This is how an application makes a device's pending
// write visible to the consumers' bounded wait. syncFD stays the
// caller's: the kernel takes its own reference on the fences, so close it
// whenever convenient. Only for BackendDMABuf; others are ErrNotSupported.
func (t *Tensor) ImportSyncFile(a Access, syncFD int) error {
	if err := t.changeable("import sync file"); err != nil {
		return err
	}
	if !a.valid() {
		return fmt.Errorf("import sync file with access %v: %w", a, ErrAccess)
	}
	if t.st.backend != BackendDMABuf {
		return fmt.Errorf("import sync file into a %v tensor: %w", t.st.backend, ErrNotSupported)
	}
	arg := dmaBufSyncFile{flags: uint32(a), fd: int32(syncFD)}
	if err := ioctlPtr(t.st.fd, dmaBufIoctlImportSyncFile, unsafe.Pointer(&arg)); err != nil {
		return fmt.Errorf("DMA_BUF_IOCTL_IMPORT_SYNC_FILE %v of sync_file fd %d on dma-buf %v (fd %d): %w", a, syncFD, t.st.id, t.st.fd, err)
	}
	return nil
}
