package tensorsrc

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
)

const seekCaps = "video/x-raw,format=GRAY8,width=16,height=4,framerate=30/1"

func seekPipeline(t *testing.T, src string) (*gst.Pipeline, *gst.Element, *app.Sink) {
	t.Helper()
	p, srcEl := parse(t, src+" ! "+seekCaps+" ! appsink name=sink sync=false max-buffers=2 enable-last-sample=false")
	se, _ := p.GetElementByName("sink")
	return p, srcEl, app.SinkFromElement(se)
}

// next pulls a sample and checks it is frame n of the counter pattern
// at 30/1: PTS n/30 s, offset (seqnum) n, byte 0 = n×7.
func next(t *testing.T, sink *app.Sink, n uint64) *sample {
	t.Helper()
	s := pull(t, sink, 10*time.Second)
	if s == nil {
		t.Fatalf("no sample for frame %d", n)
	}
	pts, _ := frameTimes(n, 30, 1)
	if s.off != n || s.pts != time.Duration(pts) {
		t.Fatalf("got frame %d at %v, want frame %d at %v", s.off, s.pts, n, time.Duration(pts))
	}
	if b := s.bytes(t, 2); b[0] != byte(n*7) || b[1] != byte(n*7+1) {
		t.Fatalf("frame %d holds %v, not the counter pattern's", n, b)
	}
	return s
}

// Flushing seeks in TIME and in BUFFERS, with two frames held across
// each: the next frame is the one at the position (PTS, seqnum and
// pattern), the held frames keep their bytes and go back when released
// after the seek, and every bracket ends once. Before the change every
// seek was refused.
func TestSeekRestartsAtThePosition(t *testing.T) {
	p, srcEl, sink := seekPipeline(t, "tensorsrc name=src pool-size=4")
	defer func() {
		if p != nil {
			stop(t, p)
		}
	}()
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	next(t, sink, 0).release()
	a, b := next(t, sink, 1), next(t, sink, 2)
	if !p.SeekSimple(int64(time.Second), gst.FormatTime, gst.SeekFlagFlush|gst.SeekFlagKeyUnit) {
		t.Fatal("flushing seek to 1s refused")
	}
	c := next(t, sink, 30)
	// The held frames were not rewritten (their slots were not free).
	if a.bytes(t, 1)[0] != 7 || b.bytes(t, 1)[0] != 14 {
		t.Error("a frame held across the seek changed")
	}
	a.release()
	b.release()
	c.release()
	next(t, sink, 31).release()
	if !p.SeekSimple(45, formatBuffers, gst.SeekFlagFlush) {
		t.Fatal("flushing seek to buffer 45 refused")
	}
	next(t, sink, 45).release()
	// A seek between frames restarts at the frame showing there.
	if !p.SeekSimple(int64(2*time.Second+10*time.Millisecond), gst.FormatTime, gst.SeekFlagFlush) {
		t.Fatal("flushing seek to 2.01s refused")
	}
	next(t, sink, 60).release()
	if n := statU(t, srcEl, "seeks"); n != 3 {
		t.Errorf("seeks %d, want 3", n)
	}
	if q := gst.NewSeekEvent(-1, gst.FormatTime, gst.SeekFlagFlush, gst.SeekTypeSet, 0, gst.SeekTypeNone, -1); p.SendEvent(q) {
		t.Error("a reverse seek was accepted")
	}
	stop(t, p)
	p, sink = nil, nil
	waitFor(t, "every bracket closed", func() bool {
		runtime.GC()
		return statU(t, srcEl, "brackets-open") == 0
	})
	if st := stats(t, srcEl); st["brackets-closed"] != st["brackets-opened"] {
		t.Errorf("stats %v", st)
	}
}

