package tensorinfer_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// awaitSlotWait returns once tensorinfer (named infer in p) is inside
// its wait for a free output slot, failing the test after 30 s.
func awaitSlotWait(t *testing.T, p *gst.Pipeline) {
	t.Helper()
	e, err := p.GetElementByName("infer")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !tensorinfer.WaitingForSlot(e) {
		if time.Now().After(deadline) {
			s, _ := tensorinfer.ReadStats(e)
			t.Fatalf("tensorinfer never waited for a free output slot: %+v", s)
		}
		time.Sleep(time.Millisecond)
	}
}

// A flushing seek while tensorinfer's streaming thread waits for a free
// output slot (every output slot is downstream: the application holds
// four frames, the sink's streaming thread the fifth, waiting for a
// lease, behind a queue — without one the sink's wait for a lease would
// hold tensorinfer's thread first, the ring being as large as the sink
// asks): the flush's
// FLUSH_START wakes the wait, so the seek — which takes the stream lock
// that thread holds — completes while the frames are still held (with no
// wake-up it would wait for them forever); after the frames are released
// the stream goes on from the seek position. Three rounds.
func TestTensorInferFlushWakesSlotWait(t *testing.T) {
	p, h := playHolding(t, ",framerate=30/1", "max-leases=1", "queue ! tensorpinsink name=sink max-leases=4 sync=false")
	defer h.close()
	for round := 0; round < 3; round++ {
		// The ring has the sink's max-leases+1 = 5 slots (more than
		// tensorinfer's max-leases+1 = 2): hold four; the sink holds
		// the fifth.
		for i := 0; i < 4; i++ {
			h.hold(fmt.Sprintf("held frame %d", i+1))
		}
		awaitSlotWait(t, p)
		target := time.Duration(round+1) * time.Second
		sought := make(chan bool, 1)
		start := time.Now()
		go func() { sought <- p.SeekSimple(int64(target), gst.FormatTime, gst.SeekFlagFlush|gst.SeekFlagAccurate) }()
		select {
		case ok := <-sought:
			if !ok {
				t.Fatalf("round %d: seek refused", round)
			}
			t.Logf("round %d: the flushing seek returned after %v with every output slot downstream", round, time.Since(start))
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: the flushing seek did not return within 20 s while every output slot was downstream: the flush did not wake the slot wait", round)
		}
		h.releaseHeld()
		f := h.recv("a frame after the seek")
		if f.PTS() != target {
			t.Errorf("round %d: first frame after the seek to %v at %v", round, target, f.PTS())
		}
		f.Release()
	}
}

// tensorinfer's output ring grows to what downstream's allocation answer
// says it holds at once: tensorinfer max-leases=1 (2 slots of its own)
// before a tensorpinsink whose application holds 6 frames (max-leases=6,
// min-buffers 7). The application gets all six while it holds them — a
// ring of 2 would stop after two, tensorinfer waiting for a slot and the
// application for a frame — and the values are the reference's.
func TestTensorInferRingGrowsToDownstreamMinBuffers(t *testing.T) {
	p, h := playHolding(t, "", "max-leases=1", "tensorpinsink name=sink max-leases=6 sync=false")
	defer h.close()
	for len(h.held) < 6 {
		select {
		case f := <-h.frames:
			h.held = append(h.held, f)
		case <-time.After(30 * time.Second):
			ie, _ := p.GetElementByName("infer")
			s, _ := tensorinfer.ReadStats(ie)
			t.Fatalf("%d frames delivered while the application holds them, want 6: tensorinfer's ring did not grow to the sink's min-buffers (stats %+v)", len(h.held), s)
		}
	}
	for n, f := range h.held {
		want := shipped(counter(n, infertest.ShippedInputBytes))[0]
		got := floats(f.PlaneBytes(0))
		for i := range want {
			if len(got) != len(want) || !within(got[i], want[i]) {
				t.Fatalf("held frame %d: %v, want %v", n, got, want)
			}
		}
	}
	ie, _ := p.GetElementByName("infer")
	s, err := tensorinfer.ReadStats(ie)
	if err != nil {
		t.Fatal(err)
	}
	if s.RingSize != 7 || s.DownstreamMinBuffers != 7 || s.OutputBinds != 7 {
		t.Errorf("stats %+v: want ring-size 7, downstream-min-buffers 7 and 7 output binds (the sink's max-leases+1)", s)
	}
}

