package tensorsrc

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
)

// Every frame of a built-in pattern is made in C (no call into Go) —
// the first after the start, a live source's, and frames that wait for
// a free slot (a queue holding more than the ring) — with the PTS, seqnum
// and bytes the counter pattern gives at 30/1, checked on every buffer;
// every bracket ends once.
func TestSteadyFramesAreMadeInC(t *testing.T) {
	const n = 60
	for _, c := range []struct {
		name, src, mid string
		live           bool // PTS are the clock's, not n/30
		steady         func(waits uint64) (lo, hi uint64)
	}{
		// Every frame is made in C: the first after the start, the frames
		// that wait for a free slot, a live source's.
		{"adopt", "", "", false, func(uint64) (uint64, uint64) { return n, n }},
		{"handoff=close", "handoff=close", "", false, func(uint64) (uint64, uint64) { return n, n }},
		// Downstream slower than the source holds the whole ring: the
		// frames wait for a free slot, in C.
		{"ring smaller than the queue", "pool-size=2", "queue max-size-buffers=8 ! identity sleep-time=1000 !", false,
			func(uint64) (uint64, uint64) { return n, n }},
		{"live", "is-live=true", "", true, func(uint64) (uint64, uint64) { return n, n }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, src := parse(t, fmt.Sprintf("tensorsrc name=src num-buffers=%d %s ! %s ! %s fakesink name=sink sync=false",
				n, c.src, seekCaps, c.mid))
			sinkEl, _ := p.GetElementByName("sink")
			pad := sinkEl.GetStaticPad("sink")
			var mu sync.Mutex
			var bad []string
			seen := 0
			pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
				b := info.GetBuffer()
				m := b.Map(gst.MapRead)
				got := m.Bytes()
				k := b.Offset()
				pts, _ := frameTimes(uint64(k), 30, 1)
				mu.Lock()
				if int64(k) != int64(seen) || (!c.live && uint64(b.PresentationTimestamp()) != pts) || len(got) < 2 ||
					got[0] != byte(k*7) || got[1] != byte(k*7+1) {
					bad = append(bad, fmt.Sprintf("buffer %d: offset %d pts %v bytes %v", seen, k, b.PresentationTimestamp(), got[:min(2, len(got))]))
				}
				seen++
				mu.Unlock()
				b.Unmap()
				return gst.PadProbeOK
			})
			if ge := play(t, p); ge != nil {
				t.Fatalf("pipeline error: %s", ge.Message)
			}
			stop(t, p)
			p = nil
			runtime.GC()
			st := stats(t, src)
			mu.Lock()
			if seen != n || len(bad) > 0 {
				t.Errorf("%d buffers (want %d); wrong: %v", seen, n, bad)
			}
			mu.Unlock()
			wantStat(t, st, "frames", n)
			waits := st["waits-for-free-slot"].(uint64)
			if c.mid != "" && waits == 0 {
				t.Errorf("no wait for a free slot: the case does not test the C path's fallback (stats %v)", st)
			}
			lo, hi := c.steady(waits)
			if s := st["steady-frames"].(uint64); s < lo || s > hi {
				t.Errorf("steady-frames %d, want %d..%d (stats %v)", s, lo, hi, st)
			}
			wantStat(t, st, "brackets-opened", n)
			wantStat(t, st, "brackets-closed", n)
			wantStat(t, st, "brackets-ended-here", n)
			wantStat(t, st, "sync-errors", 0)
		})
	}
}

// A flushing seek hands the next frame to Go, which applies it; the C
// path then resumes with the new frame numbers (checked by next: PTS,
// seqnum and bytes of each).
func TestSteadyFramesResumeAfterASeek(t *testing.T) {
	const ahead = 4 + 2 + 1 // frames made before the count is read: the ring, appsink's queue, one in create
	p, srcEl, sink := seekPipeline(t, "tensorsrc name=src pool-size=4")
	defer func() {
		if p != nil {
			stop(t, p)
		}
	}()
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	for k := uint64(0); k < 5; k++ {
		next(t, sink, k).release()
	}
	if !p.SeekSimple(int64(time.Second), gst.FormatTime, gst.SeekFlagFlush) {
		t.Fatal("flushing seek refused")
	}
	before := statU(t, srcEl, "steady-frames")
	for k := uint64(30); k < 60; k++ {
		next(t, sink, k).release()
	}
	// Of the 30 frames pulled after the seek, Go made the first; at most
	// ahead of them were made before the count was read.
	if d := statU(t, srcEl, "steady-frames") - before; d < 30-1-ahead {
		t.Errorf("%d frames made in C after the seek, want at least %d: the C path did not resume", d, 30-1-ahead)
	}
}
