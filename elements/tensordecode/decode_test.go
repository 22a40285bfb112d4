package tensordecode_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// labelsFile writes a labels file and returns its path.
func labelsFile(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "labels.txt")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// yoloV8 lays out YOLOv8's [1 4+C N] from candidates (cx, cy, w, h, then
// C class scores each).
func yoloV8(c int, cands ...[]float32) []byte {
	n := len(cands)
	v := make([]float32, (4+c)*n)
	for i, a := range cands {
		for k, x := range a {
			v[k*n+i] = x
		}
	}
	return floats(v...)
}

// boxes-yolo on a YOLOv8 output [1 7 8] (dims 8:7:1) of a 640×480 input
// set by the properties: per frame, candidates over the threshold,
// suppressed per class, become regions in input pixels with their labels
// (a blank line in the labels file: a class without one, "class-1").
func TestTensorDecodeYOLO(t *testing.T) {
	labels := labelsFile(t, "cat", "", "fox")
	caps := "other/tensors,format=static,num_tensors=1,dimensions=(string)8:7:1,types=(string)float32,names=(string)output0"
	pad := make([][]float32, 6)
	for i := range pad {
		pad[i] = make([]float32, 7)
	}
	frame1 := yoloV8(3, append([][]float32{
		{320, 240, 100, 80, 0.1, 0.9, 0.2}, // class 1, 0.9: [270,370)×[200,280)
		{322, 242, 100, 80, 0, 0.8, 0},     // class 1 again, IoU 0.93: suppressed
	}, pad...)...)
	frame2 := yoloV8(3, append([][]float32{
		{100, 100, 20, 20, 0.5, 0, 0},     // class 0, 0.5
		{630, 470, 40, 40, 0, 0, 0.75},    // class 2, clipped at 640×480
		{300, 300, 10, 10, 0.2, 0.2, 0.2}, // under 0.25
	}, pad[:5]...)...)
	r := mustRun(t, caps, fmt.Sprintf("tensordecode name=dec mode=boxes-yolo labels=%s input-width=640 input-height=480", labels),
		[][]byte{frame1}, [][]byte{frame2})
	checkROIs(t, "frame 1", r.frames[0], []gstglue.ROI{roi("class-1", 270, 200, 100, 80, "", 1, 0.9)})
	checkROIs(t, "frame 2", r.frames[1], []gstglue.ROI{
		roi("fox", 610, 450, 30, 30, "fox", 2, 0.75), roi("cat", 90, 90, 20, 20, "cat", 0, 0.5),
	})
	if r.stats.Frames != 2 || r.stats.Objects != 3 || r.stats.DecodeNsTotal == 0 {
		t.Errorf("stats %+v, want 2 frames, 3 objects, some time", r.stats)
	}
}

// boxes-ssd with TensorFlow's names, in another order than the roles:
// the tensors are found by their caps names; normalized boxes scale to
// input-width × input-height.
func TestTensorDecodeSSD(t *testing.T) {
	caps := "other/tensors,format=static,num_tensors=4,dimensions=(string)\"4:1,1,4:4:1,4:1\",types=(string)\"float32,float32,float32,float32\"," +
		"names=(string)\"detection_scores,num_detections,detection_boxes,detection_classes\""
	scores := floats(0.9, 0.2, 0.6, 0.95)
	count := floats(3)
	boxes := floats(0.1, 0.2, 0.5, 0.6, 0, 0, 1, 1, 0.25, 0.5, 0.75, 1.25, 0.1, 0.1, 0.2, 0.2)
	classes := floats(1, 0, 2, 1)
	r := mustRun(t, caps, "tensordecode name=dec mode=boxes-ssd score-threshold=0.5 input-width=600 input-height=400",
		[][]byte{scores, count, boxes, classes})
	checkROIs(t, "ssd", r.frames[0], []gstglue.ROI{
		roi("class-1", 120, 40, 240, 160, "", 1, 0.9),
		roi("class-2", 300, 100, 300, 200, "", 2, 0.6),
	})
}

// classify: softmax, top-2, each a whole-frame region of type
// "classification" — the input's size when set, 0×0 when not known.
func TestTensorDecodeClassify(t *testing.T) {
	labels := labelsFile(t, "a", "b", "c", "d")
	caps := "other/tensors,format=static,num_tensors=1,dimensions=(string)4:1,types=(string)float32"
	// Logits whose softmax is exact: e^0, e^ln3 (3), e^0, e^ln4 (4) over 9.
	logits := floats(0, 1.0986123, 0, 1.3862944)
	for _, c := range []struct {
		props string
		w, h  uint
	}{{"", 0, 0}, {" input-width=64 input-height=48", 64, 48}} {
		r := mustRun(t, caps, "tensordecode name=dec mode=classify softmax=true top-k=2 labels="+labels+c.props, [][]byte{logits})
		checkROIs(t, "classify"+c.props, r.frames[0], []gstglue.ROI{
			roi("classification", 0, 0, c.w, c.h, "d", 3, 4.0/9), roi("classification", 0, 0, c.w, c.h, "b", 1, 3.0/9),
		})
	}
}

