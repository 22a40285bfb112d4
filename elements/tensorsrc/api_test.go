package tensorsrc

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// sample is a pulled appsink sample whose buffer the test holds.
type sample struct {
	s      *gst.Sample
	off    uint64
	pts    time.Duration
	fd     int
	offset int
}

// pull takes the next sample from appsink (nil at EOS or after timeout).
func pull(t testing.TB, sink *app.Sink, timeout time.Duration) *sample {
	t.Helper()
	s := sink.TryPullSample(gst.ClockTime(timeout))
	if s == nil {
		return nil
	}
	buf := s.GetBuffer() // a reference of its own: drop it now
	defer gstglue.UnrefBuffer(buf)
	m := gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0)
	return &sample{s: s, off: uint64(buf.Offset()), pts: time.Duration(buf.PresentationTimestamp()), fd: m.FD(), offset: m.Offset()}
}

// release drops the sample now (not at garbage collection): its buffer
// goes back to the ring.
func (s *sample) release() {
	runtime.SetFinalizer(s.s, nil)
	s.s.Unref()
}

func (s *sample) bytes(t testing.TB, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if err := readAt(s.fd, b, s.offset); err != nil {
		t.Fatal(err)
	}
	return b
}

// waitFor polls cond for up to 5 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// waitForSlotWaiter waits (5 s at most) until src's create is waiting for
// a free slot (back-pressure): the event the tests that check "no frame
// while every slot is held" synchronise on. While it waits, no frame can
// be made, so the counters read after it are exact, not a snapshot taken
// after a guess of how long to sleep.
func waitForSlotWaiter(t testing.TB, src *gst.Element) {
	t.Helper()
	w := frameengine.WakeOf(gstglue.RawElementOf(src.Unsafe()))
	waitFor(t, "create waiting for a free slot", func() bool { return w.Waiters() > 0 })
}

func statU(t testing.TB, src *gst.Element, k string) uint64 {
	t.Helper()
	return stats(t, src)[k].(uint64)
}

// With every slot held downstream, create waits (back-pressure, no drop)
// until a buffer comes back; and NULL while it waits does not hang.
func TestBackPressure(t *testing.T) {
	p, src := parse(t, "tensorsrc name=src pool-size=2 ! appsink name=sink sync=false enable-last-sample=false")
	se, _ := p.GetElementByName("sink")
	sink := app.SinkFromElement(se)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	a, b := pull(t, sink, 5*time.Second), pull(t, sink, 5*time.Second)
	if a == nil || b == nil {
		t.Fatal("no samples")
	}
	// Frame 2's create is waiting (it stays so while a and b are held):
	// two frames made, one wait counted — a source that dropped or made
	// a frame from elsewhere instead never waits, or has made more.
	waitForSlotWaiter(t, src)
	if n, w := statU(t, src, "frames"), statU(t, src, "waits-for-free-slot"); n != 2 || w != 1 {
		t.Fatalf("create waiting with both slots held: %d frames, %d waits; want 2 and 1", n, w)
	}
	a.release()
	c := pull(t, sink, 5*time.Second)
	if c == nil || c.off != 2 {
		t.Fatalf("after a release got %+v, want frame 2", c)
	}
	b.release()
	c.release()
	for i := 0; i < 10; i++ {
		s := pull(t, sink, 5*time.Second)
		if s == nil || s.off != uint64(3+i) {
			t.Fatalf("frame %d: got %+v", 3+i, s)
		}
		s.release()
	}

	// Hold both slots again, then stop while create waits.
	// Both slots held: no create can complete, the next one waits.
	a, b = pull(t, sink, 5*time.Second), pull(t, sink, 5*time.Second)
	if a == nil || b == nil || b.off != a.off+1 {
		t.Fatalf("pulled %+v and %+v", a, b)
	}
	// The next create is waiting for a slot: frames 0 to b.off made.
	waitForSlotWaiter(t, src)
	if n := statU(t, src, "frames"); n != b.off+1 {
		t.Fatalf("%d frames with frame %d and %d held by the test and create waiting", n, a.off, b.off)
	}
	done := make(chan error, 1)
	go func() {
		pl := p
		done <- pl.SetState(gst.StateNull)
		runtime.KeepAlive(pl) // not finalized during the call (the test drops p later, on purpose)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("set NULL hangs while create waits for a slot")
	}
	// The held buffers outlive the source's run: their brackets are
	// closed when they come back.
	if n := statU(t, src, "brackets-open"); n != 2 {
		t.Errorf("%d brackets open after stop with 2 buffers held, want 2", n)
	}
	a.release()
	b.release()
	// appsink keeps the last pulled buffer in its cached GstSample until
	// it is disposed: drop the pipeline to see every bracket closed.
	p, se, sink = nil, nil, nil
	waitFor(t, "every bracket closed", func() bool {
		runtime.GC()
		return statU(t, src, "brackets-open") == 0
	})
	st := stats(t, src)
	if st["brackets-closed"] != st["brackets-opened"] {
		t.Errorf("stats %v", st)
	}
}

