package tensorsrc

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Fence waits before a slot is written.
//
// A slot's dma-buf may still carry fences when it comes round: a write
// fence the application attached (SetWriteFence) whose device has not
// finished, or a device reader's. The CPU must not write before they
// signal. The wait is this element's own — poll() on the dma-buf (POLLOUT:
// every fence signalled) together with an eventfd that wakes it — so that
// it runs with no lock held and anything that must end it can: Stop and a
// renegotiation (every wait), a flush (create's wait), the caller's
// context (Acquire's wait). sync-timeout bounds it (0: no bound, but
// still interruptible). Only then is the bracket opened
// (tensor.BeginCPUAccess), and its START no longer blocks — unless a new
// fence was attached between the poll and the START, which the kernel
// then waits for (tensor's own bounded wait has the same window).

// slotFence returns the fd and poll events a write to sl waits on for its
// dma-buf's fences, or ok=false when its memory carries none (memfd). It
// is a variable so this package's tests can stand a pipe in for a fenced
// dma-buf; production code never reassigns it.
var slotFence = func(sl *Slot) (fd int, events int16, ok bool) {
	if sl.t.Backend() != tensor.BackendDMABuf {
		return 0, 0, false
	}
	return sl.t.FD(), unix.POLLOUT, true
}

// fenceStandIn is set while a test stands a pipe in for a slot's fences
// (slotFence replaced): configureFrameLocked then gives the C frame the
// stand-in's fd to poll instead of the dma-buf's.
var fenceStandIn atomic.Bool

// errWaitInterrupted: a fence wait was woken by what it must give way to
// (stop, flush, renegotiation, a cancelled context).
var errWaitInterrupted = errors.New("tensorsrc: fence wait interrupted")

// fenceWaiter is one fence wait in progress; wake makes its poll return.
type fenceWaiter struct{ efd int }

var eventfdOne = [8]byte{1} // the eventfd counter's increment, little-endian

func (w *fenceWaiter) wake() { unix.Write(w.efd, eventfdOne[:]) }

// wakeWaitersLocked wakes every fence wait in progress (each checks
// whether it must give up). Called with e.mu held: an eventfd write does
// not block.
func (e *element) wakeWaitersLocked() {
	for w := range e.waiters {
		w.wake()
	}
}

// waitSlotFences waits, with e.mu not held, for the fences a write to sl
// must wait for, at most st.syncTimeout (0: no bound). stopped reports,
// with e.mu held, whether the wait must give up; it is checked before the
// wait blocks and whenever it is woken. ctx, if it can be done (Done is
// not nil: not context.Background), wakes the wait when it is done; the
// streaming thread passes context.Background and registers nothing. It records a wait that blocked in st's stats and
// returns how long it blocked; errors: errWaitInterrupted, a timeout
// wrapping tensor.ErrFenceTimeout, or a poll error wrapping
// tensor.ErrSync.
func (e *element) waitSlotFences(ctx context.Context, st *state, sl *Slot, stopped func() bool) (time.Duration, error) {
	fd, events, ok := slotFence(sl)
	if !ok {
		return 0, nil
	}
	// Fast path: most slots are ready (their fences long signalled).
	fds := [2]unix.PollFd{{Fd: int32(fd), Events: events}}
	for {
		_, err := unix.Ppoll(fds[:1], &unix.Timespec{}, nil)
		if err == nil {
			break
		}
		if err != unix.EINTR && err != unix.EAGAIN {
			return 0, st.pollError(sl, 0, err)
		}
	}
	if fds[0].Revents&events != 0 {
		return 0, nil
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return 0, st.pollError(sl, 0, fmt.Errorf("eventfd: %w", err))
	}
	w := &fenceWaiter{efd: efd}
	e.mu.Lock()
	if stopped() {
		e.mu.Unlock()
		unix.Close(efd)
		return 0, errWaitInterrupted
	}
	if e.waiters == nil {
		e.waiters = map[*fenceWaiter]struct{}{}
	}
	e.waiters[w] = struct{}{}
	e.mu.Unlock()
	unwatch := func() bool { return false }
	if ctx.Done() != nil {
		unwatch = context.AfterFunc(ctx, w.wake)
	}
	defer func() {
		unwatch()
		e.mu.Lock()
		delete(e.waiters, w)
		e.mu.Unlock()
		unix.Close(efd)
	}()

	start := time.Now()
	var deadline time.Time
	if st.syncTimeout > 0 {
		deadline = start.Add(st.syncTimeout)
	}
	for {
		var ts *unix.Timespec
		if !deadline.IsZero() {
			remaining := time.Until(deadline)
			if remaining <= 0 {
				waited := time.Since(start)
				st.stats.fences.Record(waited)
				st.stats.fences.Timeout()
				return waited, fmt.Errorf("dma-buf %v (fd %d): fences for %v access not signalled after %v (limit %v): %w",
					sl.id, fd, tensor.AccessReadWrite, waited.Round(time.Microsecond), st.syncTimeout, tensor.ErrFenceTimeout)
			}
			t := unix.NsecToTimespec(int64(remaining))
			ts = &t
		}
		fds = [2]unix.PollFd{{Fd: int32(fd), Events: events}, {Fd: int32(efd), Events: unix.POLLIN}}
		_, err := unix.Ppoll(fds[:], ts, nil)
		if err != nil {
			if err == unix.EINTR || err == unix.EAGAIN {
				continue // a signal: poll again with what remains
			}
			waited := time.Since(start)
			st.stats.fences.Record(waited)
			return waited, st.pollError(sl, waited, err)
		}
		if fds[0].Revents&events != 0 {
			waited := time.Since(start)
			st.stats.fences.Record(waited)
			return waited, nil
		}
		if fds[0].Revents&(unix.POLLERR|unix.POLLNVAL) != 0 {
			waited := time.Since(start)
			st.stats.fences.Record(waited)
			return waited, st.pollError(sl, waited, unix.EBADF)
		}
		if fds[1].Revents&unix.POLLIN != 0 {
			var b [8]byte
			unix.Read(efd, b[:]) // reset the counter: a wake-up that is not for us must not spin
			e.mu.Lock()
			give := stopped()
			e.mu.Unlock()
			if give {
				waited := time.Since(start)
				st.stats.fences.Record(waited)
				return waited, errWaitInterrupted
			}
		}
	}
}

func (st *state) pollError(sl *Slot, waited time.Duration, err error) error {
	st.stats.syncErrors.Add(1)
	return fmt.Errorf("poll on dma-buf %v for %v access after %v: %w: %w", sl.id, tensor.AccessReadWrite, waited, tensor.ErrSync, err)
}

// openForWrite waits for sl's fences (waitSlotFences, e.mu not held) and
// then opens (or joins) its bracket for the CPU's write. It counts the
// bracket; on error no bracket is open.
func (e *element) openForWrite(ctx context.Context, st *state, sl *Slot, stopped func() bool) error {
	if _, err := e.waitSlotFences(ctx, st, sl, stopped); err != nil {
		return err
	}
	// The slot's bracket is the C ring's, which counts the open
	// (runStats.c).
	if err := sl.r.out.OpenWrites(sl.idx); err != nil {
		st.stats.syncErrors.Add(1)
		return fmt.Errorf("%w: %w", tensor.ErrSync, err)
	}
	return nil
}
