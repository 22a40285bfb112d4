package decode_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// anchor is one YOLO candidate: centre, size, objectness (v5 only) and
// class scores.
type anchor struct {
	cx, cy, w, h, obj float32
	cls               []float32
}

// yoloV8 lays anchors out as YOLOv8 does: [1 4+C N], a row per attribute.
func yoloV8(c int, as []anchor) decode.Tensor {
	n := len(as)
	v := make([]float32, (4+c)*n)
	for i, a := range as {
		v[i], v[n+i], v[2*n+i], v[3*n+i] = a.cx, a.cy, a.w, a.h
		for k, s := range a.cls {
			v[(4+k)*n+i] = s
		}
	}
	return f32("output0", []int{1, 4 + c, n}, v)
}

// yoloV5 lays anchors out as YOLOv5 does: [1 N 5+C], a row per anchor.
func yoloV5(c int, as []anchor) decode.Tensor {
	v := make([]float32, 0, (5+c)*len(as))
	for _, a := range as {
		v = append(v, a.cx, a.cy, a.w, a.h, a.obj)
		v = append(v, a.cls...)
		v = append(v, make([]float32, c-len(a.cls))...)
	}
	return f32("output0", []int{1, len(as), 5 + c}, v)
}

// yoloScene: five candidates of three classes in a 640×480 input: one
// under the threshold, one the same box and class as a better one
// (suppressed), one overlapping it in another class (kept).
var yoloScene = []anchor{
	{cx: 320, cy: 240, w: 100, h: 80, obj: 1, cls: []float32{0.1, 0.9, 0.2}},
	{cx: 100, cy: 100, w: 20, h: 20, obj: 1, cls: []float32{0.3, 0.1, 0.1}},
	{cx: 500, cy: 400, w: 50, h: 50, obj: 1, cls: []float32{0.2, 0.2, 0.2}},
	{cx: 320, cy: 240, w: 100, h: 80, obj: 1, cls: []float32{0, 0.8, 0}},
	{cx: 330, cy: 250, w: 100, h: 80, obj: 1, cls: []float32{0, 0, 0.7}},
}

// What yoloScene decodes to with the identity: corners are centre ∓ size/2.
var yoloSceneWant = []decode.Object{
	obj(270, 200, 100, 80, 1, "b", 0.9),
	obj(280, 210, 100, 80, 2, "c", 0.7),
	obj(90, 90, 20, 20, 0, "a", 0.3),
}

func yoloConfig() decode.Config {
	return decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.45, Labels: []string{"a", "b", "c"}}
}

// The same scene in both layouts, told apart by the shape, decodes to the
// same objects; in v5 the score is objectness × class score, and a row
// whose objectness is under the threshold is skipped whatever its class
// scores.
func TestYOLOLayouts(t *testing.T) {
	tr := decode.Identity(640, 480)
	checkObjects(t, "v8", decodeOK(t, newDecoder(t, yoloConfig()), tr, yoloV8(3, yoloScene)), yoloSceneWant)
	checkObjects(t, "v5", decodeOK(t, newDecoder(t, yoloConfig()), tr, yoloV5(3, yoloScene)), yoloSceneWant)

	v5 := append([]anchor{
		{cx: 10, cy: 10, w: 4, h: 4, obj: 0.2, cls: []float32{0.99}},      // objectness under 0.25
		{cx: 20, cy: 20, w: 4, h: 4, obj: 0.5, cls: []float32{0, 0, 0.4}}, // 0.5 × 0.4 = 0.2
		{cx: 30, cy: 30, w: 4, h: 4, obj: 0.5, cls: []float32{0, 0.75}},   // 0.375
	}, yoloScene...)
	want := append(append([]decode.Object(nil), yoloSceneWant[:2]...), obj(28, 28, 4, 4, 1, "b", 0.375), yoloSceneWant[2])
	checkObjects(t, "v5 objectness", decodeOK(t, newDecoder(t, yoloConfig()), tr, yoloV5(3, v5)), want)
}

