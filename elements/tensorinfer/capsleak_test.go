package tensorinfer_test

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// Caps queries answered with the model's caps (started, a model loaded)
// give back every caps they make: none is left to a go-gst finalizer.
// Go's collector is off for the test, as good as off in a C or Python
// process, where the plugin's Go heap seldom grows; each query used to
// leave the sink template's caps behind (two a NULL→PLAYING cycle).
func TestTensorInferCapsQueriesLeaveNoCaps(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	e, err := gst.NewElementWithProperties("tensorinfer", map[string]interface{}{"model": model, "ort-library": lib})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetState(gst.StatePaused); err != nil {
		t.Fatal(err)
	}
	defer e.SetState(gst.StateNull)
	pad := e.GetStaticPad("sink")
	defer gstglue.ReleasePad(pad)
	// Caps naming every format capslayout maps: the template's, or caps
	// built around it. The pad templates' own are not listed (GStreamer
	// marks them may-be-leaked).
	templates := func() int {
		objs, ok := gsttest.LiveObjects()
		if !ok {
			t.Fatal("the leaks tracer is not active")
		}
		n := 0
		for _, o := range objs {
			if strings.HasPrefix(o, "GstCaps ") && strings.Contains(o, "P010_10LE }") {
				n++
			}
		}
		return n
	}
	before := templates()
	const queries = 10
	for range queries {
		caps := pad.QueryCaps(nil)
		if caps == nil || caps.GetSize() < 2 {
			t.Fatalf("caps query: %v, want the model's caps then the template's", caps)
		}
		gstglue.ReleaseCaps(caps)
	}
	if after := templates(); after != before {
		t.Errorf("%d caps queries left %d caps of the sink template alive (%d before, %d after)", queries, after-before, before, after)
	}
}
