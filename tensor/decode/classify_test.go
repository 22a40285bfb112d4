package decode_test

import (
	"math"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// Softmax of logits, top 3 of 5: probabilities as computed here in
// float64, best first, a tie in the lower class first, each a
// whole-frame object with its label (class 4 has none: past the file).
func TestClassifySoftmaxTopK(t *testing.T) {
	logits := []float32{1, 3, 2, 3, -1}
	var sum float64
	for _, l := range logits {
		sum += math.Exp(float64(l))
	}
	p := func(i int) float64 { return math.Exp(float64(logits[i])) / sum }
	d := newDecoder(t, decode.Config{Mode: decode.Classify, Softmax: true, TopK: 3, ScoreThreshold: 0,
		Labels: []string{"cat", "dog", "", "fox"}})
	got := decodeOK(t, d, decode.Identity(64, 48), f32("logits", []int{1, 5}, logits))
	checkObjects(t, "softmax top-3", got, []decode.Object{
		obj(0, 0, 64, 48, 1, "dog", p(1)), obj(0, 0, 64, 48, 3, "fox", p(3)), obj(0, 0, 64, 48, 2, "", p(2)),
	})
}

// Raw scores: only those over the threshold (one equal to it is not),
// every class with top-k 0, in [N] and [1 N 1 1] alike; max-detections
// caps; no frame size gives a 0×0 box.
func TestClassifyThresholdAndShapes(t *testing.T) {
	scores := []float32{0.5, 0.75, 0.25, 0.875}
	for _, shape := range [][]int{{4}, {1, 4}, {1, 4, 1, 1}} {
		d := newDecoder(t, decode.Config{Mode: decode.Classify, ScoreThreshold: 0.5})
		got := decodeOK(t, d, decode.Identity(10, 20), f32("s", shape, scores))
		checkObjects(t, "threshold 0.5", got, []decode.Object{obj(0, 0, 10, 20, 3, "", 0.875), obj(0, 0, 10, 20, 1, "", 0.75)})
	}
	d := newDecoder(t, decode.Config{Mode: decode.Classify, ScoreThreshold: -1, MaxDetections: 2})
	got := decodeOK(t, d, decode.Transform{}, f32("s", []int{4}, scores))
	checkObjects(t, "max-detections 2, no frame", got, []decode.Object{obj(0, 0, 0, 0, 3, "", 0.875), obj(0, 0, 0, 0, 1, "", 0.75)})
}

// Quantized uint8 scores are dequantized ((q − zero) × scale) before the
// threshold.
func TestClassifyQuantized(t *testing.T) {
	q := decode.Tensor{Name: "q", DType: tensor.U8, Shape: []int{1, 3}, Data: []byte{10, 200, 138}, Scale: 1.0 / 256, ZeroPoint: 10}
	d := newDecoder(t, decode.Config{Mode: decode.Classify, ScoreThreshold: 0.25, TopK: 5})
	got := decodeOK(t, d, decode.Identity(8, 8), q)
	checkObjects(t, "uint8", got, []decode.Object{obj(0, 0, 8, 8, 1, "", 190.0/256), obj(0, 0, 8, 8, 2, "", 0.5)})
}

// A classifier's layout is one tensor with one dimension that is not 1;
// anything else is an error quoting the tensors.
func TestClassifyBadLayouts(t *testing.T) {
	d := newDecoder(t, decode.Config{Mode: decode.Classify})
	_, err := d.Decode([]decode.Tensor{f32("scores", []int{2, 5}, make([]float32, 10))}, decode.Identity(1, 1))
	layoutError(t, "[2 5]", err, `"scores" float32 [2 5]`, "classify")
	err = d.Check([]decode.Tensor{f32("a", []int{1, 5}, nil), f32("b", []int{1, 5}, nil)})
	layoutError(t, "two tensors", err, `"a" float32 [1 5]`, `"b" float32 [1 5]`, "got 2")
}
