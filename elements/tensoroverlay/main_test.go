package tensoroverlay_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results/resultstest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay/internal/overlaytest"
)

func TestMain(m *testing.M) { gsttest.Main(m, func() bool { return tensoroverlay.Register(nil) }) }

// frame is one input buffer: its bytes, the regions added to it, and a
// GstVideoMeta (nil: none, the caps' default layout).
type frame struct {
	data []byte
	rois []gstglue.Region
	meta *gstglue.VideoMetaLayout
}

// result is what came out of a run: each appsink's output buffers, in
// order, the element's counters after EOS, and with hold the bytes of
// the buffers the test held.
type result struct {
	out   map[string][][]byte
	stats tensoroverlay.Stats
	held  [][]byte
}

// chain is the description of appsrc → tensoroverlay (props) → appsink,
// named as runOverlay wants them.
func chain(props string) string {
	return "appsrc name=src format=time ! tensoroverlay name=ov " + props + " ! appsink name=sink sync=false wait-on-eos=false"
}

// runOverlay plays desc — an appsrc named src, a tensoroverlay named ov,
// and the appsinks named in sinks (wait-on-eos=false: EOS reaches the
// bus while they still hold what they received) — pushing frames of caps
// caps from src, and returns what each appsink received. With hold, the test keeps a
// reference of every buffer it pushes until the run is over (the element
// sees buffers it cannot write to); otherwise each buffer is pushed with
// its only reference, writable. The appsinks are read only after every
// frame is pushed: until then they hold what they received.
func runOverlay(t *testing.T, desc, caps string, frames []frame, hold bool, sinks ...string) result {
	t.Helper()
	if len(sinks) == 0 {
		sinks = []string{"sink"}
	}
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	// KeepAlive: go-gst's SetState does not keep its receiver alive
	// across the cgo call; a collection during the change to NULL could
	// unref the pipeline mid-change.
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	el := func(name string) *gst.Element {
		e, err := p.GetElementByName(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return e
	}
	src := app.SrcFromElement(el("src"))
	c := gst.NewCapsFromString(caps)
	src.SetCaps(c)
	gstglue.ReleaseCaps(c)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatalf("PLAYING: %v", err)
	}
	var kept []*gst.Buffer
	for i, f := range frames {
		buf := gst.NewBufferWithSize(int64(len(f.data)))
		buf.FillBytes(0, f.data)
		buf.SetPresentationTimestamp(gst.ClockTime(time.Duration(i) * 33 * time.Millisecond))
		if f.meta != nil {
			if err := gstglue.AddVideoMeta(gstglue.BorrowBuffer(buf), f.meta); err != nil {
				t.Fatal(err)
			}
		}
		addROIs(t, buf, f.rois)
		if hold {
			src.PushBuffer(buf)
			kept = append(kept, buf)
		} else {
			gsttest.PushOwned(src, buf)
		}
	}
	src.EndStream()
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(20*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS or error within 20 s")
	}
	if ge, ok := gstglue.ParseErrorMessage(msg); ok {
		t.Fatalf("error: %s (%s)", ge.Message, ge.Debug)
	}
	r := result{out: map[string][][]byte{}}
	for _, name := range sinks {
		sink := app.SinkFromElement(el(name))
		for {
			// At EOS an appsink returns its queue, then nil.
			s := sink.TryPullSample(0)
			if s == nil {
				break
			}
			b := s.GetBuffer()
			out := make([]byte, b.GetSize())
			gstglue.ExtractBuffer(gstglue.BorrowBuffer(b), out)
			r.out[name] = append(r.out[name], out)
			gstglue.UnrefBuffer(b)
			runtime.SetFinalizer(s, nil)
			s.Unref()
		}
		if len(r.out[name]) != len(frames) {
			t.Fatalf("%s: %d frames out of %d in", name, len(r.out[name]), len(frames))
		}
	}
	if r.stats, err = tensoroverlay.ReadStats(el("ov")); err != nil {
		t.Fatal(err)
	}
	for _, b := range kept {
		r.held = append(r.held, b.Extract(0, int64(b.GetSize())))
		gstglue.ReleaseBuffer(b)
	}
	return r
}

// addROIs adds rois to buf (writable) as regions of interest, in order. A
// region without detection params is added as facedetect adds its own:
// type and rectangle only. A tracked one gets a "tracking" structure (id,
// age, state) as tensortrack adds it; classifications are added after,
// as tensordecode adds a second model's results.
func addROIs(t *testing.T, buf *gst.Buffer, rois []gstglue.Region) {
	t.Helper()
	raw := gstglue.BorrowBuffer(buf)
	for i, roi := range rois {
		var err error
		id := -1
		if roi.Detection {
			id, err = gstglue.AddROI(raw, roi.ROI)
		} else {
			err = overlaytest.AddPlainROI(buf, roi.Type, roi.X, roi.Y, roi.W, roi.H)
		}
		if err != nil {
			t.Fatal(err)
		}
		if id < 0 && (roi.Tracked || len(roi.Classifications) > 0) {
			t.Fatalf("%+v: params need a region with an id (detection params)", roi)
		}
		if roi.Tracked {
			st := gst.NewStructure("tracking")
			for k, v := range map[string]any{"id": roi.TrackID, "age": roi.TrackAge, "state": roi.TrackState} {
				if err := st.SetValue(k, v); err != nil {
					t.Fatal(err)
				}
			}
			if err := resultstest.AddParam(buf, i, st); err != nil { // the i-th region
				t.Fatal(err)
			}
		}
		for _, c := range roi.Classifications {
			if _, _, _, _, err := gstglue.AddClassification(raw, id, c); err != nil {
				t.Fatal(err)
			}
		}
	}
}
