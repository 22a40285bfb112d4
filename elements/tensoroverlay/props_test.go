package tensoroverlay_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
)

// The properties' defaults are the documented ones, a set value reads
// back, and stats is a structure of the three counters.
func TestTensorOverlayPropertyDefaults(t *testing.T) {
	e, err := gst.NewElement(tensoroverlay.Name)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]any{
		"line-width": uint(2), "color": uint(0xFF00FF00), "draw-labels": true, "font-scale": uint(2),
	} {
		if got, err := e.GetProperty(name); err != nil || got != want {
			t.Errorf("%s: %v (%v), want %v", name, got, err, want)
		}
	}
	if err := e.SetProperty("color", uint(0x80123456)); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.GetProperty("color"); got != uint(0x80123456) {
		t.Errorf("color %v after setting 0x80123456", got)
	}
	// Not e.GetProperty: go-gst's Structure points into a GValue it
	// frees at a garbage collection (see gstglue.GetStructureProperty).
	st, err := gstglue.GetStructureProperty(e, "stats")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Free()
	if st.Name() != "tensoroverlay-stats" {
		t.Errorf("stats structure %q", st.Name())
	}
	for _, k := range []string{"frames", "boxes", "copies"} {
		if v, err := st.GetValue(k); err != nil || v != uint64(0) {
			t.Errorf("stats %s: %v (%v), want 0", k, v, err)
		}
	}
	if _, err := tensoroverlay.ReadStats(nil); err == nil {
		t.Error("ReadStats(nil): no error")
	}
}

// A property set while playing is what the next frame draws with: the
// first frame in the default green with 2-pixel lines, then — set between
// the two, once the first came out — red, 4 pixels, no labels.
func TestTensorOverlayPropertiesWhilePlaying(t *testing.T) {
	caps := "video/x-raw,format=BGRx,width=160,height=120"
	in := background(t, caps)
	p, err := gst.NewPipelineFromString(chain(""))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	srcEl, _ := p.GetElementByName("src")
	sinkEl, _ := p.GetElementByName("sink")
	ov, _ := p.GetElementByName("ov")
	src, sink := app.SrcFromElement(srcEl), app.SinkFromElement(sinkEl)
	c := gst.NewCapsFromString(caps)
	src.SetCaps(c)
	gstglue.ReleaseCaps(c)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	changed := params{lineWidth: 4, fontScale: 2, color: 0xFFFF0000, drawLabels: false}
	for i, par := range []params{defaults, changed} {
		if i == 1 {
			ov.SetProperty("color", uint(changed.color))
			ov.SetProperty("line-width", uint(changed.lineWidth))
			ov.SetProperty("draw-labels", false)
		}
		buf := gst.NewBufferWithSize(int64(len(in)))
		buf.FillBytes(0, in)
		addROIs(t, buf, scene)
		gsttest.PushOwned(src, buf)
		// A wait for the frame, not a timed assertion: the limit only
		// keeps a broken element from hanging the test.
		s := sink.TryPullSample(gst.ClockTime(20 * time.Second))
		if s == nil {
			t.Fatalf("frame %d did not come out", i)
		}
		b := s.GetBuffer()
		out := make([]byte, b.GetSize())
		gstglue.ExtractBuffer(gstglue.BorrowBuffer(b), out)
		gstglue.UnrefBuffer(b)
		runtime.SetFinalizer(s, nil)
		s.Unref()
		expect(t, caps, in, model(scene, par, 160, 120), "bt601").check(t, "frame "+string(rune('0'+i)), out)
	}
}
