package pipelines_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Frames the application holds hold back the producer: with max-leases=2
// and both frames held, no third frame comes; releasing one lets exactly
// the stream go on.
func TestUnreleasedFramesHoldBackProducer(t *testing.T) {
	p, err := pipelines.Parse("tensorsrc num-buffers=20 pool-size=4 ! " + tensorCaps(3, 8, 8) +
		" ! tensorpinsink name=sink sync=false max-leases=2")
	if err != nil {
		t.Fatal(err)
	}
	sink, _ := p.PinSink("sink")
	frames := sink.Frames()
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background()) }()

	held := []pipelines.Frame{<-frames, <-frames}
	select {
	case f := <-frames:
		t.Fatalf("a third frame (pts %v) arrived while two were held", f.PTS())
	case <-time.After(300 * time.Millisecond):
	}
	if s := sink.Stats(); s.Frames != 2 || s.WaitsForLease == 0 || s.LeasesOutstanding != 2 {
		t.Errorf("while held: %+v, want 2 frames, a wait for a lease, 2 outstanding", s)
	}
	if c := sink.Caps(); c == nil || !strings.Contains(c.String(), "dimensions=(string)3:8:8:1") {
		t.Errorf("negotiated caps %v", c)
	}
	held[0].Release()
	third := <-frames
	if want := held[1].PTS() + held[1].Duration(); third.PTS() != want {
		t.Errorf("after a release: pts %v, want %v (the next frame)", third.PTS(), want)
	}
	held[1].Release()
	third.Release()
	n := 3
	for f := range frames {
		n++
		f.Release()
	}
	if err := <-done; err != nil || n != 20 {
		t.Fatalf("Run = %v after %d frames, want nil after 20", err, n)
	}
}

// A consumer that never releases keeps EOS from reaching the sink: a
// cancel then times out, Run still stops the pipeline, and the held frame
// stays valid until released after Run.
func TestCancelTimesOutWhenFramesAreHeld(t *testing.T) {
	p, err := pipelines.Parse("tensorsrc ! " + tensorCaps(3, 8, 8) + " ! tensorpinsink name=sink sync=false max-leases=1")
	if err != nil {
		t.Fatal(err)
	}
	p.ShutdownTimeout = 200 * time.Millisecond
	sink, _ := p.PinSink("sink")
	frames := sink.Frames()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	f := <-frames
	// Cancel only once the streaming thread waits for a lease (the next
	// frame is in render): cancelled earlier, EOS could overtake that
	// frame and the stream would end in time.
	deadline := time.Now().Add(10 * time.Second)
	for sink.Stats().WaitsForLease == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	err = <-done
	if !errors.Is(err, context.Canceled) || !errors.Is(err, pipelines.ErrShutdownTimeout) {
		t.Fatalf("Run = %v, want canceled and shutdown timeout", err)
	}
	if b := f.Bytes(); len(b) != 8*8*3 {
		t.Errorf("held frame after stop: %d bytes", len(b))
	}
	if s := sink.Stats(); s.BracketsClosedAtStop != 1 {
		t.Errorf("brackets closed at stop: %d, want 1 (the held frame)", s.BracketsClosedAtStop)
	}
	f.Release()
	if _, ok := <-frames; ok {
		t.Error("frame channel still open after Run")
	}
}