// frameHolder is the application side of a test that holds output frames:
// it takes the frames of p's tensorpinsink (named sink) and keeps those
// the test holds.
type frameHolder struct {
	t      *testing.T
	p      *gst.Pipeline
	frames chan tensorpinsink.Frame
	held   []tensorpinsink.Frame
}

// playHolding plays tensorsrc pattern=counter ! the shipped model's
// input caps (with capsExtra) ! tensorinfer name=infer (inferProps, the
// shipped model) ! rest, whose tensorpinsink is named sink, with a
// frameHolder on that sink; the holder's close stops the pipeline.
func playHolding(t *testing.T, capsExtra, inferProps, rest string) (*gst.Pipeline, *frameHolder) {
	t.Helper()
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	p, err := gst.NewPipelineFromString(fmt.Sprintf("tensorsrc pattern=counter ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8%s ! "+
		"tensorinfer name=infer %s ort-library=%s model=%s ! %s", capsExtra, inferProps, lib, model, rest))
	if err != nil {
		t.Fatal(err)
	}
	h := holdFrames(t, p)
	if err := p.SetState(gst.StatePlaying); err != nil {
		h.close()
		t.Fatal(err)
	}
	return p, h
}

// holdFrames connects a frameHolder to p's sink (before p plays).
func holdFrames(t *testing.T, p *gst.Pipeline) *frameHolder {
	t.Helper()
	e, err := p.GetElementByName("sink")
	if err != nil {
		t.Fatal(err)
	}
	sink, err := tensorpinsink.FromElement(e)
	if err != nil {
		t.Fatal(err)
	}
	frames := make(chan tensorpinsink.Frame, 16)
	// The handler captures the channel, not h: h holds p, and the sink
	// holding a reference to p through its handler would keep the
	// pipeline from ever being finalized.
	sink.OnFrame(func(f tensorpinsink.Frame) { frames <- f })
	return &frameHolder{t: t, p: p, frames: frames}
}

// recv returns the next frame, failing the test after 30 s.
func (h *frameHolder) recv(what string) tensorpinsink.Frame {
	h.t.Helper()
	select {
	case f := <-h.frames:
		return f
	case <-time.After(30 * time.Second):
		h.t.Fatalf("no %s within 30 s", what)
	}
	return tensorpinsink.Frame{}
}

// hold receives the next frame and keeps it.
func (h *frameHolder) hold(what string) {
	h.t.Helper()
	h.held = append(h.held, h.recv(what))
}

// releaseHeld gives the held frames back.
func (h *frameHolder) releaseHeld() {
	for _, f := range h.held {
		f.Release()
	}
	h.held = h.held[:0]
}

// close stops the pipeline, then gives back every frame, held or not yet
// received.
func (h *frameHolder) close() {
	h.p.SetState(gst.StateNull)
	h.releaseHeld()
	for len(h.frames) > 0 {
		(<-h.frames).Release()
	}
	runtime.KeepAlive(h.p)
}

// A frame released by the application — from another goroutine, while
// tensorinfer's streaming thread waits for a free output slot (every slot
// downstream, as in TestTensorInferFlushWakesSlotWait) — wakes the wait:
// the memory's return frees its slot in C and tells the waiting thread,
// and the stream goes on (the sink's fifth frame alone could be
// delivered without it; ten more cannot). Three rounds.
func TestTensorInferReturnWakesSlotWait(t *testing.T) {
	p, h := playHolding(t, ",framerate=30/1", "max-leases=1", "queue ! tensorpinsink name=sink max-leases=4 sync=false")
	defer h.close()
	e, err := p.GetElementByName("infer")
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		for i := 0; i < 4; i++ {
			h.hold(fmt.Sprintf("round %d: held frame %d", round, i+1))
		}
		awaitSlotWait(t, p)
		held := h.held
		h.held = nil
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, f := range held {
				f.Release()
			}
		}()
		<-done
		for i := 0; i < 10; i++ {
			h.recv(fmt.Sprintf("round %d: frame %d after the release", round, i+1)).Release()
		}
	}
	s, err := tensorinfer.ReadStats(e)
	if err != nil {
		t.Fatal(err)
	}
	if s.Waits < 3 {
		t.Errorf("stats %+v: want a wait for a free output slot in each of the 3 rounds", s)
	}
}
