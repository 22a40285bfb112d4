package tensorsrc

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Fence waits before an application's slot is written.
//
// A slot's dma-buf may still carry fences when it comes round: a write
// fence the application attached (SetWriteFence) whose device has not
// finished, or a device reader's. The CPU must not write before they
// signal. Acquire waits for them in C, on the same wake as its wait for a
// free slot (the element's appWake): a poll on the dma-buf (POLLOUT: every
// fence signalled) that the wake's interrupts end — a stop, a new ring,
// the end of the stream, a cancelled context — with no lock held;
// sync-timeout bounds it (0: no bound, but still interruptible). Only
// then is the bracket opened, and its START no longer blocks — unless a
// new fence was attached between the poll and the START, which the kernel
// then waits for. (create's wait for a built-in pattern's slot is the C
// frame's own: srcframe.c.)

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

// errWaitInterrupted: a fence wait was ended by what it must give way to
// (stop, renegotiation, the end of the stream, a cancelled context).
var errWaitInterrupted = errors.New("tensorsrc: fence wait interrupted")

// waitSlotFences waits, with e.mu not held, for the fences a write to sl
// must wait for, at most st.syncTimeout (0: no bound), in C on the
// application's wake (frameengine.Wake.PollInterruptible): an interrupt
// read after gen ends it when stopped reports (with e.mu held) that the
// wait must give up; another goroutine's interrupt (a cancelled context
// of another Acquire) makes it poll again. It records a wait that blocked
// in st's stats and returns how long it blocked; errors:
// errWaitInterrupted, a timeout wrapping tensor.ErrFenceTimeout, or a
// poll error wrapping tensor.ErrSync.
func (e *element) waitSlotFences(st *state, sl *Slot, gen int32, stopped func() bool) (time.Duration, error) {
	fd, events, ok := slotFence(sl)
	if !ok {
		return 0, nil
	}
	var total time.Duration
	timedOut := func() (time.Duration, error) {
		st.stats.fences.Record(total)
		st.stats.fences.Timeout()
		return total, fmt.Errorf("dma-buf %v (fd %d): fences for %v access not signalled after %v (limit %v): %w",
			sl.id, fd, tensor.AccessReadWrite, total.Round(time.Microsecond), st.syncTimeout, tensor.ErrFenceTimeout)
	}
	for {
		var left time.Duration // 0: no bound
		if st.syncTimeout > 0 {
			if left = st.syncTimeout - total; left <= 0 {
				return timedOut()
			}
		}
		r, waited, err := e.appWake.PollInterruptible(gen, fd, events, left)
		total += waited
		switch {
		case err != nil:
			st.stats.fences.Record(total)
			return total, st.pollError(sl, total, err)
		case r == frameengine.PollReady:
			if total > 0 {
				st.stats.fences.Record(total)
			}
			return total, nil
		case r == frameengine.PollTimedOut:
			return timedOut()
		}
		gen = e.appWake.Gen()
		e.mu.Lock()
		give := stopped()
		e.mu.Unlock()
		if give {
			st.stats.fences.Record(total)
			return total, errWaitInterrupted
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
func (e *element) openForWrite(st *state, sl *Slot, gen int32, stopped func() bool) error {
	if _, err := e.waitSlotFences(st, sl, gen, stopped); err != nil {
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
