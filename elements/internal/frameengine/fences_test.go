package frameengine

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fencePipe returns a pipe whose read end stands in for a dma-buf's fd in
// gstc_fences_wait (wake.h): it polls readable (POLLIN, a read's fences
// signalled) once signal has written a byte. The test's cleanup closes
// both ends.
func fencePipe(t *testing.T) (fd int, signal func()) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0], func() {
		if _, err := unix.Write(p[1], []byte{1}); err != nil {
			t.Error(err)
		}
	}
}

// Fences already signalled: ready at once, no poll.
func TestFencesWaitReadyAtOnce(t *testing.T) {
	w := newTestWake(t)
	fd, signal := fencePipe(t)
	signal()
	if r, waited := fencesWaitRead(fd, w, 1000); r != fencesReady || waited {
		t.Errorf("result %d waited %v, want ready (%d) without a wait", r, waited, fencesReady)
	}
}

// Fences that signal during the wait end it: ready, after a poll.
func TestFencesWaitReadyWhenTheySignal(t *testing.T) {
	w := newTestWake(t)
	fd, signal := fencePipe(t)
	go func() {
		if awaitWaiters(t, w, 1) {
			signal()
		}
	}()
	if r, waited := fencesWaitRead(fd, w, 5000); r != fencesReady || !waited {
		t.Errorf("result %d waited %v, want ready (%d) after a wait", r, waited, fencesReady)
	}
}

// Fences that do not signal in time: timed out, no earlier than the bound.
func TestFencesWaitTimesOut(t *testing.T) {
	w := newTestWake(t)
	fd, _ := fencePipe(t)
	start := time.Now()
	r, waited := fencesWaitRead(fd, w, 30)
	if r != fencesTimedOut || !waited {
		t.Errorf("result %d waited %v, want timed out (%d) after a wait", r, waited, fencesTimedOut)
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Errorf("timed out after %v, before the 30 ms bound", el)
	}
}

// A flush ends a wait with no bound, and a wait begun while flushing
// returns at once.
func TestFencesWaitEndedByAFlush(t *testing.T) {
	w := newTestWake(t)
	fd, _ := fencePipe(t)
	go func() {
		awaitWaiters(t, w, 1)
		w.SetFlushing(true) // also when the wait was not seen: it must end
	}()
	done := make(chan int)
	go func() {
		r, _ := fencesWaitRead(fd, w, -1)
		done <- r
	}()
	if r := result(t, done, "fence wait under a flush"); r != fencesFlushing {
		t.Errorf("result %d, want flushing (%d)", r, fencesFlushing)
	}
	if r, _ := fencesWaitRead(fd, w, -1); r != fencesFlushing {
		t.Errorf("while flushing: result %d, want flushing (%d)", r, fencesFlushing)
	}
	w.SetFlushing(false)
	if r, _ := fencesWaitRead(fd, w, 10); r != fencesTimedOut {
		t.Errorf("flush over: result %d, want timed out (%d)", r, fencesTimedOut)
	}
}
