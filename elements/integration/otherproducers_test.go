package integration_test

// What the project brackets when the producer is not tensorsrc (README,
// "Which shapes get which guarantee"): with vivid's real V4L2 dma-bufs
// (io-mode=dmabuf, in the QEMU guest) nobody opens a bracket before the
// buffer reaches the sinks, so each tensorpinsink brackets its own read —
// sinks whose frames overlap share one bracket — and a reader that is not
// a tensorpinsink (a converter mapping the buffer) is bracketed only by
// GStreamer's own map-time syncs, which package tensor does not count.
// The single-sink line is TestV4L2DMABufFromVivid (one START and one END
// per frame).

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// runForeignShape plays desc (its tensorpinsinks named sink, sink2, ...)
// to EOS, checks that every frame reached each sink inside an open
// bracket, and returns the package's sync counters over the run.
func runForeignShape(t *testing.T, desc string, sinks, frames int) tensor.Stats {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	defer runtime.KeepAlive(p)
	var mu sync.Mutex
	var problems []string
	ks := make([]*tensorpinsink.Sink, sinks)
	for i := range ks {
		name := "sink"
		if i > 0 {
			name = fmt.Sprintf("sink%d", i+1)
		}
		el, err := p.GetElementByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if ks[i], err = tensorpinsink.FromElement(el); err != nil {
			t.Fatal(err)
		}
		ks[i].OnFrame(func(f tensorpinsink.Frame) {
			defer f.Release()
			if _, open := tensor.OpenBracket(f.Tensor().Identity()); !open || f.Copied() {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("sink %d: frame outside a bracket (copied %v)", i, f.Copied()))
				mu.Unlock()
			}
		})
	}
	before := tensor.ReadStats()
	p.SetState(gst.StatePlaying)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(120*time.Second), gst.MessageEOS|gst.MessageError)
	p.SetState(gst.StateNull)
	if msg == nil {
		t.Fatal("no EOS within 120 s")
	}
	if msg.Type() == gst.MessageError {
		ge, _ := gstglue.ParseErrorMessage(msg)
		t.Fatalf("pipeline error: %+v", ge)
	}
	d := statsDelta(before, tensor.ReadStats())
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("%d problem(s), first: %s", len(problems), problems[0])
	}
	for i, k := range ks {
		if s := k.Stats(); s.Frames != uint64(frames) || s.Syncs != uint64(2*frames) || s.LeasesOutstanding != 0 {
			t.Errorf("sink %d: stats %+v: want %d frames, each entered and left once", i, s, frames)
		}
	}
	if d.SyncNotTTY != 0 || d.SyncErrors != 0 || d.UnbalancedSyncs != 0 {
		t.Errorf("%d ENOTTY, %d errors, %d unbalanced: want real, balanced dma-buf brackets", d.SyncNotTTY, d.SyncErrors, d.UnbalancedSyncs)
	}
	if d.SyncStart != d.SyncEnd || d.BracketsOpened != d.BracketsClosed || d.SyncStart != d.BracketsOpened {
		t.Errorf("%d START, %d END, %d brackets opened, %d closed: want one START and one END per bracket",
			d.SyncStart, d.SyncEnd, d.BracketsOpened, d.BracketsClosed)
	}
	return d
}

func TestV4L2TeeShapes(t *testing.T) {
	dev := vividDevice(t, "vivid-000-vid-cap")
	const n = 30
	src := fmt.Sprintf(`v4l2src device=%s io-mode=dmabuf num-buffers=%d ! video/x-raw,format=YUY2,width=320,height=180,framerate=120/1`, dev, n)

	// Two tensorpinsinks behind a tee: each brackets its read; when their
	// frames overlap in time they share the bracket (the last to release
	// ends it), otherwise each opens its own: 1 to 2 per frame, never more.
	t.Run("tee-2-sinks", func(t *testing.T) {
		d := runForeignShape(t, src+` ! tee name=t t. ! queue ! tensorpinsink name=sink sync=false `+
			`t. ! queue ! tensorpinsink name=sink2 sync=false`, 2, n)
		if d.SyncStart < n || d.SyncStart > 2*n {
			t.Errorf("%d brackets for %d frames into two sinks, want %d to %d", d.SyncStart, n, n, 2*n)
		}
		t.Logf("tee-2-sinks: %d frames, %d brackets (%d shared by both sinks)", n, d.SyncStart, 2*n-int(d.SyncStart))
	})

	// A tensorpinsink and a converter that maps the same dma-buf: only the
	// sink's read is the project's bracket — exactly one per frame; the
	// converter's map syncs are GStreamer's (not in these counters).
	t.Run("tee-sink-and-converter", func(t *testing.T) {
		d := runForeignShape(t, src+` ! tee name=t t. ! queue ! tensorpinsink name=sink sync=false `+
			`t. ! queue ! videoconvert ! video/x-raw,format=RGB ! fakesink sync=false`, 1, n)
		if d.SyncStart != n {
			t.Errorf("%d brackets for %d frames, want exactly the sink's %d", d.SyncStart, n, n)
		}
	})
}