// A non-flushing seek: the frames already downstream come first, then
// the frame at the position and its successors. The position is an
// hour in (frame 108000), which the source cannot reach on its own while
// the seek travels, however late the seeking thread runs; and the frames
// are pulled until the seek has returned and its first two frames came
// (a non-flushing seek waits for the streaming thread, which waits for
// the appsink to be pulled).
func TestNonFlushingSeekContinuesAtThePosition(t *testing.T) {
	const to, first = time.Hour, 108000 // the frame at an hour, at 30/1
	p, _, sink := seekPipeline(t, "tensorsrc name=src pool-size=4")
	defer stop(t, p)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	next(t, sink, 0).release()
	var seekReturned atomic.Bool
	pulled := make(chan []uint64)
	go func() {
		var offs []uint64
		defer func() { pulled <- offs }()
		for {
			s := pull(t, sink, 10*time.Second)
			if s == nil {
				return
			}
			s.release()
			offs = append(offs, s.off)
			if s.off >= first+1 && seekReturned.Load() {
				return // the seek's first two frames came: done
			}
		}
	}()
	ok := p.SeekSimple(int64(to), gst.FormatTime, gst.SeekFlagNone)
	seekReturned.Store(true)
	offs := <-pulled
	if !ok {
		t.Fatal("non-flushing seek refused")
	}
	// The frames the source made before the seek took effect (1, 2, ...:
	// none if the seek came first), in order, then 108000, 108001, ...
	k := slices.Index(offs, first)
	if k < 0 || len(offs)-k < 2 || k > 0 && offs[0] != 1 {
		t.Fatalf("frames pulled around the non-flushing seek: %v, want 1.. then %d %d", offs, first, first+1)
	}
	for i := range offs[1:] {
		if i+1 != k && offs[i+1] != offs[i]+1 {
			t.Fatalf("frames pulled around the non-flushing seek not in order (from 1, from %d after it): %v", first, offs)
		}
	}
}

// A segment seek from frame 10 to frame 20 delivers frames 10..19 and
// ends with SEGMENT_DONE, not EOS.
func TestSegmentSeekEndsWithSegmentDone(t *testing.T) {
	p, _, sink := seekPipeline(t, "tensorsrc name=src pool-size=4")
	defer stop(t, p)
	if err := p.SetState(gst.StatePaused); err != nil {
		t.Fatal(err)
	}
	p.GetState(gst.StatePaused, gst.ClockTime(10*time.Second))
	start, _ := frameTimes(10, 30, 1)
	end, _ := frameTimes(20, 30, 1)
	if !p.SendEvent(gst.NewSeekEvent(1, gst.FormatTime, gst.SeekFlagFlush|gst.SeekFlagSegment,
		gst.SeekTypeSet, int64(start), gst.SeekTypeSet, int64(end))) {
		t.Fatal("segment seek refused")
	}
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	for n := uint64(10); n < 20; n++ {
		next(t, sink, n).release()
	}
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(10*time.Second), gst.MessageSegmentDone|gst.MessageEOS|gst.MessageError)
	if msg == nil || msg.Type() != gst.MessageSegmentDone {
		t.Fatalf("after the segment: %v, want SEGMENT_DONE", msg)
	}
}

