package integration_test

// Seeks with frames held: 20 flushing seeks per pipeline shape (every
// other one a segment seek) — while PLAYING and while PAUSED — with every lease of the sink held by the
// application across each, released afterwards from another goroutine.
// Each seek completes (no deadlock), the first frame after it is the one
// at the seek position, the held frames keep their bytes, every bracket
// ends once, and the process's fds, mappings and GStreamer objects are
// back to where they were.

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

const (
	seekCaps   = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"
	seekLeases = 4
	seekRounds = 20
)

var seekShapes = []struct {
	name, desc string
}{
	{"tensorsrc-line", "tensorsrc name=src pool-size=4 ! " + seekCaps + " ! tensorpinsink name=sink sync=false max-leases=4"},
	{"tensorsrc-queue", "tensorsrc name=src pool-size=4 ! " + seekCaps + " ! queue ! tensorpinsink name=sink sync=false max-leases=4"},
	// tee does not pass the sink's min-buffers up: with every lease held
	// the ring needs more than the leases for the preroll after a seek.
	// Paused, one branch's queue and prerolled sink can hold the whole
	// ring while the other branch's sink, done with those frames in
	// PLAYING, waits for a new one to preroll (seen in the guest about
	// one run in twelve, either way round): the ring grows then
	// (max-pool-size), and the sink prerolls on the new frame.
	{"tensorsrc-tee", "tensorsrc name=src pool-size=6 ! " + seekCaps + " ! tee name=t t. ! queue ! tensorpinsink name=sink sync=false max-leases=4 " +
		"t. ! queue ! fakesink sync=false"},
	{"videotestsrc-pool", "videotestsrc ! " + seekCaps + " ! tensorpinsink name=sink sync=false max-leases=4"},
	{"videotestsrc-copy", "videotestsrc ! " + seekCaps + " ! tensorpinsink name=sink sync=false max-leases=4 propose-pool=false"},
}

// seekTarget is round i's position: a different second each round, not on
// a frame boundary, so the first frame after the seek is the one before
// it (floor, as videotestsrc and tensorsrc both restart).
func seekTarget(i int) (target, want time.Duration) {
	target = time.Duration(i+1)*time.Second + time.Duration(i%3)*10*time.Millisecond
	n := int64(target) * 30 / int64(time.Second)
	return target, time.Duration(n * int64(time.Second) / 30)
}

func TestSeekWithFramesHeld(t *testing.T) {
	for _, paused := range []bool{false, true} {
		for _, sh := range seekShapes {
			name := sh.name + "/playing"
			if paused {
				name = sh.name + "/paused"
			}
			t.Run(name, func(t *testing.T) {
				before := readFigures(t)
				tb := tensor.ReadStats()
				srcStats := seekRoundsWithFramesHeld(t, sh.desc, paused)
				ta := tensor.ReadStats()
				if o, c := ta.BracketsOpened-tb.BracketsOpened, ta.BracketsClosed-tb.BracketsClosed; o != c || ta.UnbalancedSyncs != tb.UnbalancedSyncs {
					t.Errorf("brackets: %d opened, %d closed, %d unbalanced", o, c, ta.UnbalancedSyncs-tb.UnbalancedSyncs)
				}
				if srcStats != nil && (srcStats["brackets-opened"] != srcStats["brackets-closed"] || srcStats["seeks"] < uint64(seekRounds)) {
					t.Errorf("tensorsrc stats after the run: %v", srcStats)
				}
				what := fmt.Sprintf("%d flushing seeks, %d leases held across each", seekRounds, seekLeases)
				if srcStats != nil {
					what += fmt.Sprintf("; tensorsrc's ring grew by %d", srcStats["pool-grown"])
				}
				report(t, name, before, what)
			})
		}
	}
}

// within runs f and fails the test (fatally) if it does not return
// within 10 s: a deadlock.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not complete within 10 s", what)
	}
}

