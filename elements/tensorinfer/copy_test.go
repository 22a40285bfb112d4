package tensorinfer_test

import (
	"fmt"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// The copy path: with propose-pool=false upstream (videotestsrc) makes
// its own system-memory buffers, which are not fd memory; tensorinfer
// copies each into its own pinned memory (one memfd tensor, bound once as
// an input slot) and runs on it. Every output equals the reference of the
// frame; every frame is one copy of the frame's bytes, counted (copies,
// bytes-copied), nothing converted; the copy is logged once per run in
// GST_PERFORMANCE, not once per frame.
func TestTensorInferCopiesNonFDInput(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const frames = 30
	src := "videotestsrc num-buffers=%d pattern=checkers-8 ! video/x-raw,format=RGB,width=64,height=64"
	var img []byte
	mustRun(t, fmt.Sprintf(src, 1)+" ! tensorpinsink name=sink sync=false", func(f tensorpinsink.Frame) {
		defer f.Release()
		img = append([]byte(nil), f.PlaneBytes(0)...)
	})
	if len(img) != infertest.ShippedInputBytes {
		t.Fatalf("reference frame of %d bytes", len(img))
	}
	want := shipped(img)
	log := gsttest.CaptureLog(t, "GST_PERFORMANCE", gst.LevelInfo)
	var c checker
	r := mustRun(t, fmt.Sprintf(src, frames)+fmt.Sprintf(" ! tensorinfer name=infer propose-pool=false ort-library=%s model=%s ! "+
		"tensorpinsink name=sink sync=false", lib, model),
		func(f tensorpinsink.Frame) { c.frame(f, func(int) [][]float64 { return want }) })
	c.check(t, frames)
	s := r.infer
	t.Logf("stats %+v", s)
	if s.Frames != frames || s.Runs != frames || s.Copies != frames || s.BytesCopied != frames*infertest.ShippedInputBytes ||
		s.Conversions != 0 || s.ConversionBytes != 0 {
		t.Errorf("stats %+v: want %d frames and runs, %d copies of %d bytes, no conversion", s, frames, frames, infertest.ShippedInputBytes)
	}
	if s.InputBinds != 1 || s.Mmaps != 1+5 {
		t.Errorf("stats %+v: want the one copy tensor bound and mapped once (1 input bind, 1+5 mmaps with the output ring)", s)
	}
	if r.message["copies"] != frames || r.message["bytes-copied"] != frames*infertest.ShippedInputBytes {
		t.Errorf("tensorinfer-stats at EOS: copies %d, bytes-copied %d", r.message["copies"], r.message["bytes-copied"])
	}
	if got := log.Containing("tensorinfer: copying input"); len(got) != 1 {
		t.Errorf("%d GST_PERFORMANCE messages about the copy, want 1: %q", len(got), got)
	} else {
		t.Logf("GST_PERFORMANCE: %s", got[0])
	}
}