// Auto-detection: YOLOv8's [1 84 8400] and YOLOv5's [1 25200 85] (both a
// 640×640 input, which InputSize reads from the count); in a shape both
// layouts fit, the labels' count settles it, else the smaller middle
// dimension means v8; yolo-layout forces either.
func TestYOLOLayoutDetection(t *testing.T) {
	for _, shape := range [][]int{{1, 84, 8400}, {1, 25200, 85}, {1, 1, 84, 8400}} {
		w, h, ok := decode.InputSize(decode.Config{Mode: decode.BoxesYOLO}, []decode.Tensor{{Name: "o", DType: 10, Shape: shape}})
		if !ok || w != 640 || h != 640 {
			t.Errorf("InputSize of %v: %d×%d %v, want 640×640", shape, w, h, ok)
		}
	}
	if _, _, ok := decode.InputSize(decode.Config{Mode: decode.BoxesYOLO}, []decode.Tensor{{Name: "o", DType: 10, Shape: []int{1, 84, 8000}}}); ok {
		t.Error("InputSize of [1 84 8000]: no square input has 8000 candidates")
	}

	// [1 9 8]: v8 with 5 classes and 8 candidates, or v5 with 3 classes
	// and 9 rows. One v8 candidate of class 4.
	scene := make([]anchor, 8)
	scene[6] = anchor{cx: 40, cy: 40, w: 10, h: 10, cls: []float32{0, 0, 0, 0, 0.8}}
	in := yoloV8(5, scene)
	want := []decode.Object{obj(35, 35, 10, 10, 4, "e", 0.8)}
	five := []string{"a", "b", "c", "d", "e"}
	tr := decode.Identity(64, 64)
	checkObjects(t, "five labels", decodeOK(t, newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, Labels: five}), tr, in), want)
	checkObjects(t, "forced v8", decodeOK(t, newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, YOLOLayout: decode.YOLOv8}), tr, in),
		[]decode.Object{obj(35, 35, 10, 10, 4, "", 0.8)})
	// Read as v5 (9 ≥ 8: rows of 8), the same bytes are other boxes.
	got := decodeOK(t, newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25}), tr, in)
	if len(got) == 1 && sameObject(got[0], want[0]) {
		t.Errorf("no labels, [1 9 8]: decoded as v8 %s, want v5", fmtObjects(got))
	}
}

// A letterboxed 1280×720 frame in a 640×640 input (scale 1/2, 140 rows
// of padding above and below): a box maps back to twice its size, 140
// rows up; one in the padding is dropped; one across the frame's edge is
// clipped. Normalized coordinates (÷640) give the same objects.
func TestYOLOLetterbox(t *testing.T) {
	tr := decode.Letterbox(1280, 720, 640, 640)
	if tr.ScaleX != 0.5 || tr.ScaleY != 0.5 || tr.OffsetX != 0 || tr.OffsetY != 140 {
		t.Fatalf("Letterbox(1280, 720, 640, 640) = %+v", tr)
	}
	scene := []anchor{
		{cx: 320, cy: 320, w: 100, h: 50, cls: []float32{0.9}},
		{cx: 320, cy: 60, w: 100, h: 50, cls: []float32{0.8}},  // rows 35..85: padding
		{cx: 620, cy: 160, w: 60, h: 60, cls: []float32{0.7}},  // x 590..650, y 130..190
		{cx: 100, cy: 480, w: 40, h: 20, cls: []float32{0.6}},  // fully inside
		{cx: 320, cy: 320, w: 100, h: 50, cls: []float32{0.1}}, // under the threshold
	}
	want := []decode.Object{
		obj((320-50)*2, (320-25-140)*2, 200, 100, 0, "", 0.9),
		obj(590*2, 0, 1280-590*2, (190-140)*2, 0, "", 0.7),
		obj(80*2, (470-140)*2, 80, 40, 0, "", 0.6),
	}
	cfg := decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.5}
	checkObjects(t, "pixels", decodeOK(t, newDecoder(t, cfg), tr, yoloV8(1, scene)), want)
	norm := make([]anchor, len(scene))
	for i, a := range scene {
		norm[i] = anchor{cx: a.cx / 640, cy: a.cy / 640, w: a.w / 640, h: a.h / 640, cls: a.cls}
	}
	checkObjects(t, "normalized", decodeOK(t, newDecoder(t, cfg), tr, yoloV8(1, norm)), want)
	cfg.YOLOCoords = decode.CoordsPixels
	if got := decodeOK(t, newDecoder(t, cfg), tr, yoloV8(1, norm)); len(got) != 0 {
		// In pixels the boxes are under a pixel, all in the padding.
		t.Errorf("normalized read as pixels: %s, want nothing", fmtObjects(got))
	}
}

