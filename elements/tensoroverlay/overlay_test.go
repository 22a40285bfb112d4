package tensoroverlay_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
)

// det is a region with a "detection" structure, as a decoder adds it.
func det(x, y, w, h uint, label string, conf float64) gstglue.Region {
	return gstglue.Region{ROI: gstglue.ROI{Type: label, X: x, Y: y, W: w, H: h, ParentID: -1, Detection: true, Label: label, ClassID: 1,
		Confidence: conf}}
}

// tracked is r with a "tracking" structure of id.
func tracked(r gstglue.Region, id uint64) gstglue.Region {
	r.Tracked, r.TrackID, r.TrackAge, r.TrackState = true, id, 3, "tracked"
	return r
}

// classified is r with classifications (a second model's results).
func classified(r gstglue.Region, cs ...gstglue.Classification) gstglue.Region {
	r.Classifications = cs
	return r
}

// scene is a frame's regions that exercise every rule on a 160×120
// frame (font scale 2: labels 18 pixels high, 12 a character):
var scene = []gstglue.Region{
	det(20, 40, 50, 30, "person", 0.87),    // room above: label at y 22, x 20
	det(100, 5, 40, 40, "car", 0.5),        // no room above: label inside the box's top; moved left to end at the edge
	det(140, 100, 50, 50, "dog", 1),        // partly outside right and below: clipped
	det(10, 10, 0, 20, "empty", 0.9),       // zero width: skipped, no label
	det(200, 10, 10, 10, "gone", 0.9),      // entirely outside: skipped
	det(5, 90, 3, 10, "x", 0.1),            // narrower than two lines: filled
	det(30, 100, 20, 15, "café\x01", 0.66), // characters the font lacks: "caf" and two placeholder boxes, "0.66"
	// No label: its type, "bird 0.25".
	{ROI: gstglue.ROI{Type: "bird", X: 60, Y: 80, W: 30, H: 20, ParentID: -1, Detection: true, Confidence: 0.25}},
	// No detection params (facedetect's regions): "face" alone.
	{ROI: gstglue.ROI{Type: "face", X: 110, Y: 60, W: 30, H: 30}},
	// Tracked: "#12 cat 0.70"; a text read in it, and a class without a
	// label, under the box: "OK 0.95", "class-3 0.40".
	classified(tracked(det(70, 20, 24, 12, "cat", 0.7), 12),
		gstglue.Classification{Label: "OK", ClassID: -1, Confidence: 0.95, Model: "rec"},
		gstglue.Classification{ClassID: 3, Confidence: 0.4, Model: "cls"}),
	// Its lines would leave the frame: moved up to end at its bottom.
	classified(det(2, 104, 20, 10, "", 0.5), gstglue.Classification{Label: "京A1", ClassID: -1, Confidence: 0.5}),
}

const sceneDrawn = 9 // regions of scene the element draws

// Every format, at an even size and at an odd one (rows padded, chroma
// rounded up): each frame equals the reference drawing of scene byte for
// byte — the outlines at their exact pixels, the pixels just inside and
// outside them and every byte no layer covers untouched (row padding and
// the x of xRGB included), the label boxes above their boxes with their
// glyphs, clipped at the frame's edges — RGB exactly, YUV within 2 of an
// independent BT.601 conversion with chroma taken at each 2×2 block's
// top-left pixel. Each frame written in place: no copy.
func TestTensorOverlayEveryFormat(t *testing.T) {
	for _, size := range [][2]int{{160, 120}, {161, 121}} {
		for _, format := range tensoroverlay.Formats {
			t.Run(fmt.Sprintf("%s/%dx%d", format, size[0], size[1]), func(t *testing.T) {
				caps := fmt.Sprintf("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1", format, size[0], size[1])
				in := background(t, caps)
				frames := []frame{{in, scene, nil}, {in, scene, nil}, {in, scene, nil}}
				r := runOverlay(t, chain(""), caps, frames, false)
				want := expect(t, caps, in, model(scene, defaults, size[0], size[1]), "bt601")
				for i, out := range r.out["sink"] {
					want.check(t, fmt.Sprintf("frame %d", i), out)
				}
				if s := r.stats; s != (tensoroverlay.Stats{Frames: 3, Boxes: 3 * sceneDrawn}) {
					t.Errorf("stats %+v: want 3 frames, %d boxes, no copy", s, 3*sceneDrawn)
				}
			})
		}
	}
}

// The reference itself, checked by hand at the pixels the element
// documents, so that a mistake shared by the model and the element would
// still show: RGBx 160×120, the first region of scene (20, 40, 50×30),
// line width 2, "person 0.87" at font scale 2 above it.
func TestTensorOverlaySpotPixels(t *testing.T) {
	caps := "video/x-raw,format=RGBx,width=160,height=120"
	in := background(t, caps)
	r := runOverlay(t, chain(""), caps, []frame{{in, scene[:1], nil}}, false)
	out := r.out["sink"][0]
	px := func(x, y int) [4]byte { o := (y*160 + x) * 4; return [4]byte(out[o : o+4]) }
	green, bg, black := [4]byte{0, 255, 0, 0x5A}, [4]byte{0x20, 0x40, 0x60, 0x5A}, [4]byte{0, 0, 0, 0x5A}
	for _, c := range []struct {
		x, y int
		want [4]byte
		what string
	}{
		{20, 40, green, "outline's top-left pixel"},
		{21, 41, green, "second line of the outline"},
		{22, 42, bg, "just inside the outline"},
		{69, 69, green, "outline's bottom-right pixel"},
		{70, 69, bg, "just right of the box"},
		{69, 70, bg, "just below the box"},
		{19, 50, bg, "just left of the box"},
		{45, 41, green, "top edge, middle"},
		{67, 55, bg, "just inside the right edge"},
		{20, 22, green, "label box's top-left (y 40-18)"},
		{20, 39, green, "label box's bottom row, touching the outline"},
		{19, 30, bg, "left of the label box"},
		{20 + 11*12 + 2 - 1, 22, green, "label box's last column (11 characters: 134 wide)"},
		{20 + 11*12 + 2, 22, bg, "right of the label box"},
		{20, 21, bg, "above the label box"},
		// 'p' row 2 is "####.": its first pixel at (x+s, y+s+2s).
		{22, 28, black, "first pixel of 'p', row 2"},
		{22, 24, green, "'p' row 0 is empty"},
	} {
		if got := px(c.x, c.y); got != c.want {
			t.Errorf("(%d, %d) %s: %v, want %v", c.x, c.y, c.what, got, c.want)
		}
	}
}

