package decode_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// nmsCase decodes v8 anchors of one class each in a 1000×1000 input.
func nmsDecode(t *testing.T, iou float64, maxDet int, as []anchor) []decode.Object {
	t.Helper()
	d := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, YOLOLayout: decode.YOLOv8, ScoreThreshold: 0.1, IoUThreshold: iou, MaxDetections: maxDet})
	return decodeOK(t, d, decode.Identity(1000, 1000), yoloV8(2, as))
}

// Same class overlapping: the better box suppresses the other; another
// class at the same place is kept.
func TestNMSClassWise(t *testing.T) {
	a := anchor{cx: 50, cy: 50, w: 100, h: 100, cls: []float32{0.9, 0}}
	// [10,110)²: IoU 90² / (2×100² − 90²) = 0.68.
	b := anchor{cx: 60, cy: 60, w: 100, h: 100, cls: []float32{0.8, 0}}
	bOther := anchor{cx: 60, cy: 60, w: 100, h: 100, cls: []float32{0, 0.8}}
	checkObjects(t, "same class", nmsDecode(t, 0.5, 0, []anchor{b, a}), []decode.Object{obj(0, 0, 100, 100, 0, "", 0.9)})
	checkObjects(t, "other class", nmsDecode(t, 0.5, 0, []anchor{bOther, a}),
		[]decode.Object{obj(0, 0, 100, 100, 0, "", 0.9), obj(10, 10, 100, 100, 1, "", 0.8)})
}

// An IoU equal to the threshold is kept, one just over it suppressed:
// [0,100)² and [0,100)×[0,50) overlap by exactly half (exact in floats).
func TestNMSAtThreshold(t *testing.T) {
	a := anchor{cx: 50, cy: 50, w: 100, h: 100, cls: []float32{0.9, 0}}
	half := anchor{cx: 50, cy: 25, w: 100, h: 50, cls: []float32{0.8, 0}}
	both := []decode.Object{obj(0, 0, 100, 100, 0, "", 0.9), obj(0, 0, 100, 50, 0, "", 0.8)}
	checkObjects(t, "IoU 0.5 at 0.5", nmsDecode(t, 0.5, 0, []anchor{a, half}), both)
	checkObjects(t, "IoU 0.5 at 0.4999", nmsDecode(t, 0.4999, 0, []anchor{a, half}), both[:1])
	checkObjects(t, "IoU 0.5 at 1", nmsDecode(t, 1, 0, []anchor{a, half}), both)
}

// Greedy order: A suppresses B; C overlaps B but not A enough, so C is
// kept (a suppressed box suppresses nothing). Max-detections keeps the
// best.
func TestNMSGreedyChain(t *testing.T) {
	a := anchor{cx: 50, cy: 50, w: 100, h: 100, cls: []float32{0.9, 0}}  // [0,100)
	b := anchor{cx: 90, cy: 50, w: 100, h: 100, cls: []float32{0.8, 0}}  // [40,140): IoU(A,B) = 60/140
	c := anchor{cx: 150, cy: 50, w: 100, h: 100, cls: []float32{0.7, 0}} // [100,200): IoU(B,C) = 40/160, IoU(A,C) = 0
	checkObjects(t, "chain at 0.3", nmsDecode(t, 0.3, 0, []anchor{c, b, a}),
		[]decode.Object{obj(0, 0, 100, 100, 0, "", 0.9), obj(100, 0, 100, 100, 0, "", 0.7)})
	checkObjects(t, "chain at 0.2", nmsDecode(t, 0.2, 0, []anchor{c, b, a}),
		[]decode.Object{obj(0, 0, 100, 100, 0, "", 0.9), obj(100, 0, 100, 100, 0, "", 0.7)})
	checkObjects(t, "chain at 0.5", nmsDecode(t, 0.5, 0, []anchor{c, b, a}),
		[]decode.Object{obj(0, 0, 100, 100, 0, "", 0.9), obj(40, 0, 100, 100, 0, "", 0.8), obj(100, 0, 100, 100, 0, "", 0.7)})
	checkObjects(t, "max 2", nmsDecode(t, 0.5, 2, []anchor{c, b, a}),
		[]decode.Object{obj(0, 0, 100, 100, 0, "", 0.9), obj(40, 0, 100, 100, 0, "", 0.8)})
}

