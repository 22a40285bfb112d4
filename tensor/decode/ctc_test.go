package decode_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// steps makes a [1 T C] tensor of one-hot-ish steps: step t gives class
// seq[t] probability p[t] (or 0.9 when p is nil) and shares the rest
// equally among the other classes.
func steps(c int, seq []int, p []float32) decode.Tensor {
	v := make([]float32, len(seq)*c)
	for t, k := range seq {
		pk := float32(0.9)
		if p != nil {
			pk = p[t]
		}
		for j := range c {
			v[t*c+j] = (1 - pk) / float32(c-1)
		}
		v[t*c+k] = pk
	}
	return f32("softmax_2.tmp_0", []int{1, len(seq), c}, v)
}

func ctcDecoder(t *testing.T, tokens []string) *decode.Decoder {
	return newDecoder(t, decode.Config{Mode: decode.CTC, Labels: tokens, ScoreThreshold: 0.25})
}

// Greedy CTC: repeats merged, the blank (0) dropped and separating a
// real double letter; the confidence is the mean of the kept steps'
// probabilities — computed here from the steps, not by the decoder.
func TestCTCKnownSequences(t *testing.T) {
	tokens := []string{"a", "b", "l", "o", "h", "e"}
	d := ctcDecoder(t, tokens)
	c := len(tokens) + 1
	for _, tc := range []struct {
		seq  []int
		p    []float32
		want string
		conf float64
	}{
		// h e l l o: "l l" needs a blank between to stay two letters.
		{[]int{5, 5, 0, 6, 3, 3, 0, 3, 4, 0}, []float32{0.5, 0.9, 0.8, 0.7, 0.6, 0.9, 0.99, 0.4, 0.3, 0.8}, "hello",
			(0.5 + 0.7 + 0.6 + 0.4 + 0.3) / 5},
		{[]int{1, 1, 1, 2, 2, 1}, nil, "aba", 0.9},
		{[]int{0, 1, 0, 1, 0, 0}, []float32{0.9, 0.6, 0.9, 0.8, 0.9, 0.9}, "aa", 0.7},
	} {
		got := decodeOK(t, d, decode.Identity(320, 48), steps(c, tc.seq, tc.p))
		checkObjects(t, tc.want, got, []decode.Object{obj(0, 0, 320, 48, -1, tc.want, tc.conf)})
	}
	// A region's row comes with the region's transform, and whole-frame
	// tensors with no frame size: ctc needs none (a 0×0 box).
	checkObjects(t, "no transform", decodeOK(t, d, decode.Transform{}, steps(c, []int{1, 2}, nil)),
		[]decode.Object{obj(0, 0, 0, 0, -1, "ab", 0.9)})
	// Only blanks: nothing read, no object.
	if got := decodeOK(t, d, decode.Identity(320, 48), steps(c, []int{0, 0, 0}, nil)); len(got) != 0 {
		t.Errorf("only blanks: %s, want nothing", fmtObjects(got))
	}
	// A text whose mean probability is at the threshold is not kept.
	if got := decodeOK(t, d, decode.Identity(320, 48), steps(c, []int{1, 2}, []float32{0.25, 0.25})); len(got) != 0 {
		t.Errorf("confidence 0.25 at threshold 0.25: %s, want nothing", fmtObjects(got))
	}
}

// A model with two classes more than the dictionary has lines: the last
// is a space (PaddleOCR's dictionaries); tokens are UTF-8 of any length,
// U+3000 among them, and a space token from the file is kept as read.
func TestCTCSpaceTokenAndUTF8(t *testing.T) {
	dict, err := decode.ParseTokens(strings.NewReader("\ufeff京\nA\n·\n\u3000\n1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"京", "A", "·", "\u3000", "1"}; strings.Join(dict, "|") != strings.Join(want, "|") {
		t.Fatalf("tokens %q, want %q", dict, want)
	}
	d := ctcDecoder(t, dict)
	space := len(dict) + 1
	got := decodeOK(t, d, decode.Identity(100, 48), steps(len(dict)+2, []int{1, 2, 0, 3, space, 4, 5, 5, 0, 5}, nil))
	checkObjects(t, "plate", got, []decode.Object{obj(0, 0, 100, 48, -1, "京A· \u300011", 0.9)})
}

// Logits rather than probabilities: with Softmax each kept step's
// probability is its softmax, computed here in float64.
func TestCTCSoftmax(t *testing.T) {
	d := newDecoder(t, decode.Config{Mode: decode.CTC, Labels: []string{"x", "y"}, Softmax: true})
	logits := []float32{0, 1, 2, 1, 3, 0}
	p := func(row []float32, k int) float64 {
		var z float64
		for _, x := range row {
			z += math.Exp(float64(x))
		}
		return math.Exp(float64(row[k])) / z
	}
	got := decodeOK(t, d, decode.Identity(10, 10), f32("logits", []int{1, 2, 3}, logits))
	checkObjects(t, "softmax", got, []decode.Object{obj(0, 0, 10, 10, -1, "yx", (p(logits[:3], 2)+p(logits[3:], 1))/2)})
}

// Layouts ctc cannot read name what they want: a rank past [N T C], a
// dictionary that does not fit the classes; no dictionary is a
// configuration error. A batch [N T C] is read.
func TestCTCBadLayouts(t *testing.T) {
	d := ctcDecoder(t, []string{"a", "b", "c"})
	if err := d.Check([]decode.Tensor{f32("o", []int{2, 5, 4}, nil)}); err != nil {
		t.Errorf("a batch of 2: %v", err)
	}
	layoutError(t, "rank 4", d.Check([]decode.Tensor{f32("o", []int{2, 2, 5, 4}, nil)}), "[N T C]", "[2 2 5 4]")
	layoutError(t, "7 classes", d.Check([]decode.Tensor{f32("o", []int{1, 5, 7}, nil)}), "the model has 7 classes", "dictionary has 3 lines")
	layoutError(t, "two tensors", d.Check([]decode.Tensor{f32("o", []int{1, 5, 4}, nil), f32("p", []int{1, 5, 4}, nil)}), "got 2 tensors")
	if err := d.Check([]decode.Tensor{f32("o", []int{5, 5}, nil)}); err != nil {
		t.Errorf("[T C] of 5 classes with 3 tokens (a space last): %v", err)
	}
	if _, err := decode.New(decode.Config{Mode: decode.CTC}); !errors.Is(err, decode.ErrConfig) || !strings.Contains(err.Error(), "dictionary") {
		t.Errorf("ctc without labels: %v, want ErrConfig naming the dictionary", err)
	}
}
