package tensor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	fi "github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
)

// fakePoll replaces the fence poll for one test: answer decides each
// call's result; every call's events and limit are recorded.
type fakePoll struct {
	events   []int16
	timeouts []time.Duration
}

func installPoll(t *testing.T, answer func(call int, timeout time.Duration) (bool, error)) *fakePoll {
	f := &fakePoll{}
	t.Cleanup(setPollFence(func(fd int, events int16, timeout time.Duration) (bool, error) {
		f.events = append(f.events, events)
		f.timeouts = append(f.timeouts, timeout)
		return answer(len(f.events), timeout)
	}))
	return f
}

// recordIdle reports whether the shared bracket table holds nothing of
// id beyond the user each of its storages keeps for its life (storages of
// them): no bracket open in its record, no other user (a failed enter's
// left behind). With no storage left, no record at all.
func recordIdle(id Identity, storages int) bool {
	brackets.mu.Lock()
	defer brackets.mu.Unlock()
	b := brackets.open[id]
	if b == nil {
		return storages == 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	refs, _ := b.state()
	return refs == 0 && b.users == storages
}

// A memfd is always ready: the real poll returns at once, nothing is
// counted as a wait, and the bracket is one START and one END.
func TestFenceWaitOnReadyBufferCostsOnePollAndNoWait(t *testing.T) {
	for _, a := range []Access{AccessRead, AccessWrite, AccessReadWrite} {
		f := installFake(t)
		tn := dmabufOverMemfd(t)
		before := ReadStats()
		joined, waited, err := tn.BeginCPUAccessTimeout(a, time.Second)
		if err != nil || joined || waited != 0 {
			t.Fatalf("%v: joined %v waited %v err %v, want a fresh bracket with no wait", a, joined, waited, err)
		}
		if err := tn.SyncForDevice(a); err != nil {
			t.Fatal(err)
		}
		s := ReadStats()
		if s.FenceWaits != before.FenceWaits || s.FenceTimeouts != before.FenceTimeouts || len(f.calls) != 2 {
			t.Fatalf("%v: fence waits %d timeouts %d ioctls %v", a, s.FenceWaits-before.FenceWaits,
				s.FenceTimeouts-before.FenceTimeouts, f.calls)
		}
	}
}

func TestFenceEventsFollowTheAccess(t *testing.T) {
	installFake(t)
	p := installPoll(t, func(int, time.Duration) (bool, error) { return true, nil })
	tn := dmabufOverMemfd(t)
	for _, a := range []Access{AccessRead, AccessWrite, AccessReadWrite} {
		if _, _, err := tn.BeginCPUAccessTimeout(a, time.Second); err != nil {
			t.Fatal(err)
		}
		tn.SyncForDevice(a)
	}
	want := []int16{unix.POLLIN, unix.POLLOUT, unix.POLLOUT}
	if len(p.events) != 3 || p.events[0] != want[0] || p.events[1] != want[1] || p.events[2] != want[2] {
		t.Fatalf("poll events %v, want %v (readers wait for writers, writers for every fence)", p.events, want)
	}
	if p.timeouts[0] != 0 {
		t.Fatalf("the first poll of a wait has limit %v, want 0 (the ready fast path)", p.timeouts[0])
	}
}

// timeout 0 is today's behaviour: no poll at all, the kernel waits in START.
func TestFenceTimeoutZeroDoesNotPoll(t *testing.T) {
	installFake(t)
	p := installPoll(t, func(int, time.Duration) (bool, error) { return false, nil })
	tn := dmabufOverMemfd(t)
	if _, waited, err := tn.BeginCPUAccessTimeout(AccessRead, 0); err != nil || waited != 0 {
		t.Fatalf("waited %v err %v", waited, err)
	}
	tn.SyncForDevice(AccessRead)
	if len(p.events) != 0 {
		t.Fatalf("%d polls with timeout 0", len(p.events))
	}
}

// A fence that signals during the wait: one blocked wait, counted with its
// time, then the START.
func TestFenceWaitBlocksUntilSignalledThenStarts(t *testing.T) {
	f := installFake(t)
	const delay = 30 * time.Millisecond
	installPoll(t, func(call int, timeout time.Duration) (bool, error) {
		if call == 1 {
			return false, nil // not ready: the fast path fails
		}
		time.Sleep(delay) // the device finishing, as the kernel's poll would block
		return true, nil
	})
	tn := dmabufOverMemfd(t)
	before := ReadStats()
	_, waited, err := tn.BeginCPUAccessTimeout(AccessRead, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if waited < delay {
		t.Fatalf("waited %v, want at least %v", waited, delay)
	}
	s := ReadStats()
	if s.FenceWaits-before.FenceWaits != 1 || s.FenceWaitNanos-before.FenceWaitNanos != uint64(waited) ||
		s.FenceWaitMaxNanos < uint64(waited) || s.FenceTimeouts != before.FenceTimeouts {
		t.Fatalf("fence stats %+v → %+v after a %v wait", before, s, waited)
	}
	if len(f.calls) != 1 || f.calls[0] != uint64(AccessRead)|dmaBufSyncStart {
		t.Fatalf("ioctls %v, want one START after the wait", f.calls)
	}
	tn.SyncForDevice(AccessRead)
}

// A fence that never signals: ErrFenceTimeout naming the buffer, the access
// and the time waited; no START, no bracket, no shared record.
func TestFenceTimeoutLeavesNoBracketAndNoRecord(t *testing.T) {
	f := installFake(t)
	installPoll(t, func(call int, timeout time.Duration) (bool, error) {
		time.Sleep(timeout) // never ready: block for the whole limit
		return false, nil
	})
	tn := dmabufOverMemfd(t)
	before := ReadStats()
	const limit = 20 * time.Millisecond
	joined, waited, err := tn.BeginCPUAccessTimeout(AccessReadWrite, limit)
	if !errors.Is(err, ErrFenceTimeout) || joined {
		t.Fatalf("err %v joined %v, want ErrFenceTimeout", err, joined)
	}
	if waited < limit {
		t.Fatalf("gave up after %v, before the %v limit", waited, limit)
	}
	for _, want := range []string{tn.Identity().String(), "readwrite", "limit 20ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if len(f.calls) != 0 {
		t.Fatalf("ioctls %v after a timed-out wait", f.calls)
	}
	if tn.OpenSyncs() != 0 || !recordIdle(tn.Identity(), 1) {
		t.Fatalf("open %d, shared record busy: %v", tn.OpenSyncs(), !recordIdle(tn.Identity(), 1))
	}
	if _, open := OpenBracket(tn.Identity()); open {
		t.Fatal("the buffer's bracket is open after a timeout")
	}
	s := ReadStats()
	if s.FenceTimeouts-before.FenceTimeouts != 1 || s.FenceWaits-before.FenceWaits != 1 {
		t.Fatalf("timeouts %d waits %d, want 1 and 1", s.FenceTimeouts-before.FenceTimeouts, s.FenceWaits-before.FenceWaits)
	}
	if err := tn.SyncForDevice(AccessReadWrite); !errors.Is(err, ErrUnbalancedSync) {
		t.Fatalf("SyncForDevice after a timed-out begin: %v, want ErrUnbalancedSync", err)
	}
}

// A widening wait that times out leaves the reader's bracket as it was.
func TestFenceWideningTimeoutKeepsTheOpenBracket(t *testing.T) {
	installFake(t)
	installPoll(t, func(call int, timeout time.Duration) (bool, error) {
		if call == 1 {
			return true, nil // the reader's wait
		}
		time.Sleep(timeout)
		return false, nil
	})
	tn := dmabufOverMemfd(t)
	view, _ := tn.Alias(Layout{DType: U8, Shape: []int{16}})
	defer view.Close()
	if _, _, err := tn.BeginCPUAccessTimeout(AccessRead, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, _, err := view.BeginCPUAccessTimeout(AccessWrite, 5*time.Millisecond); !errors.Is(err, ErrFenceTimeout) {
		t.Fatalf("widening: %v, want ErrFenceTimeout", err)
	}
	if a, open := OpenBracket(tn.Identity()); !open || a != AccessRead {
		t.Fatalf("bracket %v open %v after a failed widening, want read and open", a, open)
	}
	if err := tn.SyncForDevice(AccessRead); err != nil {
		t.Fatal(err)
	}
	if !recordIdle(tn.Identity(), 1) {
		t.Fatal("shared record busy after the reader left")
	}
}

// poll's EINTR is retried (with the time that remains); another errno is
// an error naming poll, wrapping ErrSync and the errno, with no bracket.
func TestFenceFaultPollEINTRRetriedOtherErrnoFails(t *testing.T) {
	installFake(t)
	tn := dmabufOverMemfd(t)
	plan := install(t, fi.Nth(fi.FencePoll, 1, unix.EINTR))
	if _, _, err := tn.BeginCPUAccessTimeout(AccessRead, time.Second); err != nil {
		t.Fatalf("after an EINTR: %v", err)
	}
	tn.SyncForDevice(AccessRead)
	if plan.Injected(fi.FencePoll) != 1 || plan.Calls(fi.FencePoll) != 2 {
		t.Fatalf("calls %d injected %d, want a retry", plan.Calls(fi.FencePoll), plan.Injected(fi.FencePoll))
	}
	install(t, fi.Always(fi.FencePoll, unix.EIO))
	_, _, err := tn.BeginCPUAccessTimeout(AccessRead, time.Second)
	checkNamed(t, err, fi.FencePoll, unix.EIO)
	if !errors.Is(err, ErrSync) || errors.Is(err, ErrFenceTimeout) {
		t.Fatalf("%v: want ErrSync, not ErrFenceTimeout", err)
	}
	if tn.OpenSyncs() != 0 || !recordIdle(tn.Identity(), 1) {
		t.Fatal("a failed poll left a bracket or a user in the record")
	}
}

// The ready path allocates nothing: it runs per frame.
func TestFenceReadyPathDoesNotAllocate(t *testing.T) {
	installFake(t)
	tn := dmabufOverMemfd(t)
	n := testing.AllocsPerRun(100, func() {
		tn.BeginCPUAccessTimeout(AccessRead, time.Second)
		tn.EndCPUAccess(AccessRead)
	})
	if n != 0 {
		t.Fatalf("%v allocations per bracket with a fence wait", n)
	}
}

func TestFenceSyncFileNeedsADMABuf(t *testing.T) {
	tn, err := Alloc(Layout{DType: U8, Shape: []int{64}}, AllocOptions{Source: SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	if _, err := tn.ExportSyncFile(AccessRead); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("export from memfd: %v", err)
	}
	if err := tn.ImportSyncFile(AccessWrite, 0); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("import into memfd: %v", err)
	}
	d := dmabufOverMemfd(t) // the ioctl reaches the memfd: ENOTTY, wrapped
	if _, err := d.ExportSyncFile(AccessNone); !errors.Is(err, ErrAccess) {
		t.Fatalf("access none: %v", err)
	}
	if _, err := d.ExportSyncFile(AccessRead); !errors.Is(err, unix.ENOTTY) ||
		!strings.Contains(err.Error(), "DMA_BUF_IOCTL_EXPORT_SYNC_FILE") {
		t.Fatalf("export from a memfd posing as a dma-buf: %v", err)
	}
}