// The application fills the source's pinned tensors; the sink sees the
// same bytes and PTS, in order, with no copy. When every tensor of the
// ring is in flight (held downstream), Next waits — back-pressure — and
// goes on as soon as one is released.
func TestTensorSrcRoundTripAndBackPressure(t *testing.T) {
	p, err := pipelines.Parse("tensorsrc name=src pool-size=2 ! " + tensorCaps(3, 8, 4) +
		" ! tensorpinsink name=sink sync=false max-leases=4 propose-pool=false") // no min-buffers: the ring stays at pool-size
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.TensorSrc("src")
	if err != nil {
		t.Fatal(err)
	}
	sink, _ := p.PinSink("sink")
	frames := sink.Frames()
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background()) }()
	ctx := context.Background()

	fill := func(n int) func(*pipelines.Slot) error {
		return func(sl *pipelines.Slot) error {
			b := sl.Bytes()
			for i := range b {
				b[i] = byte(n*31 + i)
			}
			return nil
		}
	}
	check := func(f pipelines.Frame, n int) {
		t.Helper()
		b := f.Bytes()
		if f.Copied() || len(b) != 8*4*3 || b[0] != byte(n*31) || b[95] != byte(n*31+95) || f.PTS() != time.Duration(n)*time.Millisecond {
			t.Fatalf("frame %d: copied %v, %d bytes, b[0]=%d, pts %v", n, f.Copied(), len(b), b[0], f.PTS())
		}
	}
	// Two frames fill the ring; the sink holds both.
	var held []pipelines.Frame
	for n := 0; n < 2; n++ {
		if err := src.Send(ctx, time.Duration(n)*time.Millisecond, fill(n)); err != nil {
			t.Fatal(err)
		}
		f := <-frames
		check(f, n)
		held = append(held, f)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	if _, err := src.Next(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next with the whole ring in flight: %v, want it to wait", err)
	}
	cancel()
	var got atomic.Bool
	go func() {
		time.Sleep(100 * time.Millisecond)
		got.Store(true)
		held[0].Release()
	}()
	sl, err := src.Next(ctx)
	if err != nil || !got.Load() {
		t.Fatalf("Next: %v, before the release: %v", err, !got.Load())
	}
	fill(2)(sl)
	if err := src.Push(sl, 2*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	held[1].Release()
	f2 := <-frames
	check(f2, 2)
	f2.Release()
	// The rest streams with the consumer releasing each frame.
	go func() {
		for n := 3; n < 50; n++ {
			if err := src.Send(ctx, time.Duration(n)*time.Millisecond, fill(n)); err != nil {
				t.Error(err)
				return
			}
		}
		src.Close()
	}()
	n := 3
	for f := range frames {
		check(f, n)
		n++
		f.Release()
	}
	if err := <-done; err != nil || n != 50 {
		t.Fatalf("Run = %v after %d frames", err, n)
	}
	if _, err := src.Next(ctx); !errors.Is(err, tensorsrc.ErrStopped) && !errors.Is(err, tensorsrc.ErrEOS) {
		t.Errorf("Next after the run: %v", err)
	}
}

// OnFrame delivers on the streaming thread instead of the channel.
func TestOnFrameCallback(t *testing.T) {
	p, err := pipelines.Parse("tensorsrc num-buffers=25 ! " + tensorCaps(1, 4, 4) + " ! queue ! tensorpinsink name=sink sync=false")
	if err != nil {
		t.Fatal(err)
	}
	sink, _ := p.PinSink("sink")
	var n atomic.Int64
	sink.OnFrame(func(f pipelines.Frame) {
		// Capturing the pipeline in a hook must not keep it alive after
		// Run: TestMain would see its bus's fds.
		if p.Gst() != nil && sink.Stats().Frames > 0 {
			n.Add(1)
		}
		f.Release()
	})
	frames := sink.Frames()
	if err := p.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-frames; ok || n.Load() != 25 {
		t.Errorf("callback got %d frames (want 25); channel got one: %v", n.Load(), ok)
	}
}

// An OnFrame handler that panics: Run returns the error, and the frame it
// held is released by the sink — no lease outstanding, and tensorsrc's
// ring slot comes back (every bracket opened on its buffers is closed:
// the source's ends when the memory returns).
func TestPanickingOnFrameReleasesItsFrame(t *testing.T) {
	p, err := pipelines.Parse("tensorsrc num-buffers=10 ! " + tensorCaps(1, 4, 4) + " ! tensorpinsink name=sink sync=false")
	if err != nil {
		t.Fatal(err)
	}
	sink, _ := p.PinSink("sink")
	n := 0
	sink.OnFrame(func(f pipelines.Frame) {
		if n++; n == 3 {
			panic("handler bug on frame 3")
		}
		f.Release()
	})
	before := tensor.ReadStats()
	err = p.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "handler bug on frame 3") {
		t.Fatalf("Run: %v, want the panic's text", err)
	}
	s := sink.Stats()
	if s.LeasesOutstanding != 0 || s.HandlerPanics != 1 {
		t.Fatalf("sink stats %+v: want no lease outstanding and 1 handler panic", s)
	}
	after := tensor.ReadStats()
	if opened, closed := after.BracketsOpened-before.BracketsOpened, after.BracketsClosed-before.BracketsClosed; opened != closed {
		t.Errorf("%d brackets opened, %d closed: the panicking frame's buffer never came back", opened, closed)
	}
}

// A seek reaches a pattern=app application through TensorSrc.OnSeek,
// after the flush; the frames it pushes next carry the new position.
func TestTensorSrcOnSeek(t *testing.T) {
	p, err := pipelines.Parse("tensorsrc name=src pool-size=3 ! " + tensorCaps(3, 8, 4) +
		" ! tensorpinsink name=sink sync=false")
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.TensorSrc("src")
	if err != nil {
		t.Fatal(err)
	}
	seeks := make(chan pipelines.Seek, 2)
	src.OnSeek(func(s pipelines.Seek) { seeks <- s })
	sink, _ := p.PinSink("sink")
	frames := sink.Frames()
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	nop := func(*pipelines.Slot) error { return nil }
	if err := src.Send(ctx, 0, nop); err != nil {
		t.Fatal(err)
	}
	(<-frames).Release()
	if !p.Gst().SeekSimple(int64(time.Second), gst.FormatTime, gst.SeekFlagFlush) {
		t.Fatal("seek refused")
	}
	var s pipelines.Seek
	select {
	case s = <-seeks:
	case <-ctx.Done():
		t.Fatal("OnSeek not called")
	}
	if s.Position != time.Second || !s.Flush {
		t.Fatalf("OnSeek got %+v", s)
	}
	if err := src.Send(ctx, s.Position, nop); err != nil {
		t.Fatal(err)
	}
	f := <-frames
	if f.PTS() != time.Second {
		t.Errorf("frame after the seek at %v, want 1s", f.PTS())
	}
	f.Release()
	src.Close()
	for f := range frames {
		f.Release()
	}
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
}
