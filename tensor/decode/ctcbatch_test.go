package decode_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// step is one CTC step as a test writes it: its best class and that
// class's probability (the other classes share the rest evenly).
type step struct {
	class int
	p     float32
}

// batch lays out items of steps as probabilities [N T C].
func batch(c int, items ...[]step) decode.Tensor {
	var v []float32
	for _, it := range items {
		for _, s := range it {
			rest := (1 - s.p) / float32(c-1)
			for k := range c {
				if k == s.class {
					v = append(v, s.p)
				} else {
					v = append(v, rest)
				}
			}
		}
	}
	return f32("softmax_0.tmp_0", []int{len(items), len(items[0]), c}, v)
}

// texts decodes with DecodeTexts and returns each item's text and
// confidence, checking the texts lie in order in the buffer.
func texts(t *testing.T, d *decode.Decoder, ts ...decode.Tensor) ([]string, []float64) {
	t.Helper()
	got, buf, err := d.DecodeTexts(ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	var conf []float64
	end := 0
	for _, x := range got {
		if x.Start != end || x.End < x.Start || x.End > len(buf) {
			t.Fatalf("text %+v after %d, of %d bytes", x, end, len(buf))
		}
		end = x.End
		s = append(s, string(buf[x.Start:x.End]))
		conf = append(conf, x.Confidence)
	}
	return s, conf
}

func checkTexts(t *testing.T, what string, gotS []string, gotC []float64, wantS []string, wantC []float64) {
	t.Helper()
	ok := len(gotS) == len(wantS) && len(gotC) == len(wantC)
	for i := 0; ok && i < len(gotS); i++ {
		ok = gotS[i] == wantS[i] && near(gotC[i], wantC[i])
	}
	if !ok {
		t.Errorf("%s:\n got  %q %.6g\n want %q %.6g", what, gotS, gotC, wantS, wantC)
	}
}

// A batch [N T C] is read item by item: DecodeTexts gives item n's text
// and confidence as texts[n] — "a a - a" is "aa", blanks only is none
// (confidence 0) — and Decode one whole-frame object per item with a
// text, in item order.
func TestCTCBatch(t *testing.T) {
	const a, b, c, blank = 1, 2, 3, 0
	d := newDecoder(t, decode.Config{Mode: decode.CTC, Labels: []string{"a", "b", "c"}, ScoreThreshold: 0})
	in := batch(4,
		[]step{{a, 0.9}, {a, 0.8}, {blank, 0.7}, {a, 0.6}, {blank, 0.9}, {blank, 0.9}},
		[]step{{a, 0.5}, {blank, 0.7}, {blank, 0.7}, {a, 0.7}, {b, 0.9}, {c, 0.4}},
		[]step{{blank, 0.9}, {blank, 0.9}, {blank, 0.9}, {blank, 0.9}, {blank, 0.9}, {blank, 0.9}},
		[]step{{c, 0.9}, {c, 0.3}, {c, 0.9}, {c, 0.9}, {c, 0.9}, {c, 0.9}},
		[]step{{b, 0.6}, {b, 0.8}, {c, 0.5}, {c, 0.3}, {blank, 0.9}, {c, 0.7}},
	)
	s, conf := texts(t, d, in)
	checkTexts(t, "five items", s, conf, []string{"aa", "aabc", "", "c", "bcc"},
		[]float64{(0.9 + 0.6) / 2, (0.5 + 0.7 + 0.9 + 0.4) / 4, 0, 0.9, (0.6 + 0.5 + 0.7) / 3})
	got := decodeOK(t, d, decode.Identity(320, 48), in)
	checkObjects(t, "objects", got, []decode.Object{obj(0, 0, 320, 48, -1, "aa", (0.9+0.6)/2),
		obj(0, 0, 320, 48, -1, "aabc", (0.5+0.7+0.9+0.4)/4), obj(0, 0, 320, 48, -1, "c", 0.9),
		obj(0, 0, 320, 48, -1, "bcc", (0.6+0.5+0.7)/3)})
}

// UTF-8 tokens as in PaddleOCR's ppocr_keys_v1.txt (its first lines and
// the ideographic space of line 5710) and the space class, items of
// different lengths side by side in the buffer; softmax over logits
// gives each kept step exp(best) / Σ exp, computed here in float64.
func TestCTCBatchUTF8AndSoftmax(t *testing.T) {
	dict, err := decode.ParseTokens(strings.NewReader("'\n疗\n绚\n诚\n娇\n\u3000\n中\n文\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := newDecoder(t, decode.Config{Mode: decode.CTC, Labels: dict})
	c := len(dict) + 2
	s, conf := texts(t, d, batch(c,
		[]step{{7, 0.9}, {7, 0.9}, {8, 0.8}, {0, 0.9}, {6, 0.6}, {2, 0.9}, {1, 0.5}},
		[]step{{4, 0.9}, {0, 0.9}, {0, 0.9}, {9, 0.9}, {0, 0.9}, {5, 0.7}, {0, 0.9}},
	))
	checkTexts(t, "utf-8", s, conf, []string{"中文\u3000疗'", "诚 娇"}, []float64{(0.9 + 0.8 + 0.6 + 0.9 + 0.5) / 5, (0.9 + 0.9 + 0.7) / 3})

	logits := []float32{
		0.5, 3, -1, 2, // a
		0.5, 3.5, -1, 2, // a again: merged
		4, 0, 0, 0, // blank
		-2, 1, 1.5, 0.25, // b
		9, 1, 1, 1, // item 2: blanks
		9, 1, 1, 1,
		9, 1, 1, 1,
		1, 1, 1, 8, // c
	}
	sm := func(row []float32, k int) float64 {
		var sum float64
		for _, x := range row {
			sum += math.Exp(float64(x))
		}
		return math.Exp(float64(row[k])) / sum
	}
	d = newDecoder(t, decode.Config{Mode: decode.CTC, Labels: []string{"a", "b", "c"}, Softmax: true})
	s, conf = texts(t, d, f32("logits", []int{2, 4, 4}, logits))
	checkTexts(t, "softmax", s, conf, []string{"ab", "c"}, []float64{(sm(logits[0:4], 1) + sm(logits[12:16], 2)) / 2, sm(logits[28:32], 3)})
}

// A step with a NaN or infinite score — the best class's or another's —
// empties its item, counted; the other items decode. A text not over the
// score threshold is none. Quantized scores are dequantized first.
func TestCTCBatchNonFiniteThresholdQuantized(t *testing.T) {
	for _, bad := range []float32{nan, pinf, ninf} {
		in := batch(4, []step{{1, 0.9}, {2, 0.9}}, []step{{2, 0.9}, {3, 0.8}}, []step{{3, 0.9}, {1, 0.7}})
		v := in.Data
		put := func(i int) { copy(v[4*i:], f32("", nil, []float32{bad}).Data) }
		put(4 + 3)   // item 0, step 1, class 3 (not its best)
		put(2*8 + 3) // item 2, step 0, class 3 (its best)
		d := newDecoder(t, decode.Config{Mode: decode.CTC, Labels: []string{"a", "b", "c"}})
		for range 2 {
			s, conf := texts(t, d, in)
			checkTexts(t, fmt.Sprint(bad), s, conf, []string{"", "bc", ""}, []float64{0, 0.85, 0})
			if d.NonFinite() != 2 {
				t.Errorf("%v: %d counted non-finite, want 2", bad, d.NonFinite())
			}
		}
	}
	d := newDecoder(t, decode.Config{Mode: decode.CTC, Labels: []string{"a", "b"}, ScoreThreshold: 0.5})
	s, conf := texts(t, d, batch(3, []step{{1, 0.625}, {2, 0.375}}, []step{{1, 0.625}, {2, 0.625}}))
	checkTexts(t, "threshold 0.5", s, conf, []string{"", "ab"}, []float64{0, 0.625})

	q := decode.Tensor{Name: "q", DType: tensor.U8, Shape: []int{1, 3, 3}, Scale: 1.0 / 255, Data: []byte{10, 200, 45, 10, 45, 200, 200, 20, 35}}
	d = newDecoder(t, decode.Config{Mode: decode.CTC, Labels: []string{"x", "y"}})
	s, conf = texts(t, d, q)
	checkTexts(t, "uint8", s, conf, []string{"xy"}, []float64{200.0 / 255})
}

// DecodeTexts and TextCapacity in another mode are ErrConfig; short
// data is ErrData; a class count the dictionary does not fit names both.
func TestCTCTextsErrors(t *testing.T) {
	if _, _, err := newDecoder(t, decode.Config{Mode: decode.Classify}).DecodeTexts(nil, nil); !errors.Is(err, decode.ErrConfig) {
		t.Errorf("DecodeTexts in classify mode: %v", err)
	}
	if _, err := newDecoder(t, decode.Config{Mode: decode.Classify}).TextCapacity(nil); !errors.Is(err, decode.ErrConfig) {
		t.Errorf("TextCapacity in classify mode: %v", err)
	}
	d := newDecoder(t, decode.Config{Mode: decode.CTC, Labels: []string{"a", "b", "c"}})
	if _, _, err := d.DecodeTexts([]decode.Tensor{f32("out", []int{1, 2, 4}, make([]float32, 7))}, nil); !errors.Is(err, decode.ErrData) {
		t.Errorf("short data: %v", err)
	}
	_, _, err := d.DecodeTexts([]decode.Tensor{f32("out", []int{8, 40, 6}, make([]float32, 8*40*6))}, nil)
	layoutError(t, "6 classes", err, "the model has 6 classes", "the dictionary has 3 lines", `"out" float32 [8 40 6]`)
}

// ocrBatch is a recogniser's output for a batch of 8 text lines, 40
// steps of 6625 classes (PP-OCRv4 with ppocr_keys_v1.txt's 6623 tokens
// and the space), probabilities: each step's best class is a blank half
// the time, else a random token, and every other class holds a small
// probability.
func ocrBatch() (decode.Tensor, []string) {
	const n, steps, c = 8, 40, 6625
	rng := rand.New(rand.NewPCG(11, 12))
	dict := make([]string, c-2)
	for i := range dict {
		dict[i] = string(rune(0x4e00 + i)) // CJK ideographs: three bytes each
	}
	v := make([]float32, n*steps*c)
	for i := range n * steps {
		row := v[i*c : (i+1)*c]
		for k := range row {
			row[k] = rng.Float32() * 1e-4
		}
		best := 0
		if rng.IntN(2) == 0 {
			best = 1 + rng.IntN(c-1)
		}
		row[best] = 0.5 + rng.Float32()*0.5
	}
	return f32("softmax_0.tmp_0", []int{n, steps, c}, v), dict
}

// With a buffer of TextCapacity bytes, decoding a frame allocates
// nothing once the decoder's buffers are sized, with or without
// softmax; the texts land in that buffer, valid UTF-8.
func TestCTCTextsAllocateNothing(t *testing.T) {
	in, dict := ocrBatch()
	for _, softmax := range []bool{false, true} {
		d := newDecoder(t, decode.Config{Mode: decode.CTC, Labels: dict, Softmax: softmax, ScoreThreshold: -1})
		ts := []decode.Tensor{in}
		n, err := d.TextCapacity(ts)
		if err != nil || n != 8*40*3 {
			t.Fatalf("TextCapacity %d %v, want %d", n, err, 8*40*3)
		}
		buf := make([]byte, 0, n)
		texts, out, err := d.DecodeTexts(ts, buf)
		if err != nil || len(texts) != 8 || &out[:1][0] != &buf[:1][0] {
			t.Fatalf("%d texts, %v; the texts not in the buffer given", len(texts), err)
		}
		for i, x := range texts {
			if x.End <= x.Start || !utf8.Valid(out[x.Start:x.End]) {
				t.Errorf("item %d: text %+v %q", i, x, out[x.Start:x.End])
			}
		}
		if a := testing.AllocsPerRun(10, func() { _, _, _ = d.DecodeTexts(ts, buf[:0]) }); a != 0 {
			t.Errorf("softmax %v: %v allocations per frame", softmax, a)
		}
	}
}

// BenchmarkCTC_8x40x6625 is greedy CTC over a PP-OCRv4 recogniser's
// batch of 8 lines ([8 40 6625], 8.5 MB of float32) into a buffer of
// TextCapacity bytes: probabilities as the model gives them, and with
// softmax over logits.
func BenchmarkCTC_8x40x6625(b *testing.B) {
	in, dict := ocrBatch()
	for _, softmax := range []bool{false, true} {
		b.Run(fmt.Sprintf("softmax=%v", softmax), func(b *testing.B) {
			d, err := decode.New(decode.Config{Mode: decode.CTC, Labels: dict, Softmax: softmax, ScoreThreshold: -1})
			if err != nil {
				b.Fatal(err)
			}
			ts := []decode.Tensor{in}
			buf := make([]byte, 0, 8*40*3)
			b.ReportAllocs()
			b.SetBytes(int64(len(in.Data)))
			for b.Loop() {
				if _, _, err := d.DecodeTexts(ts, buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
