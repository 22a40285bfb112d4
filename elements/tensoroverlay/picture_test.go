package tensoroverlay_test

import (
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

var pngOut = flag.String("overlay-png", "", "write TestTensorOverlayPicture's output frame as a PNG to this file "+
	"(the repository's docs/overlay.png: go test -run Picture ./elements/tensoroverlay -args -overlay-png ../../docs/overlay.png)")

// smpte returns the first frame of videotestsrc pattern=smpte in caps.
func smpte(t *testing.T, caps string) []byte {
	t.Helper()
	p, err := gst.NewPipelineFromString("videotestsrc num-buffers=1 pattern=smpte ! " + caps + " ! appsink name=ref")
	if err != nil {
		t.Fatal(err)
	}
	// KeepAlive: see runOverlay.
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	el, _ := p.GetElementByName("ref")
	sink := app.SinkFromElement(el)
	p.SetState(gst.StatePlaying)
	s := sink.TryPullSample(gst.ClockTime(20 * time.Second))
	if s == nil {
		t.Fatal("no frame from videotestsrc")
	}
	defer func() { runtime.SetFinalizer(s, nil); s.Unref() }()
	b := s.GetBuffer()
	defer gstglue.UnrefBuffer(b)
	out := make([]byte, b.GetSize())
	gstglue.ExtractBuffer(gstglue.BorrowBuffer(b), out)
	return out
}

// A real frame — videotestsrc's SMPTE bars, 640×360 RGBx — with three
// regions: one with room for its label above it, one whose label would
// cross the right edge, one partly outside the frame with no room above
// (its label inside its top). The output equals the reference drawn over
// that frame; with -overlay-png it is also written as a PNG (the
// picture in docs/overlay.png).
func TestTensorOverlayPicture(t *testing.T) {
	const w, h = 640, 360
	caps := "video/x-raw,format=RGBx,width=640,height=360,framerate=30/1"
	in := smpte(t, caps)
	rois := []gstglue.Region{
		det(60, 90, 170, 230, "person", 0.91),
		det(330, 150, 230, 120, "car", 0.78),
		det(560, 8, 140, 110, "dog", 0.64),
	}
	r := runOverlay(t, chain(""), caps, []frame{{in, rois, nil}}, false)
	out := r.out["sink"][0]
	expect(t, caps, in, model(rois, defaults, w, h), "bt601").check(t, "smpte", out)
	if *pngOut == "" {
		return
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			p := out[(y*w+x)*4:]
			img.SetNRGBA(x, y, color.NRGBA{p[0], p[1], p[2], 255})
		}
	}
	f, err := os.Create(*pngOut)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", *pngOut)
}
