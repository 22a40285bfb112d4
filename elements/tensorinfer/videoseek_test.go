package tensorinfer_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// output=video interval=3 across a flushing seek: the result kept for
// the frames that do not run belongs to the frames before the flush, so
// the first frame after it runs the model (a run number not seen before)
// and carries its own scores; every frame's scores are those of the
// frame that ran. The application feeds the source (pattern=app) four
// frames before the seek — not a multiple of the interval, so a kept
// result would be reused by the first frame after it — and seven after.
func TestTensorInferVideoOutputIntervalAcrossFlushingSeek(t *testing.T) {
	intervalAcrossSeek(t, gst.SeekFlagFlush|gst.SeekFlagAccurate)
}

// The same across a non-flushing seek (a segment seek, a loop): the new
// segment starts a new count, so the first frame after it runs the model
// (before, the skip count ran across segments and the first frames
// after the seek carried a run from before it).
func TestTensorInferVideoOutputIntervalAcrossNonFlushingSeek(t *testing.T) {
	intervalAcrossSeek(t, gst.SeekFlagAccurate)
}

func intervalAcrossSeek(t *testing.T, flags gst.SeekFlags) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=64,height=64,framerate=30/1 ! "+
		"tensorinfer name=infer output=video interval=3 ort-library=%s model=%s ! fakesink name=sink sync=false", lib, model)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.KeepAlive(p)
	const seekTo = 10 * time.Second
	type frame struct {
		pts     time.Duration
		run     uint64
		correct bool // its scores are the reference of its own video
	}
	var mu sync.Mutex
	var frames []frame
	after := make(chan struct{}, 1)
	before := make(chan struct{}, 1)
	se, _ := p.GetElementByName("sink")
	pad := se.GetStaticPad("sink")
	pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		buf := info.GetBuffer()
		m, ok := tensormeta.Read(buf)
		if !ok {
			return gst.PadProbeOK
		}
		defer m.Release()
		video := make([]byte, infertest.ShippedInputBytes)
		gstglue.ExtractBuffer(gstglue.BorrowBuffer(buf), video)
		scores := make([]byte, 4*infertest.ShippedScores)
		gstglue.ExtractBuffer(gstglue.BorrowBuffer(m.Tensors), scores)
		want := infertest.ShippedReference(video)
		correct := true
		for k, g := range floats(scores) {
			correct = correct && infertest.ShippedWithin(float64(g), want[k])
		}
		f := frame{time.Duration(buf.PresentationTimestamp()), m.Run, correct}
		mu.Lock()
		frames = append(frames, f)
		nBefore, nAfter := 0, 0
		for _, g := range frames {
			if g.pts >= seekTo {
				nAfter++
			} else {
				nBefore++
			}
		}
		mu.Unlock()
		if nBefore == 4 {
			select {
			case before <- struct{}{}:
			default:
			}
		}
		if nAfter == 7 {
			select {
			case after <- struct{}{}:
			default:
			}
		}
		return gst.PadProbeOK
	})
	gstglue.ReleasePad(pad)
	srcEl, _ := p.GetElementByName("src")
	src, err := tensorsrc.FromElement(srcEl)
	if err != nil {
		t.Fatal(err)
	}
	seeked := make(chan struct{}, 1)
	src.OnSeek(func(tensorsrc.Seek) { seeked <- struct{}{} })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	push := func(n int, at time.Duration) {
		t.Helper()
		sl, err := src.Acquire(ctx)
		if err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		for i, b := 0, sl.Bytes(); i < len(b); i++ {
			b[i] = byte(n*7 + i)
		}
		if err := src.Push(sl, at); err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
	}
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	defer p.SetState(gst.StateNull)
	for n := range 4 {
		push(n, time.Duration(n)*time.Second/30)
	}
	wait := func(ch chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("no %s within 30 s", what)
		}
	}
	wait(before, "four frames before the seek")
	if !p.SeekSimple(int64(seekTo), gst.FormatTime, flags) {
		t.Fatal("the seek was refused")
	}
	wait(seeked, "the source's seek")
	for n := range 7 {
		push(4+n, seekTo+time.Duration(n)*time.Second/30)
	}
	wait(after, "seven frames after the seek")
	if err := p.SetState(gst.StateNull); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	seen := map[uint64]bool{}
	first := true
	for i, f := range frames {
		if f.pts >= seekTo && first {
			first = false
			if seen[f.run] {
				t.Errorf("frame %d (the first after the seek, at %v) carries run %d of the frames before it", i, f.pts, f.run)
			}
		}
		if !seen[f.run] && !f.correct {
			t.Errorf("frame %d at %v ran (run %d) but its scores are not its own", i, f.pts, f.run)
		}
		if f.pts < seekTo || !first {
			seen[f.run] = true
		}
	}
	if first {
		t.Fatalf("no frame after the seek: %v", frames)
	}
	t.Logf("frames (pts, run): %v", frames)
}