// settled waits at most timeout for p's state change to complete and
// returns gst_element_get_state's answer, with the bus's error if there
// is one. gst_element_get_state answers FAILURE in two cases: the state
// change failed (its return is FAILURE, answered at once by every later
// call), or its wait woke before the pending state was reached — any
// broadcast on the element's state condition (another commit, a newer
// state change) or a spurious wake-up; gstelement.c, "got failure",
// "interrupted". A flushing seek in PAUSED, the sinks losing their
// preroll while the bin still completes an earlier asynchronous change,
// wakes it so (2–4 rounds in 30 in the guest). A FAILURE with no error on
// the bus is waited again; a failure that stays is still one at the
// deadline.
func settled(p *gst.Pipeline, timeout time.Duration) (gst.StateChangeReturn, *gst.Message) {
	deadline := time.Now().Add(timeout)
	for {
		ret, _ := p.GetState(gst.VoidPending, gst.ClockTime(max(time.Until(deadline), 0)))
		if ret != gst.StateChangeFailure {
			return ret, nil
		}
		if m := p.GetPipelineBus().PopFiltered(gst.MessageError); m != nil || time.Now().After(deadline) {
			return ret, m
		}
		time.Sleep(time.Millisecond) // a failure GetState returns at once: not a busy loop
	}
}

// seekRoundsWithFramesHeld runs the rounds on one pipeline and returns
// tensorsrc's stats (nil without one) once the pipeline and every frame
// are gone; the pipeline is unreachable when it returns.
func seekRoundsWithFramesHeld(t *testing.T, desc string, paused bool) map[string]uint64 {
	p, k, _ := parseWithSink(t, desc)
	frames := make(chan tensorpinsink.Frame, 2*seekLeases)
	k.OnFrame(func(f tensorpinsink.Frame) { frames <- f })
	var held []tensorpinsink.Frame
	defer func() {
		p.SetState(gst.StateNull)
		for _, f := range held {
			f.Release()
		}
		for len(frames) > 0 {
			(<-frames).Release()
		}
		runtime.KeepAlive(p)
	}()
	recv := func(what string) tensorpinsink.Frame {
		t.Helper()
		select {
		case f := <-frames:
			return f
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s within 10 s: %s", what, pipelineDiag(p, k))
		}
		return tensorpinsink.Frame{}
	}
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < seekRounds; i++ {
		if paused && i > 0 {
			if err := p.SetState(gst.StatePlaying); err != nil {
				t.Fatal(err)
			}
		}
		// Every lease held: the stream stops at the sink until a release.
		var snaps [][]byte
		for j := 0; j < seekLeases; j++ {
			f := recv(fmt.Sprintf("frame %d of round %d", j, i))
			held = append(held, f)
			snaps = append(snaps, bytes.Clone(f.Bytes()[:256]))
		}
		var pauseErr error
		if paused {
			within(t, fmt.Sprintf("round %d: PAUSED with every lease held", i), func() { pauseErr = p.SetState(gst.StatePaused) })
		}
		target, want := seekTarget(i)
		var ok bool
		within(t, fmt.Sprintf("round %d: flushing seek to %v", i, target), func() {
			if i%2 == 0 {
				ok = p.SeekSimple(int64(target), gst.FormatTime, gst.SeekFlagFlush|gst.SeekFlagKeyUnit)
				return
			}
			// Odd rounds: a flushing segment seek (SEGMENT_DONE at its
			// stop, 10 s on: not reached).
			ok = p.SendEvent(gst.NewSeekEvent(1, gst.FormatTime, gst.SeekFlagFlush|gst.SeekFlagSegment,
				gst.SeekTypeSet, int64(target), gst.SeekTypeSet, int64(target+10*time.Second)))
		})
		if !ok {
			t.Fatalf("round %d: seek to %v refused", i, target)
		}
		if paused {
			if ret, m := settled(p, 10*time.Second); ret != gst.StateChangeSuccess {
				diag := pipelineDiag(p, k) + fmt.Sprintf("; PLAYING→PAUSED: %v", pauseErr)
				if m == nil {
					m = p.GetPipelineBus().PopFiltered(gst.MessageWarning)
				}
				if m != nil {
					if ge, ok := gstglue.ParseErrorMessage(m); ok {
						diag += fmt.Sprintf("; bus %v from %s: %s (%s)", m.Type(), m.Source(), ge.Message, ge.Debug)
					} else {
						diag += fmt.Sprintf("; bus %v from %s", m.Type(), m.Source())
					}
				}
				t.Fatalf("round %d: no preroll within 10 s after the seek (%v): %s", i, ret, diag)
			}
		}
		// Held frames stay valid across the flush; released from another
		// goroutine.
		for j, f := range held {
			if !f.Valid() || !bytes.Equal(f.Bytes()[:256], snaps[j]) {
				t.Fatalf("round %d: frame %d held across the seek changed or went stale", i, j)
			}
		}
		rel := held
		held = nil
		released := make(chan struct{})
		go func() {
			defer close(released)
			for _, f := range rel {
				if err := f.Release(); err != nil {
					t.Errorf("release after the seek: %v", err)
				}
			}
		}()
		<-released
		if paused {
			if err := p.SetState(gst.StatePlaying); err != nil {
				t.Fatal(err)
			}
		}
		// Every lease was held, so nothing was delivered between the
		// flush and the releases: the next frame is the first after the
		// seek.
		f := recv(fmt.Sprintf("the first frame after seek %d", i))
		if f.PTS() != want {
			t.Fatalf("round %d: seek to %v, first frame after it at %v, want %v", i, target, f.PTS(), want)
		}
		f.Release()
		if paused {
			within(t, fmt.Sprintf("round %d: PAUSED", i), func() { p.SetState(gst.StatePaused) })
			for len(frames) > 0 {
				(<-frames).Release()
			}
		}
	}
	// Stop, release what is left, read the source's stats once every
	// buffer is back.
	within(t, "NULL", func() { p.SetState(gst.StateNull) })
	for len(frames) > 0 {
		(<-frames).Release()
	}
	if s := k.Stats(); s.LeasesOutstanding != 0 {
		t.Errorf("%d leases outstanding after NULL", s.LeasesOutstanding)
	}
	src, err := p.GetElementByName("src")
	if err != nil || src == nil {
		return nil
	}
	st := srcStatsU(t, src)
	return st
}