// refBox is a box of the reference NMS.
type refBox struct {
	x0, y0, x1, y1, score float64
	class, index          int
}

// referenceNMS is class-wise NMS written the textbook way, differently
// from the decoder: per class, boxes sorted by score, and each box that
// survives suppresses every later one overlapping it more than thr; the
// survivors of every class merged best first and cut at maxDet.
func referenceNMS(boxes []refBox, thr float64, maxDet int) []refBox {
	byClass := map[int][]refBox{}
	for _, b := range boxes {
		byClass[b.class] = append(byClass[b.class], b)
	}
	better := func(a, b refBox) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return a.index - b.index
	}
	var out []refBox
	for _, bs := range byClass {
		slices.SortFunc(bs, better)
		dead := make([]bool, len(bs))
		for i := range bs {
			if dead[i] {
				continue
			}
			out = append(out, bs[i])
			for j := i + 1; j < len(bs); j++ {
				a, b := bs[i], bs[j]
				iw := min(a.x1, b.x1) - max(a.x0, b.x0)
				ih := min(a.y1, b.y1) - max(a.y0, b.y0)
				if iw <= 0 || ih <= 0 {
					continue
				}
				inter := iw * ih
				if inter/((a.x1-a.x0)*(a.y1-a.y0)+(b.x1-b.x0)*(b.y1-b.y0)-inter) > thr {
					dead[j] = true
				}
			}
		}
	}
	slices.SortFunc(out, better)
	if maxDet > 0 && len(out) > maxDet {
		out = out[:maxDet]
	}
	return out
}

// Random scenes of clustered boxes in three classes: the decoder keeps
// what the reference keeps, in the same order (boxes lie inside the
// input, so clipping changes nothing).
func TestNMSMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for scene := range 200 {
		n := 1 + rng.IntN(60)
		as := make([]anchor, n)
		var boxes []refBox
		for i := range as {
			// Around one of a few centres, so boxes overlap.
			cx := float32(100+200*rng.IntN(3)) + float32(rng.IntN(40))
			cy := float32(100+200*rng.IntN(3)) + float32(rng.IntN(40))
			w, h := float32(20+rng.IntN(80)), float32(20+rng.IntN(80))
			cls := []float32{0, 0, 0}
			k := rng.IntN(3)
			cls[k] = float32(rng.IntN(1000)) / 1000
			as[i] = anchor{cx: cx, cy: cy, w: w, h: h, cls: cls}
			if float64(cls[k]) > 0.1 {
				boxes = append(boxes, refBox{float64(cx - w/2), float64(cy - h/2), float64(cx + w/2), float64(cy + h/2), float64(cls[k]), k, i})
			}
		}
		iou := []float64{0.3, 0.45, 0.7}[scene%3]
		maxDet := []int{0, 5, 100}[scene%3]
		d := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, YOLOLayout: decode.YOLOv8, ScoreThreshold: 0.1, IoUThreshold: iou, MaxDetections: maxDet})
		got := decodeOK(t, d, decode.Identity(1000, 1000), yoloV8(3, as))
		var want []decode.Object
		for _, b := range referenceNMS(boxes, iou, maxDet) {
			want = append(want, obj(b.x0, b.y0, b.x1-b.x0, b.y1-b.y0, b.class, "", b.score))
		}
		checkObjects(t, "random scene", got, want)
		if t.Failed() {
			t.Fatalf("scene %d (iou %v, max %d)", scene, iou, maxDet)
		}
	}
}