// A frame without regions leaves the element as it came, byte for byte,
// and costs no copy even when it is not writable; so does a frame whose
// regions are all empty or outside.
func TestTensorOverlayNoRegionUntouched(t *testing.T) {
	caps := "video/x-raw,format=I420,width=64,height=48"
	in := background(t, caps)
	for i := range in {
		in[i] = byte(i * 7)
	}
	off := []gstglue.Region{det(10, 10, 0, 5, "a", 1), det(64, 0, 5, 5, "b", 1), det(0, 48, 5, 5, "c", 1)}
	for _, hold := range []bool{false, true} {
		r := runOverlay(t, chain(""), caps, []frame{{in, nil, nil}, {in, off, nil}}, hold)
		for i, out := range r.out["sink"] {
			if !bytes.Equal(out, in) {
				t.Errorf("hold %v, frame %d changed", hold, i)
			}
		}
		if r.stats != (tensoroverlay.Stats{Frames: 2}) {
			t.Errorf("hold %v: stats %+v, want 2 frames and nothing else", hold, r.stats)
		}
	}
}

// The properties change the drawing: a thicker line, font scale 1, a
// half-transparent dark colour (blended over the frame, white text; in
// the alpha formats the alpha is composed over), no labels; each on the
// same scene, against the reference. YUV caps convert with their
// colorimetry's matrix and range: BT.709, full-range BT.601.
func TestTensorOverlayProperties(t *testing.T) {
	for _, c := range []struct {
		name, format, colorimetry string
		p                         params
	}{
		{"thick", "RGB", "", params{lineWidth: 5, fontScale: 2, color: 0xFF0000FF, drawLabels: true}},
		{"scale-1", "BGRA", "", params{lineWidth: 1, fontScale: 1, color: 0xFFFFFF00, drawLabels: true}},
		{"scale-3", "NV12", "", params{lineWidth: 2, fontScale: 3, color: 0xFF00FF00, drawLabels: true}},
		{"blend", "ARGB", "", params{lineWidth: 3, fontScale: 2, color: 0x80400000, drawLabels: true}},
		{"blend-yuv", "I420", "", params{lineWidth: 3, fontScale: 2, color: 0x80FF8000, drawLabels: true}},
		{"no-labels", "xBGR", "", params{lineWidth: 2, fontScale: 2, color: tensoroverlay.DefaultColor, drawLabels: false}},
		{"bt709", "NV12", "bt709", defaults},
		// Full range, BT.601 matrix (range:matrix:transfer:primaries).
		{"full-range", "I420", "1:4:0:0", params{lineWidth: 2, fontScale: 2, color: 0xFFFF8000, drawLabels: true}},
		{"transparent", "RGBA", "", params{lineWidth: 2, fontScale: 2, color: 0x00FF0000, drawLabels: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			caps := "video/x-raw,format=" + c.format + ",width=160,height=120"
			matrix := "bt601"
			if c.colorimetry != "" {
				caps += ",colorimetry=(string)" + c.colorimetry
				matrix = c.colorimetry
				if matrix == "1:4:0:0" {
					matrix = "jpeg"
				}
			}
			in := background(t, caps)
			r := runOverlay(t, chain(c.p.props()), caps, []frame{{in, scene, nil}}, false)
			expect(t, caps, in, model(scene, c.p, 160, 120), matrix).check(t, c.name, r.out["sink"][0])
		})
	}
}

// A frame whose GstVideoMeta gives rows longer than the caps' and planes
// apart from each other (as a pool with padding makes them) is drawn at
// the meta's offsets and strides: equal to the reference in that layout,
// the gaps before, between and after the planes untouched.
func TestTensorOverlayVideoMetaLayout(t *testing.T) {
	const w, h = 160, 120
	for _, format := range []string{"RGB", "xBGR", "NV12", "I420"} {
		t.Run(format, func(t *testing.T) {
			caps := fmt.Sprintf("video/x-raw,format=%s,width=%d,height=%d", format, w, h)
			def, _ := layoutOf(t, caps)
			l := gstglue.VideoMeta{Format: format, Width: w, Height: h, NPlanes: def.NPlanes}
			off := 96 // a header before the first plane
			for i := range def.NPlanes {
				rows := h
				if i > 0 {
					rows = (h + 1) / 2
				}
				stride := def.Strides[i] + 40
				l.Offsets, l.Strides = append(l.Offsets, off), append(l.Strides, stride)
				off += rows*stride + 24 // a gap after each plane
			}
			meta, err := gstglue.PrepareVideoMeta(format, w, h, l.Strides, l.Offsets)
			if err != nil {
				t.Fatal(err)
			}
			in := backgroundIn(l, off)
			r := runOverlay(t, chain(""), caps, []frame{{in, scene, meta}}, false)
			expectIn(t, l, in, model(scene, defaults, w, h), "bt601").check(t, format, r.out["sink"][0])
		})
	}
}
