package frameengine

import (
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// newTestWake checks t for leaked fds and returns the wake of a new
// fakesink, kept alive until t ends (the element stands in for the one
// whose waits the wake ends; the wake and its eventfd are freed with it).
func newTestWake(t *testing.T) Wake {
	t.Helper()
	checkFds(t)
	e, err := gst.NewElement("fakesink")
	if err != nil {
		t.Fatal(err)
	}
	// Then dropped, so that the leak check (a cleanup that runs later)
	// sees the element finalized and the eventfd closed.
	t.Cleanup(func() { runtime.KeepAlive(e); e = nil })
	return WakeOf(gstglue.BorrowElement(e))
}

// awaitWaiters waits until n threads wait on w; false (reported on t)
// after 5 s. Safe from any goroutine.
func awaitWaiters(t *testing.T, w Wake, n int) bool {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for w.Waiters() != n {
		if time.Now().After(deadline) {
			t.Errorf("%d waiters, want %d", w.Waiters(), n)
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// result returns what done delivers, failing t after 5 s.
func result[T any](t *testing.T, done <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-done:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: still waiting after 5 s", what)
		panic("unreachable")
	}
}

// Each flag — a flush, a stop, a non-flushing seek — ends a wait for a
// slot that never comes free, and the wait reports that it was ended.
func TestWakeFlagsEndAWait(t *testing.T) {
	w := newTestWake(t)
	flags := map[string]func(bool){"flushing": w.SetFlushing, "stopping": w.SetStopping, "seeking": w.SetSeeking}
	for name, set := range flags {
		f := newWakeTestFlag() // never set: the slot that never comes free
		done := make(chan bool)
		go func() { done <- w.waitFor(f) }()
		if !awaitWaiters(t, w, 1) {
			t.FailNow()
		}
		set(true)
		if got := result(t, done, name); got {
			t.Errorf("%s: the wait reported its slot free", name)
		}
		if !w.Ended() {
			t.Errorf("%s: Ended is false while the flag is set", name)
		}
		set(false)
		if w.Ended() || w.Waiters() != 0 {
			t.Errorf("%s cleared: Ended %v, %d waiters", name, w.Ended(), w.Waiters())
		}
		f.free()
	}
}

// A wait sleeps until gstc_wake_signal tells it its slot may be free,
// then finds it free.
func TestWakeSignalWakesAWaiter(t *testing.T) {
	w := newTestWake(t)
	f := newWakeTestFlag()
	defer f.free()
	done := make(chan bool)
	go func() { done <- w.waitFor(f) }()
	if !awaitWaiters(t, w, 1) {
		t.FailNow()
	}
	// Clearing a clear flag takes the wake's lock, which the waiter holds
	// from counting itself until it sleeps: past this, it is asleep
	// having found its slot busy, and only a signal wakes it.
	w.SetSeeking(false)
	f.set()
	w.signal()
	if got := result(t, done, "signalled wait"); !got {
		t.Error("the signalled wait did not find its slot free")
	}
	if w.Waiters() != 0 {
		t.Errorf("%d waiters after the wait returned", w.Waiters())
	}
}

// The eventfd, what a fence poll watches beside the dma-buf, is readable
// exactly while at least one flag is set.
func TestWakeEventfdReadableWhileAFlagIsSet(t *testing.T) {
	w := newTestWake(t)
	steps := []struct {
		do       func()
		what     string
		readable bool
	}{
		{func() {}, "no flag", false},
		{func() { w.SetFlushing(true) }, "flushing", true},
		{func() { w.SetStopping(true) }, "flushing and stopping", true},
		{func() { w.SetFlushing(false) }, "stopping", true},
		{func() { w.SetStopping(false) }, "no flag again", false},
		{func() { w.SetSeeking(true) }, "seeking", true},
		{func() { w.SetSeeking(false) }, "seek done", false},
	}
	for _, s := range steps {
		s.do()
		if got := w.eventfdReadable(); got != s.readable {
			t.Errorf("%s: eventfd readable %v, want %v", s.what, got, s.readable)
		}
	}
}

// An interruptible poll (an owner's wake, as tensorsrc's Acquire's fence
// wait) returns at once for a ready fd, at its timeout, when the fd
// becomes ready, and when an interrupt comes after its generation was
// read — at once for one that came before the poll — but no flag of an
// element's wake ends it; it leaves no eventfd behind. A pipe stands in
// for a dma-buf's fences (readable = signalled).
func TestWakePollInterruptible(t *testing.T) {
	checkFds(t)
	w := NewWake()
	defer w.Unref()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	poll := func(gen int32, timeout time.Duration) <-chan int {
		done := make(chan int, 1)
		go func() {
			r, _, err := w.PollInterruptible(gen, p[0], unix.POLLIN, timeout)
			if err != nil {
				t.Errorf("poll: %v", err)
			}
			done <- r
		}()
		return done
	}
	if r := result(t, poll(w.Gen(), 20*time.Millisecond), "not ready, 20 ms"); r != PollTimedOut {
		t.Fatalf("a poll of a silent pipe returned %d, want the timeout", r)
	}
	gen := w.Gen()
	done := poll(gen, 0)
	awaitWaiters(t, w, 1)
	w.SetFlushing(true) // an owner's wake has no flags' eventfd: no effect
	w.SetFlushing(false)
	w.Interrupt()
	if r := result(t, done, "interrupted poll"); r != PollInterrupted {
		t.Fatalf("an interrupted poll returned %d", r)
	}
	if r := result(t, poll(gen, 0), "poll with a stale generation"); r != PollInterrupted {
		t.Fatalf("a poll whose generation was read before an interrupt returned %d", r)
	}
	done = poll(w.Gen(), 0)
	awaitWaiters(t, w, 1)
	if _, err := unix.Write(p[1], []byte{1}); err != nil {
		t.Fatal(err)
	}
	if r := result(t, done, "signalled poll"); r != PollReady {
		t.Fatalf("a poll whose fd became ready returned %d", r)
	}
	if r, waited, _ := w.PollInterruptible(w.Gen(), p[0], unix.POLLIN, 0); r != PollReady || waited != 0 {
		t.Fatalf("a ready fd: %d after %v, want ready at once", r, waited)
	}
}
