package decode_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// ssdOutputs are four detections: box i (ymin, xmin, ymax, xmax,
// normalized), class and score; the count says 3, so the fourth, the
// best, is not one.
var (
	ssdBoxes = []float32{
		0.1, 0.2, 0.5, 0.6,
		0.0, 0.0, 1.0, 1.0,
		0.25, 0.5, 0.75, 1.25, // past the right edge: clipped
		0.1, 0.1, 0.2, 0.2,
	}
	ssdClasses = []float32{1, 0, 2, 1}
	ssdScores  = []float32{0.9, 0.2, 0.6, 0.95}
)

// A frame of 600×400 stretched into a 300×300 input: the boxes are
// normalized to the input, so in the frame they are the fractions of
// 600 and 400 — computed here from the numbers above. Named outputs in
// any order are found by name (TensorFlow's detection_* names).
func TestSSDByName(t *testing.T) {
	d := newDecoder(t, decode.Config{Mode: decode.BoxesSSD, ScoreThreshold: 0.5, Labels: []string{"bg", "person", "car"}})
	tr := decode.Stretch(600, 400, 300, 300)
	got := decodeOK(t, d, tr,
		f32("detection_scores", []int{1, 4}, ssdScores),
		f32("num_detections", []int{1}, []float32{3}),
		f32("detection_boxes", []int{1, 4, 4}, ssdBoxes),
		f32("detection_classes", []int{1, 4}, ssdClasses))
	want := []decode.Object{
		obj(0.2*600, 0.1*400, 0.4*600, 0.4*400, 1, "person", 0.9),
		obj(0.5*600, 0.25*400, 600-0.5*600, 0.5*400, 2, "car", 0.6),
	}
	checkObjects(t, "by name", got, want)

	// The same in TFLite's order with names that say nothing.
	d2 := newDecoder(t, decode.Config{Mode: decode.BoxesSSD, ScoreThreshold: 0.5, Labels: []string{"bg", "person", "car"}})
	got = decodeOK(t, d2, tr,
		f32("TFLite_Detection_PostProcess", []int{1, 4, 4}, ssdBoxes),
		f32("TFLite_Detection_PostProcess:1", []int{1, 4}, ssdClasses),
		f32("TFLite_Detection_PostProcess:2", []int{1, 4}, ssdScores),
		f32("TFLite_Detection_PostProcess:3", []int{1}, []float32{3}))
	checkObjects(t, "by order", got, want)

	// No count: every detection; max-detections keeps the best two.
	d3 := newDecoder(t, decode.Config{Mode: decode.BoxesSSD, ScoreThreshold: 0.5, MaxDetections: 2})
	got = decodeOK(t, d3, tr, f32("boxes", []int{4, 4}, ssdBoxes), f32("classes", []int{4}, ssdClasses), f32("scores", []int{4}, ssdScores))
	checkObjects(t, "no count", got, []decode.Object{obj(0.1*600, 0.1*400, 0.1*600, 0.1*400, 1, "", 0.95),
		obj(0.2*600, 0.1*400, 0.4*600, 0.4*400, 1, "", 0.9)})
}

// Layouts boxes-ssd does not read are errors naming the tensors' dims.
func TestSSDBadLayouts(t *testing.T) {
	d := newDecoder(t, decode.Config{Mode: decode.BoxesSSD})
	for _, c := range []struct {
		what string
		ts   []decode.Tensor
		want []string
	}{
		{"boxes of 5", []decode.Tensor{f32("boxes", []int{1, 4, 5}, nil), f32("classes", []int{1, 4}, nil), f32("scores", []int{1, 4}, nil)},
			[]string{`"boxes" float32 [1 4 5]`, "[1 N 4]"}},
		{"classes of 3", []decode.Tensor{f32("boxes", []int{1, 4, 4}, nil), f32("classes", []int{1, 3}, nil), f32("scores", []int{1, 4}, nil)},
			[]string{`"classes" float32 [1 3]`, "4 boxes"}},
		{"count of 2", []decode.Tensor{f32("boxes", []int{1, 4, 4}, nil), f32("classes", []int{1, 4}, nil), f32("scores", []int{1, 4}, nil),
			f32("count", []int{2}, nil)}, []string{`"count" float32 [2]`}},
		{"one tensor", []decode.Tensor{f32("out", []int{1, 84, 8400}, nil)}, []string{`"out" float32 [1 84 8400]`, "got 1 tensors"}},
	} {
		layoutError(t, c.what, d.Check(c.ts), c.want...)
	}
}
