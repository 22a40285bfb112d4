package tensorsrc

import (
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// A live source's wait for its frame's time on the pipeline clock: the
// run's first frame is now (its PTS shifted to the running time), a
// later one waits until its time comes (shifted alike), and SetUnlocked
// ends a wait in progress — and every later one until it is cleared —
// as GstBaseSrc's unlock asks.
func TestLivePacerWaitsForTheClockAndUnlockEndsIt(t *testing.T) {
	p, err := gst.NewPipelineFromString("fakesrc name=src is-live=true ! fakesink sync=false")
	if err != nil {
		t.Fatal(err)
	}
	defer p.SetState(gst.StateNull)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	src, _ := p.GetElementByName("src")
	self := gstglue.BorrowElement(src)
	for src.GetClock() == nil {
		time.Sleep(time.Millisecond)
	}
	l := newLivePacer()
	defer l.Close()
	first, ok := l.Wait(self, 0)
	if !ok {
		t.Fatal("the first frame's wait did not return ok")
	}
	start := time.Now()
	shifted, ok := l.Wait(self, uint64(50*time.Millisecond))
	if want := first + uint64(50*time.Millisecond); !ok || shifted != want {
		t.Fatalf("Wait(50 ms) = %d, %v; want %d (shifted as the first frame) and ok", shifted, ok, want)
	}
	if waited := time.Since(start); waited < 40*time.Millisecond {
		t.Fatalf("Wait returned after %v for a frame 50 ms after the first", waited)
	}

	done := make(chan bool, 1)
	go func() {
		_, ok := l.Wait(self, uint64(time.Hour))
		done <- ok
	}()
	time.Sleep(20 * time.Millisecond) // let it block (if it returned, ok below is wrong)
	l.SetUnlocked(true)
	if ok := result(t, done, "a wait an hour ahead after SetUnlocked"); ok {
		t.Fatal("the wait SetUnlocked ended reported ok")
	}
	if _, ok := l.Wait(self, uint64(time.Hour)); ok {
		t.Fatal("a wait while unlocked reported ok")
	}
	l.SetUnlocked(false)
	if _, ok := l.Wait(self, uint64(60*time.Millisecond)); !ok {
		t.Fatal("a wait for a time past, after the unlock was cleared, did not return ok")
	}
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