// pattern=app: the application learns of a seek (OnSeek and the seek
// signal) after the flush; the slot it holds stays its own and can be
// pushed after the seek; slots it pushed that were not sent are given
// back (brackets closed); the next frame has the seek position's seqnum.
func TestSeekTellsTheApplication(t *testing.T) {
	p, srcEl := parse(t, "tensorsrc name=src pattern=app pool-size=6 ! "+seekCaps+" ! fakesink name=sink sync=true")
	src, err := FromElement(srcEl)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var offsets []uint64
	sinkEl, _ := p.GetElementByName("sink")
	sinkEl.GetStaticPad("sink").AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		mu.Lock()
		offsets = append(offsets, uint64(info.GetBuffer().Offset()))
		mu.Unlock()
		return gst.PadProbeOK
	})
	seeks := make(chan Seek, 4)
	src.OnSeek(func(s Seek) { seeks <- s })
	signalled := make(chan [2]uint64, 4)
	if _, err := srcEl.Connect("seek", func(_ *gst.Element, pos, stop uint64, rate float64, flush, segment bool, frame uint64) {
		signalled <- [2]uint64{pos, frame}
	}); err != nil {
		t.Fatal(err)
	}
	defer stop(t, p)
	p.SetState(gst.StatePaused)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	push := func(pts time.Duration) *Slot {
		sl, err := src.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := src.Push(sl, pts); err != nil {
			t.Fatal(err)
		}
		return sl
	}
	// Frame 0 prerolls; frame 1 waits in the sink (PAUSED); frame 2
	// waits in the queue or in create.
	push(0)
	p.GetState(gst.StatePaused, gst.ClockTime(10*time.Second))
	push(33 * time.Millisecond)
	push(66 * time.Millisecond)
	held, err := src.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !p.SeekSimple(int64(time.Second), gst.FormatTime, gst.SeekFlagFlush) {
		t.Fatal("seek refused")
	}
	var sk Seek
	select {
	case sk = <-seeks:
	case <-time.After(10 * time.Second):
		t.Fatal("OnSeek was not called")
	}
	if sk.Position != time.Second || !sk.Flush || sk.Segment || sk.Frame != 30 || sk.Stop != -1 || sk.Rate != 1 {
		t.Errorf("OnSeek got %+v", sk)
	}
	if got := <-signalled; got != [2]uint64{uint64(time.Second), 30} {
		t.Errorf("seek signal (position, frame) = %v", got)
	}
	if d := statU(t, srcEl, "seek-discarded"); d != uint64(sk.Discarded) || d > 2 {
		t.Errorf("seek-discarded %d, OnSeek said %d", d, sk.Discarded)
	}
	if n := held.brackets(); n != 1 {
		t.Errorf("the held slot has %d brackets open after the seek, want 1", n)
	}
	mu.Lock()
	before := len(offsets)
	mu.Unlock()
	if err := src.Push(held, time.Second); err != nil {
		t.Fatalf("pushing the slot held across the seek: %v", err)
	}
	p.GetState(gst.StatePaused, gst.ClockTime(10*time.Second))
	waitFor(t, "the frame after the seek", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(offsets) > before
	})
	mu.Lock()
	if offsets[before] != 30 {
		t.Errorf("the first frame after the seek has seqnum %d, want 30 (all: %v)", offsets[before], offsets)
	}
	mu.Unlock()
	stop(t, p)
	if n := statU(t, srcEl, "brackets-open"); n != 0 {
		t.Errorf("%d brackets open after NULL", n)
	}
}

// A non-flushing seek while create waits for the application's next
// push completes at once (create gives way); the application hears of
// it, and its next frame is numbered from the position. Without the
// wake-up the seek waited until the application pushed a frame.
func TestNonFlushingSeekEndsCreateWaitForAPush(t *testing.T) {
	p, srcEl := parse(t, "tensorsrc name=src pattern=app pool-size=4 ! "+seekCaps+" ! appsink name=sink sync=false enable-last-sample=false")
	se, _ := p.GetElementByName("sink")
	sink := app.SinkFromElement(se)
	src, err := FromElement(srcEl)
	if err != nil {
		t.Fatal(err)
	}
	seeks := make(chan Seek, 2)
	src.OnSeek(func(s Seek) { seeks <- s })
	defer func() {
		if p != nil {
			stop(t, p)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	sl, err := src.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Push(sl, 0); err != nil {
		t.Fatal(err)
	}
	s := pull(t, sink, 10*time.Second)
	if s == nil || s.off != 0 {
		t.Fatalf("first frame: %+v", s)
	}
	s.release()
	// create now waits for a push.
	done := make(chan bool, 1)
	go func() { done <- p.SeekSimple(int64(2*time.Second), gst.FormatTime, gst.SeekFlagNone) }()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("non-flushing seek refused")
		}
	case <-time.After(10 * time.Second):
		// Unblock the seek so the test can end.
		if sl, err := src.Acquire(ctx); err == nil {
			src.Push(sl, 0)
		}
		<-done
		t.Fatal("a non-flushing seek waited for the application's next push")
	}
	if sk := <-seeks; sk.Flush || sk.Frame != 60 {
		t.Errorf("OnSeek got %+v", sk)
	}
	sl, err = src.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Push(sl, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	s = pull(t, sink, 10*time.Second)
	if s == nil || s.off != 60 || s.pts != 2*time.Second {
		t.Fatalf("frame after the seek: %+v, want frame 60 at 2s", s)
	}
	s.release()
	stop(t, p)
	p, sink = nil, nil
}
