package tensorsrc

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// countBuffers counts buffers reaching the sink pad of element name.
func countBuffers(t testing.TB, p *gst.Pipeline, name string) *atomic.Int64 {
	t.Helper()
	e, err := p.GetElementByName(name)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	e.GetStaticPad("sink").AddProbe(gst.PadProbeTypeBuffer, func(*gst.Pad, *gst.PadProbeInfo) gst.PadProbeReturn {
		n.Add(1)
		return gst.PadProbeOK
	})
	return &n
}

// settle lets go-gst finalizers of earlier tests run (they free
// pipelines, and with them buffers that still hold ring memory).
func settle() {
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// 50 NULL↔PLAYING cycles leave no fd, mapping or open bracket behind.
func TestStateCycles(t *testing.T) {
	p, src := parse(t, "tensorsrc name=src pool-size=3 ! queue ! fakesink name=sink")
	defer runtime.KeepAlive(p) // go-gst may finalize p during a call on it otherwise
	n := countBuffers(t, p, "sink")
	settle() // earlier tests' pipelines, freed by the GC, are not ours
	base := pintest.Take()
	before := tensor.ReadStats()
	for i := 0; i < 50; i++ {
		want := n.Load() + 5
		if err := p.SetState(gst.StatePlaying); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		waitFor(t, "5 buffers", func() bool { return n.Load() >= want })
		if err := p.SetState(gst.StateNull); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		if st := stats(t, src); st["brackets-open"] != uint64(0) || st["mmaps"] != uint64(3) {
			t.Fatalf("cycle %d: %v", i, st)
		}
	}
	after := tensor.ReadStats()
	if maps, unmaps := after.Mmaps-before.Mmaps, after.Munmaps-before.Munmaps; maps != 150 || unmaps != 150 {
		t.Errorf("%d mmaps and %d munmaps over 50 runs of 3 slots, want 150 each", maps, unmaps)
	}
	if leaks := base.Leaks(); leaks != "" {
		t.Errorf("after 50 cycles: %s", leaks)
	}
}

// A live source waits on the clock: 10 frames at 50/s take ~200 ms, and
// the PTS advance by 20 ms.
func TestLive(t *testing.T) {
	p, src := parse(t, "tensorsrc name=src is-live=true framerate=50/1 num-buffers=10 ! fakesink name=sink enable-last-sample=false")
	if v, _ := src.GetProperty("is-live"); v != true {
		t.Fatalf("is-live = %v", v)
	}
	rec := &recorder{}
	rec.attach(t, p, "sink")
	start := time.Now()
	if ge := play(t, p); ge != nil {
		t.Fatal(ge.Message)
	}
	elapsed := time.Since(start)
	stop(t, p)
	bufs := buffers(rec.snapshot())
	if len(bufs) != 10 {
		t.Fatalf("%d buffers", len(bufs))
	}
	if elapsed < 150*time.Millisecond {
		t.Errorf("10 live frames at 50/s took %v", elapsed)
	}
	for i := 1; i < len(bufs); i++ {
		if d := bufs[i].pts - bufs[i-1].pts; d != 20_000_000 {
			t.Errorf("frame %d: PTS step %d", i, d)
		}
	}
	checkAnnounced(t, rec.snapshot())
	t.Logf("10 live frames in %v", elapsed)
}

// A live source survives an application that toggles PLAYING and PAUSED
// as fast as it can: every PAUSED→PLAYING reaches PLAYING and frames
// flow again, with PTS that keep increasing. With GstBaseSrc pacing the
// source (get_times), a pause turned the clock wait into FLUSHING and
// the streaming thread could pause its task just after PAUSED→PLAYING
// had restarted it: the pipeline then stayed ASYNC for good (three runs
// of 300 cycles in four on a 2-core machine, before livePacer).
func TestLivePauseResumeCycles(t *testing.T) {
	p, _ := parse(t, "tensorsrc name=src is-live=true framerate=500/1 ! video/x-raw,width=16,height=16 ! fakesink name=sink sync=false enable-last-sample=false")
	rec := &recorder{}
	rec.attach(t, p, "sink")
	defer stop(t, p)
	reach := func(state gst.State, cycle int) {
		t.Helper()
		if err := p.SetState(state); err != nil {
			t.Fatalf("cycle %d: set %s: %v", cycle, state, err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			// Polled: a get_state waiter woken by the bin's intermediate
			// PAUSED commit reports FAILURE although PLAYING follows.
			ret, cur := p.GetState(state, gst.ClockTime(50*time.Millisecond))
			if cur == state && ret != gst.StateChangeAsync {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("cycle %d: %s not reached in 5 s (%s, the pipeline is %s): the source stalled", cycle, state, ret, cur)
			}
		}
	}
	for c := 0; c < 300; c++ {
		before := len(buffers(rec.snapshot()))
		reach(gst.StatePlaying, c)
		waitFor(t, fmt.Sprintf("frames in cycle %d", c), func() bool { return len(buffers(rec.snapshot())) >= before+2 })
		reach(gst.StatePaused, c)
	}
	bufs := buffers(rec.snapshot())
	for i := 1; i < len(bufs); i++ {
		if bufs[i].pts <= bufs[i-1].pts {
			t.Fatalf("buffer %d: PTS %d after %d", i, bufs[i].pts, bufs[i-1].pts)
		}
	}
	runtime.KeepAlive(p)
	t.Logf("300 PAUSED/PLAYING cycles, %d frames", len(bufs))
}

// A caps change mid-stream allocates a new ring; the old one is retired
// while its buffers may still be downstream, and nothing leaks.
func TestRenegotiate(t *testing.T) {
	p, src := parse(t, "tensorsrc name=src pool-size=2 ! capsfilter name=cf caps=video/x-raw,width=32,height=16 ! queue ! fakesink name=sink enable-last-sample=false")
	rec := &recorder{pattern: patternCounter}
	rec.attach(t, p, "sink")
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "frames", func() bool { return len(buffers(rec.snapshot())) >= 10 })
	cf, _ := p.GetElementByName("cf")
	cf.SetProperty("caps", gst.NewCapsFromString("video/x-raw,width=64,height=16"))
	waitFor(t, "bigger frames", func() bool {
		b := buffers(rec.snapshot())
		return len(b) > 0 && b[len(b)-1].size == 64*16*3
	})
	st := stats(t, src)
	stop(t, p)
	wantStat(t, st, "mmaps", 4)
	wantStat(t, st, "sync-errors", 0)
	runtime.GC()
	if n := statU(t, src, "brackets-open"); n != 0 {
		t.Errorf("%d brackets open after stop", n)
	}
	checkAnnounced(t, rec.snapshot())
}

// Caps renegotiated again and again: each renegotiation retires a ring,
// and a retired ring's tensors are unmapped and closed once its last slot
// has come back — while the stream runs, the source keeps only its
// current ring's mappings, not one ring per renegotiation.
func TestRetiredRingsAreFreedWhenTheirSlotsReturn(t *testing.T) {
	before := tensor.ReadStats()
	p, src := parse(t, "tensorsrc name=src pool-size=2 ! capsfilter name=cf caps=video/x-raw,width=32,height=16 ! queue ! fakesink name=sink enable-last-sample=false")
	rec := &recorder{pattern: patternCounter}
	rec.attach(t, p, "sink")
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	defer stop(t, p)
	waitFor(t, "frames", func() bool { return len(buffers(rec.snapshot())) >= 4 })
	cf, _ := p.GetElementByName("cf")
	const renegotiations = 12
	for i := 0; i < renegotiations; i++ {
		w := 64 + 32*(i%2)
		cf.SetProperty("caps", gst.NewCapsFromString(fmt.Sprintf("video/x-raw,width=%d,height=16", w)))
		waitFor(t, fmt.Sprintf("frames %d wide", w), func() bool {
			b := buffers(rec.snapshot())
			return len(b) > 0 && b[len(b)-1].size == w*16*3
		})
	}
	mapped := func() int64 {
		now := tensor.ReadStats()
		return int64(now.Mmaps-before.Mmaps) - int64(now.Munmaps-before.Munmaps)
	}
	waitFor(t, "retired rings to be unmapped", func() bool { return mapped() == 2 })
	if n := statU(t, src, "mmaps"); n != 2*(renegotiations+1) {
		t.Errorf("%d mmaps, want %d: a ring of 2 at the start and at each renegotiation", n, 2*(renegotiations+1))
	}
}
