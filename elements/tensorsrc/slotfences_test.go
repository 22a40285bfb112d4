package tensorsrc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// A fence wait that blocks, on this host. This kernel has no vgem (no
// /dev/dri: tensor/fencetest's real fences exist only in the QEMU lane)
// and memfd carries no fences, so these tests stand a pipe in for a
// slot's dma-buf through the slotFence seam: the wait polls the pipe's
// read end, which is "signalled" when the test writes a byte — the wait
// itself (ppoll, the wake-up, the timeout) is the production code's.

// standIn is a stand-in fence on every slot once armed.
type standIn struct {
	r, w    int
	armed   chan struct{} // closed by arm
	waiting chan struct{} // a wait started polling the stand-in
}

// setSlotFence replaces slotFence and returns the function that puts back
// what it replaced (the module's one restore style for test hooks).
func setSlotFence(f func(sl *Slot) (int, int16, bool)) (restore func()) {
	prev, prevStandIn := slotFence, fenceStandIn.Load()
	slotFence = f
	fenceStandIn.Store(true)
	return func() { slotFence = prev; fenceStandIn.Store(prevStandIn) }
}

// installStandIn replaces slotFence for the test (restored at cleanup,
// after the test's own deferred pipeline stops).
func installStandIn(t *testing.T) *standIn {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	f := &standIn{r: p[0], w: p[1], armed: make(chan struct{}), waiting: make(chan struct{}, 1)}
	orig := slotFence
	restore := setSlotFence(func(sl *Slot) (int, int16, bool) {
		select {
		case <-f.armed:
		default:
			return orig(sl)
		}
		select {
		case f.waiting <- struct{}{}:
		default:
		}
		return f.r, unix.POLLIN, true
	})
	t.Cleanup(func() {
		restore()
		unix.Close(f.r)
		unix.Close(f.w)
	})
	return f
}

func (f *standIn) arm()    { close(f.armed) }
func (f *standIn) signal() { unix.Write(f.w, []byte{1}) }

// awaitWaiting waits until a slot's write started waiting on the fence.
func (f *standIn) awaitWaiting(t *testing.T) {
	t.Helper()
	select {
	case <-f.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("no write waited for the stand-in fence within 10 s")
	}
}

// within runs do and reports whether it returned within 10 s; if not,
// it signals the fence (so a wait holding what do needs ends and the
// test can finish) and waits for do.
func (f *standIn) within(do func()) bool {
	done := make(chan struct{})
	go func() { defer close(done); do() }()
	select {
	case <-done:
		return true
	case <-time.After(10 * time.Second):
		f.signal()
		<-done
		return false
	}
}

const fenceTestPipeline = "tensorsrc name=src pattern=app backend=memfd pool-size=2 sync-timeout=%s ! " +
	"other/tensors,dimensions=(string)16:4:1:1,types=(string)uint8 ! fakesink sync=false"

func appSource(t *testing.T, syncTimeout string) (*gst.Pipeline, *gst.Element, *Source) {
	t.Helper()
	p, srcEl := parse(t, fmt.Sprintf(fenceTestPipeline, syncTimeout))
	src, err := FromElement(srcEl)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	return p, srcEl, src
}

type acquired struct {
	sl  *Slot
	err error
}

