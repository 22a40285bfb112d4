package tensordecode_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// channelMapModel writes infertest.ChannelMap on channel c (0 red, 1
// green), w×h, scale 1: the map is 1 where the frame is that colour.
func channelMapModel(t *testing.T, name string, c, w, h int) string {
	t.Helper()
	model := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(model, infertest.ChannelMap{H: h, W: w, Channel: c, Scale: 1}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	return model
}

// A scaler between tensorinfer and tensordecode maps the result: a red
// rectangle at (20,10) 40×30 of a 128×64 frame, letterboxed into a 64×64
// red map, then the video scaled to 64×32, is decoded at (10,5) 20×15 of
// the scaled frame (the meta's transform was scaled with the frame, as
// GStreamer's own region metas are) — never at the unscaled place.
func TestTensorDecodeVideoScaledBetween(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h, frames = 128, 64, 6
	model := channelMapModel(t, "red.onnx", 0, 64, 64)
	desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
		"tensorinfer name=infer output=video resize=letterbox ort-library=%s model=%s ! "+
		"videoscale ! video/x-raw,width=64,height=32 ! tensordecode name=dec mode=map-boxes ! fakesink sync=false",
		w, h, lib, model)
	r := runVideoApp(t, desc, frames, h, func(_ int, b []byte, stride int) { paintRect(b, stride, [4]int{20, 10, 40, 30}, 0) }, nil)
	if len(r.frames) != frames {
		t.Fatalf("%d buffers decoded, want %d", len(r.frames), frames)
	}
	for k, got := range r.frames {
		if len(got) != 1 || !near(got[0], [4]int{10, 5, 20, 15}) {
			t.Errorf("frame %d: regions %s, want one at (10,5) 20×15 of the scaled frame", k, fmtROIs(got))
		}
	}
}

// A crop or a flip between tensorinfer and tensordecode either leaves
// the result where the object is in the new frame or drops it: never a
// box at the old place. (GStreamer 1.22's videocrop and videoflip cannot
// tell a meta how they moved the pixels: the result is dropped, and the
// frame passes without tensors.)
func TestTensorDecodeVideoCropOrFlipBetweenNeverMisplaces(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h, frames = 128, 64, 4
	model := channelMapModel(t, "red.onnx", 0, 64, 64)
	rect := [4]int{20, 10, 40, 30}
	for _, c := range []struct {
		name, between string
		moved         [4]int // where the rectangle is after it
	}{
		{"crop", "videocrop left=16 top=8", [4]int{4, 2, 40, 30}},
		{"flip", "videoflip video-direction=horiz", [4]int{w - 20 - 40, 10, 40, 30}},
	} {
		t.Run(c.name, func(t *testing.T) {
			desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
				"tensorinfer name=infer output=video resize=letterbox ort-library=%s model=%s ! "+
				"%s ! tensordecode name=dec mode=map-boxes ! fakesink sync=false", w, h, lib, model, c.between)
			r := runVideoApp(t, desc, frames, h, func(_ int, b []byte, stride int) { paintRect(b, stride, rect, 0) }, nil)
			if len(r.frames) != frames {
				t.Fatalf("%d buffers decoded, want %d", len(r.frames), frames)
			}
			for k, got := range r.frames {
				for _, g := range got {
					if !near(g, c.moved) {
						t.Errorf("frame %d: region %s after %s; want none or one at %v", k, fmtROIs([]gstglue.ROI{g}), c.between, c.moved)
					}
				}
			}
		})
	}
}

// Two tensorinfer output=video in a row each keep their result: a
// decoder after the second (a green map) decodes the second's — the
// green rectangle — and one told results-from=the first decodes the
// red one, from the same buffers.
func TestTensorDecodeVideoTwoModelsInALine(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h, frames = 128, 64, 4
	red := channelMapModel(t, "red.onnx", 0, 64, 64)
	green := channelMapModel(t, "green.onnx", 1, 64, 64)
	redRect, greenRect := [4]int{20, 10, 40, 30}, [4]int{80, 20, 30, 20}
	paint := func(_ int, b []byte, stride int) {
		paintRect(b, stride, redRect, 0)
		paintRect(b, stride, greenRect, 1)
	}
	for _, c := range []struct {
		name, prop string
		want       [4]int
	}{
		{"latest", "", greenRect},
		{"results-from=first", "results-from=first", redRect},
	} {
		t.Run(c.name, func(t *testing.T) {
			desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
				"tensorinfer name=first output=video resize=letterbox ort-library=%s model=%s ! "+
				"tensorinfer name=infer output=video resize=letterbox ort-library=%s model=%s ! "+
				"tensordecode name=dec mode=map-boxes %s ! fakesink sync=false", w, h, lib, red, lib, green, c.prop)
			r := runVideoApp(t, desc, frames, h, paint, nil)
			if len(r.frames) != frames {
				t.Fatalf("%d buffers decoded, want %d", len(r.frames), frames)
			}
			for k, got := range r.frames {
				if len(got) != 1 || !near(got[0], c.want) {
					t.Errorf("frame %d: regions %s, want one at %v", k, fmtROIs(got), c.want)
				}
			}
		})
	}
}