// pattern=app: the application fills slots and pushes them; appsink sees
// them in order, intact, with their PTS.
func TestAppPush(t *testing.T) {
	p, srcEl := parse(t, "tensorsrc name=src pattern=app pool-size=3 ! other/tensors,dimensions=(string)16:4:1:1,types=(string)uint8 ! appsink name=sink sync=false enable-last-sample=false")
	src, err := FromElement(srcEl)
	if err != nil {
		t.Fatal(err)
	}
	se, _ := p.GetElementByName("sink")
	sink := app.SinkFromElement(se)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// Started before PLAYING: Acquire waits for the ring.
	errc := make(chan error, 1)
	go func() {
		for k := 0; k < 10; k++ {
			sl, err := src.Acquire(ctx)
			if err != nil {
				errc <- err
				return
			}
			b := sl.Bytes()
			if len(b) != 64 || sl.Pin().Len() != 64 || sl.Tensor().Size() != 64 || sl.Index() < 0 || sl.Index() > 2 {
				errc <- errors.New("unexpected slot geometry")
				return
			}
			for i := range b {
				b[i] = byte(k*31 + i)
			}
			if err := src.Push(sl, time.Duration(k)*10*time.Millisecond); err != nil {
				errc <- err
				return
			}
		}
		errc <- src.EndOfStream()
	}()
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 10; k++ {
		s := pull(t, sink, 5*time.Second)
		if s == nil {
			t.Fatalf("no sample %d", k)
		}
		if s.off != uint64(k) || s.pts != time.Duration(k)*10*time.Millisecond {
			t.Errorf("sample %d: offset %d pts %v", k, s.off, s.pts)
		}
		for i, v := range s.bytes(t, 64) {
			if v != byte(k*31+i) {
				t.Fatalf("sample %d byte %d = %d", k, i, v)
			}
		}
		s.release()
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if s := pull(t, sink, 5*time.Second); s != nil || !sink.IsEOS() {
		t.Fatalf("no EOS after EndOfStream (sample %+v)", s)
	}
	if _, err := src.Acquire(ctx); !errors.Is(err, ErrEOS) {
		t.Errorf("Acquire after EOS: %v", err)
	}
	st := stats(t, srcEl)
	wantStat(t, st, "frames", 10)
	wantStat(t, st, "brackets-opened", 10)
	// appsink's cached GstSample still holds the last buffer.
	wantStat(t, st, "brackets-open", 1)
	stop(t, p)

	start := time.Now()
	if _, err := src.Acquire(ctx); !errors.Is(err, ErrStopped) || time.Since(start) > time.Second {
		t.Errorf("Acquire after stop: %v after %v", err, time.Since(start))
	}
	if err := src.Push(&Slot{r: &ring{el: src.el}}, 0); !errors.Is(err, ErrNotAcquired) {
		t.Errorf("Push of a slot never acquired: %v", err)
	}
}

// Acquire honours its context while every slot is taken; Discard and a
// Push after stop give slots back with their brackets closed.
func TestAppSlotsReturn(t *testing.T) {
	p, srcEl := parse(t, "tensorsrc name=src pattern=app pool-size=2 ! fakesink sync=false")
	src, _ := FromElement(srcEl)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := src.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := src.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := src.Acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire with every slot held: %v", err)
	}
	if err := src.Discard(a); err != nil {
		t.Fatal(err)
	}
	if err := src.Discard(a); !errors.Is(err, ErrNotAcquired) {
		t.Errorf("second Discard: %v", err)
	}
	before := tensor.ReadStats()
	stop(t, p)
	// b is still the application's: its memory, and so its mapping, stay
	// until it gives it back; the free slot's go at the stop.
	if d := tensor.ReadStats().Munmaps - before.Munmaps; d != 1 {
		t.Errorf("the stop unmapped %d slots, want 1 (the free one)", d)
	}
	b.Bytes()[0] = 42 // still mapped (unmapped, this would crash)
	if err := src.Push(b, 0); !errors.Is(err, ErrStopped) {
		t.Errorf("Push after stop: %v", err)
	}
	if d := tensor.ReadStats().Munmaps - before.Munmaps; d != 2 {
		t.Errorf("%d slots unmapped after the refused Push, want 2", d)
	}
	st := stats(t, srcEl)
	wantStat(t, st, "brackets-opened", 2)
	wantStat(t, st, "brackets-closed", 2)
	wantStat(t, st, "brackets-open", 0)
	wantStat(t, st, "waits-for-free-slot", 1)

	// Not an app source, not a tensorsrc.
	p2, el2 := parse(t, "tensorsrc name=src ! fakesink")
	if err := p2.SetState(gst.StatePaused); err != nil {
		t.Fatal(err)
	}
	s2, _ := FromElement(el2)
	if _, err := s2.Acquire(ctx); !errors.Is(err, ErrNotApp) {
		t.Errorf("Acquire on pattern=counter: %v", err)
	}
	stop(t, p2)
	fs, _ := gst.NewElement("fakesink")
	if _, err := FromElement(fs); !errors.Is(err, ErrNotTensorSrc) {
		t.Errorf("FromElement(fakesink): %v", err)
	}
}

