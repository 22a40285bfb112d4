package tensoroverlay_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
)

// A buffer someone else holds cannot be drawn on: GstBaseTransform's
// in-place path makes it writable, and mapping it copies its memory. The
// test holds a reference of every frame it pushes: every output frame is
// drawn as the reference says, every held frame is as it was pushed, each
// frame is one copy in stats, and GST_PERFORMANCE says so once, not once
// a frame.
func TestTensorOverlayHeldBufferIsCopied(t *testing.T) {
	const n = 4
	caps := "video/x-raw,format=RGBA,width=160,height=120"
	in := background(t, caps)
	frames := make([]frame, n)
	for i := range frames {
		frames[i] = frame{in, scene, nil}
	}
	log := gsttest.CaptureLog(t, "GST_PERFORMANCE", gst.LevelInfo)
	r := runOverlay(t, chain(""), caps, frames, true)
	want := expect(t, caps, in, model(scene, defaults, 160, 120), "bt601")
	for i := range n {
		want.check(t, fmt.Sprintf("output %d", i), r.out["sink"][i])
		if !bytes.Equal(r.held[i], in) {
			t.Errorf("held frame %d was written to", i)
		}
	}
	if r.stats != (tensoroverlay.Stats{Frames: n, Boxes: n * sceneDrawn, Copies: n}) {
		t.Errorf("stats %+v: want %d frames, %d boxes, %d copies", r.stats, n, n*sceneDrawn, n)
	}
	if got := log.Containing("tensoroverlay: copying"); len(got) != 1 {
		t.Errorf("%d GST_PERFORMANCE messages about the copy, want 1: %q", len(got), got)
	} else {
		t.Logf("GST_PERFORMANCE: %s", got[0])
	}
}

// A tee shares each frame between its branches: the overlay's branch
// copies it (every frame, counted) and draws; the other branch receives
// the frames exactly as they were pushed. Deterministic: the other
// branch's appsink holds every frame until the run is over, so the
// overlay never sees one it alone holds.
func TestTensorOverlayTeeBranchCopies(t *testing.T) {
	const n = 3
	caps := "video/x-raw,format=NV12,width=160,height=120"
	in := background(t, caps)
	frames := make([]frame, n)
	for i := range frames {
		frames[i] = frame{in, scene, nil}
	}
	desc := "appsrc name=src format=time ! tee name=t " +
		"t. ! queue ! tensoroverlay name=ov ! appsink name=sink sync=false wait-on-eos=false " +
		"t. ! queue ! appsink name=raw sync=false wait-on-eos=false"
	r := runOverlay(t, desc, caps, frames, false, "sink", "raw")
	want := expect(t, caps, in, model(scene, defaults, 160, 120), "bt601")
	for i := range n {
		want.check(t, fmt.Sprintf("overlay branch %d", i), r.out["sink"][i])
		if !bytes.Equal(r.out["raw"][i], in) {
			t.Errorf("other branch, frame %d: changed by the overlay", i)
		}
	}
	if r.stats != (tensoroverlay.Stats{Frames: n, Boxes: n * sceneDrawn, Copies: n}) {
		t.Errorf("stats %+v: want %d frames, %d boxes, %d copies", r.stats, n, n*sceneDrawn, n)
	}
}