// A second model on regions, and frames with no region: the frames
// without text in front of a camera. The region-mode tensorinfer leaves
// its empty result on such a frame, so the decoder after it decodes
// nothing there — before, it fell back to the detector's map before it
// and failed the stream ("the model has 64 classes", mode classify on a
// probability map). Frames with the red rectangle get their region's
// classification; the others pass with no region and no error.
func TestTensorDecodeRegionsFramesWithoutRegions(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h, frames = 128, 64, 6
	det := channelMapModel(t, "red.onnx", 0, 64, 64)
	cls := filepath.Join(t.TempDir(), "cls.onnx")
	if err := os.WriteFile(cls, infertest.Means{NCHW: true, H: 16, W: 16, C: 3, Scale: 1, DynamicBatch: true}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
		"tensorinfer name=det output=video resize=letterbox ort-library=%s model=%s ! tensordecode mode=map-boxes ! "+
		"tensorinfer name=infer inference-region=roi-list resize=stretch ort-library=%s model=%s ! "+
		"tensordecode name=dec mode=classify score-threshold=-1 ! identity name=probe ! fakesink sync=false", w, h, lib, det, lib, cls)
	r := runVideoApp(t, desc, frames, h, func(k int, b []byte, stride int) {
		if k%2 == 0 {
			paintRect(b, stride, [4]int{20, 10, 40, 30}, 0)
		}
	}, func(b gstglue.RawBuffer) any { return gstglue.Regions(b) })
	if len(r.probed) != frames {
		t.Fatalf("%d frames decoded, want %d", len(r.probed), frames)
	}
	for k, v := range r.probed {
		regions := v.([]gstglue.Region)
		switch {
		case k%2 == 1 && len(regions) != 0:
			t.Errorf("frame %d (blank): regions %+v, want none", k, regions)
		case k%2 == 0 && (len(regions) != 1 || len(regions[0].Classifications) == 0 || regions[0].Classifications[0].Model != "infer"):
			t.Errorf("frame %d: regions %+v, want the rectangle's with the classifier's classification", k, regions)
		}
	}
	if r.dec.Regions != frames/2 {
		t.Errorf("decoder stats %+v: want %d region results", r.dec, frames/2)
	}
}

// A second model once per object: the detector's boxes tracked
// (tensortrack), the classifier run on each region with
// reclassify-interval=0, its results decoded. The classifier runs once
// per track — and on the regions not yet tracked (a track is confirmed
// at its second detection), every frame they are not — and every
// tracked region of every frame still carries its track's class, the
// decoder writing the standing result on the frames it did not run.
func TestTensorDecodeSecondModelOncePerTrack(t *testing.T) {
	lib := infertest.Lib(t)
	const w, h, frames = 128, 64, 30
	det := channelMapModel(t, "red.onnx", 0, 64, 64)
	cls := filepath.Join(t.TempDir(), "cls.onnx")
	if err := os.WriteFile(cls, infertest.Means{NCHW: true, H: 16, W: 16, C: 3, Scale: 1, DynamicBatch: true}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	desc := fmt.Sprintf("tensorsrc name=src pattern=app ! video/x-raw,format=RGB,width=%d,height=%d,framerate=30/1 ! "+
		"tensorinfer name=det output=video resize=letterbox ort-library=%s model=%s ! tensordecode mode=map-boxes ! tensortrack ! "+
		"tensorinfer name=infer inference-region=roi-list reclassify-interval=0 resize=stretch ort-library=%s model=%s ! "+
		"tensordecode name=dec mode=classify score-threshold=-1 ! identity name=probe ! fakesink sync=false", w, h, lib, det, lib, cls)
	r := runVideoApp(t, desc, frames, h, func(k int, b []byte, stride int) {
		paintRect(b, stride, [4]int{4 + k, 8, 20, 16}, 0)
		paintRect(b, stride, [4]int{90 - k, 36, 24, 20}, 0)
	}, func(b gstglue.RawBuffer) any { return gstglue.Regions(b) })
	if len(r.probed) != frames {
		t.Fatalf("%d frames decoded, want %d", len(r.probed), frames)
	}
	seen := map[uint64]bool{}
	runs, tracked := 0, 0
	for k, v := range r.probed {
		for _, g := range v.([]gstglue.Region) {
			switch {
			case !g.Tracked:
				runs++
			case !seen[g.TrackID]:
				seen[g.TrackID] = true
				runs++
			}
			if g.Tracked {
				tracked++
			}
			if len(g.Classifications) != 1 || g.Classifications[0].Model != "infer" {
				t.Errorf("frame %d region %d (track %d): classifications %+v, want the classifier's", k, g.ID, g.TrackID, g.Classifications)
			}
		}
	}
	if len(seen) != 2 {
		t.Errorf("%d tracks, want the 2 rectangles' (%v)", len(seen), seen)
	}
	if r.infer.Regions != uint64(runs) || r.infer.RegionsReused != uint64(tracked-len(seen)) {
		t.Errorf("classifier stats: regions %d, regions-reused %d; want %d runs (one a track, and the untracked regions), %d reused",
			r.infer.Regions, r.infer.RegionsReused, runs, tracked-len(seen))
	}
	t.Logf("%d tracks, %d runs of the classifier for %d tracked regions", len(seen), r.infer.Regions, tracked)
}
