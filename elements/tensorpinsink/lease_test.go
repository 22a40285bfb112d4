package tensorpinsink_test

import (
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Frame records are recycled: with max-leases=1 the second buffer is
// delivered through the record the first one used. A stale copy of the
// first Frame must not reach the second buffer: Release says
// ErrStaleFrame and does nothing, the getters return zero values.
func TestStaleFrameIsHarmless(t *testing.T) {
	fds := memfdPool(t, 2, 256)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink max-leases=1")
	frames := make(chan tensorpinsink.Frame, 2)
	k.OnFrame(func(f tensorpinsink.Frame) { frames <- f })
	src := appSrc(t, p)
	go func() {
		pushFD(t, src, fds[0], 256, 0)
		pushFD(t, src, fds[1], 256, time.Millisecond)
		src.EndStream()
	}()
	done := make(chan string)
	go func() { done <- run(t, p) }()

	first := <-frames
	stale := first // a copy the application kept
	if err := first.Release(); err != nil {
		t.Fatalf("first Release: %v", err)
	}
	second := <-frames // the same record, the next buffer
	if err := stale.Release(); !errors.Is(err, tensorpinsink.ErrStaleFrame) {
		t.Errorf("Release of a stale copy: %v, want ErrStaleFrame", err)
	}
	if stale.Valid() || stale.Bytes() != nil || stale.Tensor() != nil || stale.Slot() != -1 || stale.Pin().Bytes() != nil {
		t.Errorf("a stale frame still reads: valid %v, %d bytes", stale.Valid(), len(stale.Bytes()))
	}
	if !second.Valid() || second.Bytes()[0] != 2 {
		t.Fatalf("the stale Release reached the next frame: valid %v", second.Valid())
	}
	if s := k.Stats(); s.LeasesOutstanding != 1 {
		t.Errorf("%d leases outstanding while the second frame is held, want 1", s.LeasesOutstanding)
	}
	if err := second.Release(); err != nil {
		t.Fatal(err)
	}
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}
}

// Frames released from other goroutines while the pipeline stops: stop
// leaves the brackets of frames still held, Release those it did not;
// each bracket is left exactly once and nothing races (run with -race).
func TestReleaseRacesStop(t *testing.T) {
	before := tensor.ReadStats()
	for round := 0; round < 20; round++ {
		p, k := pipeline(t, "videotestsrc num-buffers=8 ! video/x-raw,format=GRAY8,width=16,height=16 ! "+
			"tensorpinsink name=sink max-leases=8 sync=false")
		var mu sync.Mutex
		var held []tensorpinsink.Frame
		k.OnFrame(func(f tensorpinsink.Frame) {
			mu.Lock()
			held = append(held, f)
			mu.Unlock()
		})
		p.SetState(gst.StatePlaying)
		if msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(10*time.Second), gst.MessageEOS|gst.MessageError); msg == nil || msg.Type() != gst.MessageEOS {
			p.SetState(gst.StateNull)
			runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
			t.Fatalf("round %d: no EOS", round)
		}
		mu.Lock()
		frames := held
		mu.Unlock()
		var wg sync.WaitGroup
		for _, f := range frames {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f.Release()
				f.Release() // and a second time, racing too
			}()
		}
		p.SetState(gst.StateNull)
		runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
		wg.Wait()
		s := k.Stats()
		if s.LeasesOutstanding != 0 || s.Syncs != 16 {
			t.Fatalf("round %d: stats %+v: want no lease left and 16 bracket halves (8 frames)", round, s)
		}
	}
	if d := tensor.ReadStats().UnbalancedSyncs - before.UnbalancedSyncs; d != 0 {
		t.Fatalf("%d unbalanced bracket ends", d)
	}
}

// PLAYING -> PAUSED -> PLAYING while the application holds every lease
// (the streaming thread waits in render for one): the pause must not turn
// into a flush — the stream resumes and reaches EOS once the frames are
// released, with none lost.
func TestPauseWithEveryLeaseHeldResumes(t *testing.T) {
	p, k := pipeline(t, "videotestsrc num-buffers=12 ! video/x-raw,format=GRAY8,width=16,height=16 ! "+
		"tensorpinsink name=sink max-leases=2 sync=false")
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	frames := make(chan tensorpinsink.Frame, 16)
	k.OnFrame(func(f tensorpinsink.Frame) { frames <- f })
	p.SetState(gst.StatePlaying)
	held := []tensorpinsink.Frame{<-frames, <-frames}
	// The streaming thread now waits for a lease.
	deadline := time.Now().Add(10 * time.Second)
	for k.Stats().WaitsForLease == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if k.Stats().WaitsForLease == 0 {
		t.Fatal("the sink never waited for a lease")
	}
	for _, target := range []gst.State{gst.StatePaused, gst.StatePlaying} {
		if err := p.SetState(target); err != nil {
			t.Fatalf("set %v: %v", target, err)
		}
		if ret, cur := p.GetState(target, gst.ClockTime(10*time.Second)); ret == gst.StateChangeFailure || cur != target {
			t.Fatalf("pipeline is %v (%v), want %v", cur, ret, target)
		}
	}
	n := 0
	for _, f := range held {
		f.Release()
		n++
	}
	bus := p.GetPipelineBus()
	for {
		select {
		case f := <-frames:
			f.Release()
			n++
			continue
		default:
		}
		msg := bus.TimedPopFiltered(gst.ClockTime(20*time.Millisecond), gst.MessageEOS|gst.MessageError)
		if msg == nil {
			if time.Now().After(deadline.Add(10 * time.Second)) {
				t.Fatalf("no EOS after pause and resume; %d frames delivered, stats %+v", n, k.Stats())
			}
			continue
		}
		if msg.Type() == gst.MessageError {
			t.Fatalf("error after pause and resume: %v", msg)
		}
		break
	}
	for len(frames) > 0 {
		f := <-frames
		f.Release()
		n++
	}
	if n != 12 {
		t.Fatalf("%d frames delivered across the pause, want 12 (stats %+v)", n, k.Stats())
	}
}
