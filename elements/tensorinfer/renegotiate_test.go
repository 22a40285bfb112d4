package tensorinfer_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// A model with a free batch dimension, its caps renegotiated mid-stream
// from batch 1 to batch 2 (the application changes a capsfilter while
// playing): tensorinfer opens a new session for the new shapes, its
// src caps follow (scores [1 3] then [2 3]), every output before and
// after is the Go reference of its input, and the counters go on across
// the two sessions (runs = frames).
func TestTensorInferRenegotiatesFreeDims(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.Means{H: 8, W: 8, C: 3, Scale: 1, DynamicBatch: true}
	model := writeModel(t, "dyn.onnx", m.ONNX())
	capsFor := func(batch int) string {
		return fmt.Sprintf("other/tensors,format=static,num_tensors=1,dimensions=3:8:8:%d,types=uint8,framerate=0/1", batch)
	}
	p, err := gst.NewPipelineFromString(fmt.Sprintf("tensorsrc pattern=counter ! capsfilter name=cf caps=%s ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", capsFor(1), lib, model))
	if err != nil {
		t.Fatal(err)
	}
	e, _ := p.GetElementByName("sink")
	sink, _ := tensorpinsink.FromElement(e)
	type out struct {
		scores []float32
		input  []byte
	}
	var mu sync.Mutex
	var outs []out
	got := make(chan struct{}, 64)
	sink.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		n := len(outs)
		scores := floats(f.PlaneBytes(0))
		outs = append(outs, out{scores: scores, input: counter(n, len(scores)/3*8*8*3)})
		mu.Unlock()
		select {
		case got <- struct{}{}:
		default:
		}
	})
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(outs) }
	waitFor := func(n int, what string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for count() < n {
			select {
			case <-got:
			case <-deadline:
				t.Fatalf("%d frames, want %d %s", count(), n, what)
			}
		}
	}
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	waitFor(5, "at batch 1")
	// The counters never go back while sessions are replaced: an
	// application reading stats meanwhile sees runs only grow.
	ie, _ := p.GetElementByName("infer")
	stopPoll := make(chan struct{})
	pollDone := make(chan string, 1)
	go func() {
		var last uint64
		for {
			select {
			case <-stopPoll:
				pollDone <- ""
				return
			default:
			}
			s, err := tensorinfer.ReadStats(ie)
			if err == nil && s.Runs < last {
				pollDone <- fmt.Sprintf("runs went from %d back to %d while the session was replaced", last, s.Runs)
				return
			}
			if err == nil {
				last = s.Runs
			}
			time.Sleep(100 * time.Microsecond)
		}
	}()
	cf, _ := p.GetElementByName("cf")
	if err := cf.SetProperty("caps", gst.NewCapsFromString(capsFor(2))); err != nil {
		t.Fatal(err)
	}
	// Frames in flight at batch 1, then batch 2 ones.
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		last := outs[len(outs)-1]
		mu.Unlock()
		if len(last.scores) == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no batch-2 output within 30 s of the caps change (last output %v)", last.scores)
		}
		select {
		case <-got:
		case <-time.After(time.Second):
		}
	}
	waitFor(count()+5, "after the caps change")
	close(stopPoll)
	if problem := <-pollDone; problem != "" {
		t.Error(problem)
	}
	delivered := count() // runs and frames are counted before the output is pushed
	s, err := tensorinfer.ReadStats(ie)
	if err != nil {
		t.Fatal(err)
	}
	p.SetState(gst.StateNull)
	mu.Lock()
	defer mu.Unlock()
	batch2 := 0
	for n, o := range outs {
		batch := len(o.scores) / 3
		if batch != 1 && batch != 2 || len(o.scores)%3 != 0 {
			t.Fatalf("output %d: %d scores, want 3 (batch 1) or 6 (batch 2)", n, len(o.scores))
		}
		if batch == 2 {
			batch2++
		} else if batch2 > 0 {
			t.Fatalf("output %d is batch 1 after a batch-2 output", n)
		}
		for b := range batch {
			img := o.input[b*8*8*3:]
			want := m.Reference(func(y, x, ch int) float64 { return float64(img[(y*8+x)*3+ch]) })[0]
			for c := range want {
				if !within(o.scores[b*3+c], want[c]) {
					t.Fatalf("output %d (batch %d) image %d: scores %v, want %v", n, batch, b, o.scores[b*3:b*3+3], want)
				}
			}
		}
	}
	t.Logf("%d outputs, %d at batch 2; stats %+v", len(outs), batch2, s)
	if s.Runs < uint64(delivered) || s.Frames < uint64(delivered) || s.OutputBinds < 2*s.RingSize {
		t.Errorf("stats %+v: want runs and frames ≥ %d across both sessions, and each session's ring bound", s, delivered)
	}
}