// Several goroutines Acquire and Push on one source (a Source is safe
// for concurrent use): each Acquire ends as soon as a slot is free for
// it — a wait that outlives every other producer would be a lost
// wake-up (a free waking one waiter while another took the slot).
func TestConcurrentAcquire(t *testing.T) {
	for round := range 30 {
		p, srcEl := parse(t, "tensorsrc name=src pattern=app pool-size=2 ! other/tensors,dimensions=(string)16:4:1:1,types=(string)uint8 ! queue max-size-buffers=1 ! fakesink sync=false")
		src, _ := FromElement(srcEl)
		if err := p.SetState(gst.StatePlaying); err != nil {
			t.Fatal(err)
		}
		const producers, frames = 3, 40
		var wg sync.WaitGroup
		errs := make(chan error, producers)
		for range producers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range frames {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					sl, err := src.Acquire(ctx)
					cancel()
					if err == nil {
						err = src.Push(sl, -1)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v (waits-for-free-slot %d)", round, err, statU(t, srcEl, "waits-for-free-slot"))
		}
		waitFor(t, "every frame", func() bool { return statU(t, srcEl, "frames") == producers*frames })
		stop(t, p)
		if t.Failed() {
			return
		}
	}
}

// A context cancelled at any moment of an Acquire that must wait (every
// slot held) ends it with the context's error: over many rounds the
// cancel lands before, while and after the wait begins.
func TestAcquireCancelledAtAnyMoment(t *testing.T) {
	p, srcEl := parse(t, "tensorsrc name=src pattern=app pool-size=1 ! fakesink sync=false")
	src, _ := FromElement(srcEl)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	defer stop(t, p)
	held, err := src.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer src.Discard(held)
	for round := range 500 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := src.Acquire(ctx)
			done <- err
		}()
		go cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("round %d: Acquire: %v, want context.Canceled", round, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: a cancelled Acquire still waits", round)
		}
	}
}