// While Acquire waits for a slot's fences (sync-timeout=0: no bound),
// the rest of the source goes on: the application discards another slot
// and reads the stats. Before the fix the wait held the element's lock,
// and both blocked until the device signalled.
func TestFenceWaitInAcquireDoesNotBlockTheSource(t *testing.T) {
	f := installStandIn(t)
	p, srcEl, src := appSource(t, "0")
	defer stop(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := src.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f.arm()
	got := make(chan acquired, 1)
	go func() {
		sl, err := src.Acquire(ctx)
		got <- acquired{sl, err}
	}()
	f.awaitWaiting(t)
	if !f.within(func() {
		if err := src.Discard(a); err != nil {
			t.Errorf("Discard: %v", err)
		}
	}) {
		t.Error("Discard of another slot blocked while Acquire waited for a fence: the wait holds the element's lock")
	}
	if !f.within(func() { stats(t, srcEl) }) {
		t.Error("reading stats blocked while Acquire waited for a fence")
	}
	f.signal()
	select {
	case r := <-got:
		if r.err != nil {
			t.Fatalf("Acquire after the fence signalled: %v", r.err)
		}
		if n := r.sl.brackets(); n != 1 {
			t.Errorf("acquired slot has %d brackets open, want 1", n)
		}
		if err := src.Discard(r.sl); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Acquire did not return within 10 s of the fence's signal")
	}
}

// Setting the pipeline to NULL ends an unbounded fence wait in Acquire:
// Acquire fails with ErrStopped and the state change completes, with no
// bracket left open. Before the fix NULL hung until the device signalled.
func TestStopInterruptsAnUnboundedFenceWait(t *testing.T) {
	f := installStandIn(t)
	p, srcEl, src := appSource(t, "0")
	defer runtime.KeepAlive(p) // go-gst may finalize p during a call on it otherwise
	defer stop(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f.arm()
	got := make(chan acquired, 1)
	go func() {
		sl, err := src.Acquire(ctx)
		got <- acquired{sl, err}
	}()
	f.awaitWaiting(t)
	if !f.within(func() { p.SetState(gst.StateNull) }) {
		t.Error("NULL did not complete within 10 s while Acquire waited for a fence (sync-timeout=0)")
	}
	r := <-got
	if !errors.Is(r.err, ErrStopped) {
		t.Errorf("Acquire interrupted by NULL: %v, %v; want ErrStopped", r.sl, r.err)
		if r.sl != nil {
			src.Discard(r.sl)
		}
	}
	if st := stats(t, srcEl); st["brackets-open"] != uint64(0) {
		t.Errorf("brackets open after the interrupted wait: %v", st)
	}
}

// Cancelling Acquire's context ends its fence wait with the context's
// error; the source stays usable. Before the fix cancelling did nothing
// until the device signalled.
func TestCancelInterruptsAFenceWait(t *testing.T) {
	f := installStandIn(t)
	p, srcEl, src := appSource(t, "0")
	defer stop(t, p)
	f.arm()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan acquired, 1)
	go func() {
		sl, err := src.Acquire(ctx)
		got <- acquired{sl, err}
	}()
	f.awaitWaiting(t)
	cancel()
	var r acquired
	if !f.within(func() { r = <-got }) {
		t.Error("cancelling the context did not end Acquire's fence wait within 10 s")
	}
	if !errors.Is(r.err, context.Canceled) {
		t.Errorf("cancelled Acquire: %v, %v; want context.Canceled", r.sl, r.err)
		if r.sl != nil {
			src.Discard(r.sl)
		}
	}
	if st := stats(t, srcEl); st["brackets-open"] != uint64(0) {
		t.Errorf("brackets open after the cancelled wait: %v", st)
	}
}

// A flush or stop ends create's fence wait (built-in pattern,
// sync-timeout=0): the streaming thread is waiting for the first slot's
// fence when the pipeline goes to NULL, and NULL completes. Before the fix
// basesrc's unlock could not reach the wait and NULL hung.
func TestUnlockInterruptsCreateFenceWait(t *testing.T) {
	f := installStandIn(t)
	f.arm()
	p, srcEl := parse(t, "tensorsrc name=src backend=memfd pool-size=2 sync-timeout=0 ! "+
		"other/tensors,dimensions=(string)16:4:1:1,types=(string)uint8 ! fakesink sync=false")
	defer runtime.KeepAlive(p) // go-gst may finalize p during a call on it otherwise
	defer stop(t, p)
	p.SetState(gst.StatePlaying)
	f.awaitWaiting(t)
	// The C frame is polling the stand-in.
	w := frameengine.WakeOf(gstglue.RawElementOf(srcEl.Unsafe()))
	waitFor(t, "create polling the stand-in fence", func() bool { return w.Waiters() > 0 })
	if !f.within(func() { p.SetState(gst.StateNull) }) {
		t.Error("NULL did not complete within 10 s while create waited for a fence (sync-timeout=0)")
	}
	if st := stats(t, srcEl); st["brackets-open"] != uint64(0) || st["frames"] != uint64(0) {
		t.Errorf("after the interrupted wait: %v", st)
	}
}

// A fence that does not signal within sync-timeout fails Acquire with
// tensor.ErrFenceTimeout after that long, counted; nothing stays open
// and the next Acquire (fence signalled) succeeds.
func TestFenceTimeoutInAcquireIsBoundedAndCounted(t *testing.T) {
	f := installStandIn(t)
	p, srcEl, src := appSource(t, "100")
	defer stop(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f.arm()
	start := time.Now()
	sl, err := src.Acquire(ctx)
	took := time.Since(start)
	if !errors.Is(err, tensor.ErrFenceTimeout) {
		t.Fatalf("Acquire on a stuck fence: %v, %v; want ErrFenceTimeout", sl, err)
	}
	if took < 100*time.Millisecond || took > 5*time.Second {
		t.Errorf("timed out after %v, want about 100ms", took)
	}
	st := stats(t, srcEl)
	wantStat(t, st, "fence-timeouts", 1)
	wantStat(t, st, "fence-waits", 1)
	wantStat(t, st, "brackets-open", 0)
	f.signal()
	sl, err = src.Acquire(ctx)
	if err != nil {
		t.Fatalf("Acquire after the signal: %v", err)
	}
	if err := src.Discard(sl); err != nil {
		t.Fatal(err)
	}
}

// A built-in pattern's frame whose slot's fence does not signal within
// sync-timeout (the C frame's wait, a pipe standing in for the fence):
// a bus error naming the slot, the access and the limit after about that
// long, counted; nothing stays open.
func TestCreateFenceTimeoutIsAnError(t *testing.T) {
	f := installStandIn(t)
	f.arm()
	p, srcEl := parse(t, "tensorsrc name=src backend=memfd pool-size=2 sync-timeout=100 ! "+
		"other/tensors,dimensions=(string)16:4:1:1,types=(string)uint8 ! fakesink sync=false")
	defer runtime.KeepAlive(p)
	start := time.Now()
	ge := play(t, p)
	took := time.Since(start)
	if ge == nil {
		t.Fatal("no error from a fence that never signals")
	}
	t.Logf("after %v: %s", took, ge.Message)
	for _, want := range []string{"slot 0", "readwrite access", "not signalled after", "limit 100 ms"} {
		if !strings.Contains(ge.Message, want) {
			t.Errorf("error %q does not name %q", ge.Message, want)
		}
	}
	if took < 100*time.Millisecond || took > 5*time.Second {
		t.Errorf("error after %v, want about 100ms", took)
	}
	stop(t, p)
	st := stats(t, srcEl)
	wantStat(t, st, "fence-timeouts", 1)
	wantStat(t, st, "fence-waits", 1)
	wantStat(t, st, "brackets-open", 0)
	wantStat(t, st, "frames", 0)
}