func srcStatsU(t *testing.T, src *gst.Element) map[string]uint64 {
	t.Helper()
	st, err := gstglue.GetStructureProperty(src, "stats")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Free()
	m := map[string]uint64{}
	for _, key := range []string{"frames", "brackets-opened", "brackets-closed", "brackets-open", "seeks", "pool-grown"} {
		v, err := st.GetValue(key)
		if err != nil {
			t.Fatalf("tensorsrc stats lack %s: %s", key, st)
		}
		m[key] = v.(uint64)
	}
	return m
}

// pipelineDiag describes where a stalled seek pipeline stands: the sink's
// and the source's stats, every element not settled in its state, and
// the queues' levels.
func pipelineDiag(p *gst.Pipeline, k *tensorpinsink.Sink) string {
	diag := fmt.Sprintf("sink %+v", k.Stats())
	if src, err := p.GetElementByName("src"); err == nil && src != nil {
		st, _ := gstglue.GetStructureProperty(src, "stats")
		diag += fmt.Sprintf("; src %s", st)
	}
	if els, err := p.GetElements(); err == nil {
		for _, e := range els {
			r, cur := e.GetState(gst.VoidPending, 0)
			diag += fmt.Sprintf("; %s: %v in %v", e.GetName(), r, cur)
			if v, err := e.GetProperty("current-level-buffers"); err == nil {
				diag += fmt.Sprintf(" (%v buffers queued)", v)
			}
		}
	}
	return diag
}