// Layouts boxes-yolo does not read are errors naming the dims.
func TestYOLOBadLayouts(t *testing.T) {
	d := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO})
	layoutError(t, "rank 2 of 84", d.Check([]decode.Tensor{f32("output0", []int{1, 84}, nil)}), `"output0" float32 [1 84]`, "[1 4+C N]")
	layoutError(t, "no batch", d.Check([]decode.Tensor{f32("o", []int{84, 8400}, nil)}), "[84 8400]")
	layoutError(t, "rank 4", d.Check([]decode.Tensor{f32("o", []int{1, 2, 84, 8400}, nil)}), "[1 2 84 8400]")
	layoutError(t, "4×5", d.Check([]decode.Tensor{f32("o", []int{1, 4, 5}, nil)}), "[1 4 5]")
	layoutError(t, "two", d.Check([]decode.Tensor{f32("a", []int{1, 84, 10}, nil), f32("b", []int{1, 84, 10}, nil)}), "got 2 tensors")
	v8 := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, YOLOLayout: decode.YOLOv8})
	layoutError(t, "forced v8", v8.Check([]decode.Tensor{f32("o", []int{1, 4, 100}, nil)}), "yolo-layout v8", "[1 4 100]")
	v5 := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, YOLOLayout: decode.YOLOv5})
	layoutError(t, "forced v5", v5.Check([]decode.Tensor{f32("o", []int{1, 100, 5}, nil)}), "yolo-layout v5", "[1 100 5]")
	_, err := d.Decode([]decode.Tensor{f32("o", []int{1, 84, 10}, make([]float32, 839))}, decode.Identity(1, 1))
	if err == nil || !contains(err.Error(), "3356 bytes, want 3360") {
		t.Errorf("short data: %v", err)
	}
}

// YOLOv8's scores are scanned eight at a time on their bits: with
// scores of every sign, NaNs, infinities and values equal to the
// threshold, at candidate counts that leave a tail, every candidate gets
// the class a plain argmax gives (strictly over the threshold, the lower
// class on ties), for thresholds above, at and below zero. IoU threshold
// 1 suppresses nothing, and the boxes tell the candidates apart.
func TestYOLOv8ScoresExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 0.25, 1}
	for _, n := range []int{1, 7, 8, 9, 61} {
		for _, thr := range []float64{0.25, 0, math.Copysign(0, -1), -0.5} {
			const c = 5
			as := make([]anchor, n)
			for i := range as {
				cls := make([]float32, c)
				for k := range cls {
					if rng.IntN(4) == 0 {
						cls[k] = specials[rng.IntN(len(specials))]
					} else {
						cls[k] = rng.Float32()*2 - 1
					}
				}
				as[i] = anchor{cx: float32(10*i + 5), cy: 5, w: 4, h: 4, cls: cls}
			}
			var want []decode.Object
			for i, a := range as {
				best, k := float32(0), -1
				for j, s := range a.cls {
					if float64(s) > thr && (k < 0 || s > best) {
						best, k = s, j
					}
				}
				if k >= 0 && !math.IsInf(float64(best), 1) {
					want = append(want, obj(float64(10*i+3), 3, 4, 4, k, "", float64(best)))
				}
			}
			slices.SortStableFunc(want, func(a, b decode.Object) int { return cmp.Compare(b.Confidence, a.Confidence) })
			d := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, YOLOLayout: decode.YOLOv8, ScoreThreshold: thr, IoUThreshold: 1})
			got := decodeOK(t, d, decode.Identity(10*n, 10), yoloV8(c, as))
			// An infinite score is no number to compare: left out of
			// want, and of got.
			got = slices.DeleteFunc(got, func(o decode.Object) bool { return math.IsInf(o.Confidence, 1) })
			checkObjects(t, fmt.Sprintf("%d candidates, threshold %v", n, thr), got, want)
		}
	}
}