// map-boxes: a map [1 1 6 10] of a 40×24 input (4 pixels a cell) gives a
// box per region, scaled; without input-width and -height the input is
// taken as the map's size.
func TestTensorDecodeMapBoxes(t *testing.T) {
	caps := "other/tensors,format=static,num_tensors=1,dimensions=(string)10:6:1:1,types=(string)float32"
	m := make([]float32, 60)
	set := func(x0, y0, x1, y1 int, v float32) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				m[y*10+x] = v
			}
		}
	}
	set(1, 1, 3, 3, 0.9)
	set(8, 2, 9, 5, 0.75)
	r := mustRun(t, caps, "tensordecode name=dec mode=map-boxes map-threshold=0.5 input-width=40 input-height=24", [][]byte{floats(m...)})
	checkROIs(t, "scaled", r.frames[0], []gstglue.ROI{
		roi("class-0", 4, 4, 8, 8, "", 0, 0.9), roi("class-0", 32, 8, 4, 12, "", 0, 0.75),
	})
	r = mustRun(t, caps, "tensordecode name=dec mode=map-boxes map-threshold=0.5 unclip-ratio=1.5", [][]byte{floats(m...)})
	// Unclip: 2×2 cells grow by 4×1.5/8 = 0.75 a side ([0.25, 3.75)
	// rounds to [0, 4)), 1×3 cells by 3×1.5/8 = 0.5625 ([7.4375, 9.5625)
	// × [1.4375, 5.5625) rounds to [7, 10) × [1, 6)).
	checkROIs(t, "map size, unclipped", r.frames[0], []gstglue.ROI{
		roi("class-0", 0, 0, 4, 4, "", 0, 0.9), roi("class-0", 7, 1, 3, 5, "", 0, 0.75),
	})
}

// ctc on whole-frame tensors ([1 T C]: a recogniser run on the whole
// frame): one "text" region over the frame with a "classification"
// structure, as a region's text has — the text its label, its
// confidence, model the element's name (tensors mode: no tensorinfer
// says) — and no "detection"; a labels file with a UTF-8 byte-order mark
// gives tokens without it.
func TestTensorDecodeCTCWholeFrame(t *testing.T) {
	dict := filepath.Join(t.TempDir(), "dict.txt")
	if err := os.WriteFile(dict, []byte("\ufeffO\nK\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	caps := "other/tensors,format=static,num_tensors=1,dimensions=(string)3:4:1,types=(string)float32"
	r := mustRun(t, caps, "tensordecode name=dec mode=ctc input-width=100 input-height=32 labels="+dict,
		[][]byte{floats(0.1, 0.8, 0.1, 0.1, 0.8, 0.1, 0.2, 0.7, 0.1, 0.1, 0.1, 0.9)})
	checkTextRegions(t, "ctc", r.regions[0], []gstglue.Region{textRegion(100, 32, "OK", (0.8+0.9)/2, "dec")})
}

// textRegion is the region a whole-frame text makes: type "text", w×h,
// a "classification" structure (class-id -1: none) from model.
func textRegion(w, h uint, text string, conf float64, model string) gstglue.Region {
	return gstglue.Region{ROI: gstglue.ROI{Type: "text", W: w, H: h, ParentID: -1},
		Classifications: []gstglue.Classification{{Label: text, ClassID: -1, Confidence: conf, Model: model}}}
}

// checkTextRegions fails unless got equals want (ids aside; confidences
// within float32's precision).
func checkTextRegions(t *testing.T, what string, got, want []gstglue.Region) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		g, w := got[i], want[i]
		g.ID, w.ID = 0, 0
		ok = g.ROI == w.ROI && len(g.Classifications) == len(w.Classifications)
		for j := 0; ok && j < len(g.Classifications); j++ {
			gc, wc := g.Classifications[j], w.Classifications[j]
			ok = math.Abs(gc.Confidence-wc.Confidence) <= 1e-6
			gc.Confidence, wc.Confidence = 0, 0
			ok = ok && gc == wc
		}
	}
	if !ok {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

// A batch of lines [3 5 8] (a recogniser run on three crops, in tensors
// mode): each line's text is a whole-frame "text" region, in line order —
// Chinese and Latin tokens, the space class — and the line of blanks
// makes none; the stats count the texts.
func TestTensorDecodeCTCBatch(t *testing.T) {
	dict := filepath.Join(t.TempDir(), "dict.txt")
	if err := os.WriteFile(dict, []byte("中\n文\nO\nC\nR\n5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const c, space = 8, 7
	lines := [][][2]float32{
		{{1, 0.9}, {1, 0.5}, {0, 0.9}, {2, 0.7}, {0, 0.8}},
		{{0, 0.9}, {0, 0.9}, {0, 0.9}, {0, 0.9}, {0, 0.9}},
		{{3, 0.6}, {space, 0.8}, {4, 0.7}, {4, 0.9}, {5, 0.5}},
	}
	var v []float32
	for _, line := range lines {
		for _, s := range line {
			for k := range c {
				if k == int(s[0]) {
					v = append(v, s[1])
				} else {
					v = append(v, (1-s[1])/(c-1))
				}
			}
		}
	}
	caps := "other/tensors,format=static,num_tensors=1,dimensions=(string)8:5:3,types=(string)float32,names=(string)softmax_0"
	r := mustRun(t, caps, "tensordecode name=dec mode=ctc score-threshold=0 input-width=320 input-height=48 labels="+dict,
		[][]byte{floats(v...)})
	checkTextRegions(t, "batch", r.regions[0], []gstglue.Region{
		textRegion(320, 48, "中文", (0.9+0.7)/2, "dec"), textRegion(320, 48, "O CR", (0.6+0.8+0.7+0.5)/4, "dec"),
	})
	if r.stats.Objects != 2 {
		t.Errorf("stats %+v, want 2 objects", r.stats)
	}
}
