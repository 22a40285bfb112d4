package decode_test

import (
	"errors"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// fuzzTensors builds up to four tensors from shapes — per tensor a rank
// byte, then that many dims (0..255, so zero and large dims occur) and
// a type byte — with bytes taken from data in turn (a tensor may get
// fewer than it needs).
func fuzzTensors(shapes, data []byte) []decode.Tensor {
	types := []tensor.DType{tensor.F32, tensor.U8, tensor.F16, tensor.I8, tensor.I64, tensor.F64}
	var ts []decode.Tensor
	for len(shapes) > 0 && len(ts) < 4 {
		rank := int(shapes[0] % 5)
		shapes = shapes[1:]
		if len(shapes) < rank+1 {
			break
		}
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = int(shapes[i])
		}
		dt := types[int(shapes[rank])%len(types)]
		shapes = shapes[rank+1:]
		size := dt.Size()
		for _, d := range shape {
			size *= max(d, 0)
		}
		n := min(size, len(data))
		names := []string{"boxes", "scores", "classes", "count", "map", ""}
		ts = append(ts, decode.Tensor{Name: names[len(ts)+rank%2], DType: dt, Shape: shape, Data: data[:n], Scale: 0.5, ZeroPoint: 3})
		data = data[n:]
	}
	return ts
}

// FuzzDecode feeds arbitrary dims, types and values to every mode and
// option: Decode never panics, an error wraps one of the package's
// sentinels, and every box is finite, positive and inside the frame, every
// confidence finite.
// Its seed corpus runs with the other tests.
func FuzzDecode(f *testing.F) {
	f32bytes := func(v ...float32) []byte { return f32("", nil, v).Data }
	f.Add(byte(0), []byte{2, 1, 5, 0}, f32bytes(1, 3, 2, 3, -1), 0.1)
	f.Add(byte(1), []byte{3, 1, 2, 4, 0, 2, 1, 2, 0, 2, 1, 2, 0, 1, 1, 0}, f32bytes(0.1, 0.1, 0.5, 0.5, 0, 0, 1, 1, 1, 2, 0.9, 0.8, 2), 0.5)
	f.Add(byte(7), []byte{3, 1, 3, 6, 0}, f32bytes(10, 10, 4, 4, 0.9, 0.8, 11, 10, 4, 4, 0.7, 0.6, 50, 50, 8, 8, 1, 1), 0.25)
	f.Add(byte(7), []byte{3, 1, 1, 8, 0}, f32bytes(0.5, 0.5, 0.1, 0.1, 0.9, 0.8, 0.3, float32(math.NaN())), 0.25)
	f.Add(byte(3), []byte{4, 1, 1, 3, 3, 0}, f32bytes(0, 1, 0, 1, 1, 1, 0, 1, 0), 0.5)
	f.Add(byte(43), []byte{4, 1, 1, 3, 3, 1}, []byte{0, 200, 0, 200, 200, 200, 0, 200, 0}, 0.5)
	f.Add(byte(2), []byte{3, 1, 255, 255, 0}, []byte{1, 2, 3}, 0.0)
	f.Add(byte(1), []byte{1, 0, 0}, []byte{}, math.Inf(1))
	f.Add(byte(9), []byte{3, 1, 3, 4, 0}, f32bytes(0.1, 0.9, 0, 0, 0.1, 0, 0.9, 0, 0.1, 0, 0, float32(math.Inf(1))), 0.25)
	f.Add(byte(4), []byte{3, 1, 2, 5, 0}, f32bytes(0, 1, 2, 3, 4, 4, 3, 2, 1, 0), 0.0)
	// Hostile values in each mode (mode 1 + sel%5, transform sel%3: 12 is
	// boxes-yolo on Identity(64, 48), 132 the same with normalized
	// coordinates, 6 boxes-ssd, 3 map-boxes, 0 classify, 20 classify with
	// softmax).
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	v5 := []byte{3, 1, 2, 6, 0}                                                                                // YOLOv5 [1 2 6]: two rows, one class
	f.Add(byte(12), v5, f32bytes(0.5, 0.5, 0.25, 0.25, 0.9, 1, nan, 0.5, 0.1, 0.1, 0.9, 1), 0.25)              // a NaN centre
	f.Add(byte(12), v5, f32bytes(10, 10, 4, 4, inf, 1, 20, 20, 4, 4, 0.9, 1), 0.25)                            // +Inf objectness
	f.Add(byte(12), v5, f32bytes(10, 10, inf, 4, 0.9, 1, 20, 20, 4, -inf, 0.9, 1), 0.25)                       // infinite sizes
	f.Add(byte(12), v5, f32bytes(10, 10, -4, 4, 0.9, 1, 20, 20, 0, 0, 0.9, 1), 0.25)                           // negative, zero sizes
	f.Add(byte(12), v5, f32bytes(1e30, 10, 4, 4, 0.9, 1, -1e30, 20, 3e38, 3e38, 0.9, 1), 0.25)                 // far outside, overflowing
	f.Add(byte(12), v5, f32bytes(10, 10, 4, 4, 1e30, 1e30, 20, 20, 4, 4, 0.9, nan), 0.25)                      // a score that overflows
	f.Add(byte(132), []byte{3, 1, 5, 2, 0}, f32bytes(0.5, 0, 0.5, 0.5, 0.25, 4e36, 0.25, 0.1, 0.9, 0.8), 0.25) // v8, ×64 past float32
	ssd := []byte{3, 1, 2, 4, 0, 2, 1, 2, 0, 2, 1, 2, 0, 1, 1, 0}
	f.Add(byte(6), ssd, f32bytes(0.1, 0.1, 0.5, inf, nan, 0, 1, 1, 1, 2, inf, 0.8, 2), 0.5) // infinite box, score
	f.Add(byte(6), ssd, f32bytes(0.1, 0.1, 0.5, 3e38, 0, 0, 1, 1, 1, 2, 0.9, 0.8, 2), 0.5)  // an edge past float32 once scaled
	f.Add(byte(6), ssd, f32bytes(0.1, 0.1, 0.5, 0.5, 0, 0, 1, 1, 1, 2, 0.9, 0.8, 1e9), 0.5) // a count the tensors cannot hold
	f.Add(byte(6), ssd, f32bytes(0.1, 0.1, 0.5, 0.5, 0, 0, 1, 1, 1, 2, 0.9, 0.8, -3), 0.5)
	f.Add(byte(6), ssd, f32bytes(0.1, 0.1, 0.5, 0.5, 0, 0, 1, 1, nan, 2, 0.9, 0.8, nan), 0.5)
	f.Add(byte(6), ssd, f32bytes(0.5, 0.5, 0.1, 0.1, -1e30, -1e30, 1e30, 1e30, 1, 2, 0.9, 0.8, 2), 0.5) // inverted, huge
	f.Add(byte(3), []byte{4, 1, 1, 3, 3, 0}, f32bytes(0.9, inf, 0, nan, 0.9, 0, -inf, 0, 0.9), 0.5)
	f.Add(byte(0), []byte{2, 1, 5, 0}, f32bytes(1, inf, nan, -inf, 0.5), 0.1)
	f.Add(byte(20), []byte{2, 1, 5, 0}, f32bytes(1, 3, nan, 2, 0.5), 0.1)
	// Wrong shapes: a zero dim, the wrong rank, the wrong count of tensors.
	f.Add(byte(12), []byte{3, 1, 0, 6, 0}, f32bytes(1, 2, 3), 0.25)
	f.Add(byte(6), []byte{3, 1, 2, 5, 0, 2, 1, 2, 0}, f32bytes(1, 2, 3), 0.5)
	f.Add(byte(3), []byte{4, 1, 2, 3, 3, 0}, f32bytes(1, 2, 3), 0.5)
	f.Fuzz(func(t *testing.T, sel byte, shapes, data []byte, thr float64) {
		cfg := decode.Config{
			Mode:           decode.Mode(1 + sel%5),
			ScoreThreshold: thr,
			MapThreshold:   thr,
			IoUThreshold:   0.45,
			MaxDetections:  int(sel>>6) * 3,
			TopK:           int(sel>>4) % 4,
			Softmax:        sel&4 != 0,
			Connectivity:   []int{4, 8}[sel>>3&1],
			YOLOLayout:     decode.YOLOLayout(sel >> 4 % 3),
			YOLOCoords:     decode.YOLOCoords(sel >> 6 % 3),
			UnclipRatio:    float64(sel & 3),
			MinArea:        int(sel & 1),
			Labels:         []string{"a", "", "c"},
		}
		d, err := decode.New(cfg)
		if err != nil {
			if !errors.Is(err, decode.ErrConfig) {
				t.Fatalf("New: %v", err)
			}
			return
		}
		ts := fuzzTensors(shapes, data)
		trs := []decode.Transform{decode.Identity(64, 48), decode.Letterbox(1280, 720, 64, 64), {}}
		tr := trs[int(sel)%len(trs)]
		for range 2 { // twice: the second frame reuses the plan and buffers
			objs, err := d.Decode(ts, tr)
			if err != nil {
				if !errors.Is(err, decode.ErrLayout) && !errors.Is(err, decode.ErrData) && !errors.Is(err, decode.ErrTransform) {
					t.Fatalf("Decode: %v wraps no sentinel", err)
				}
				return
			}
			for _, o := range objs {
				b := o.Box
				ok := !math.IsNaN(b.X+b.Y+b.W+b.H) && b.X >= 0 && b.Y >= 0 &&
					b.X+b.W <= float64(tr.FrameWidth)+1e-9 && b.Y+b.H <= float64(tr.FrameHeight)+1e-9
				if cfg.Mode != decode.Classify && cfg.Mode != decode.CTC {
					ok = ok && b.W > 0 && b.H > 0
				}
				// Hostile values are never an object's confidence.
				ok = ok && o.Confidence-o.Confidence == 0
				if !ok {
					t.Fatalf("%v: object %+v outside the %d×%d frame", cfg.Mode, o, tr.FrameWidth, tr.FrameHeight)
				}
			}
		}
	})
}

// FuzzCTC feeds arbitrary dims, types and values to ctc's DecodeTexts:
// no panic, errors wrap a sentinel, one text per item, each in the
// buffer in item order, UTF-8 (the dictionary is), within TextCapacity,
// its confidence finite and over the threshold (0 and no text
// otherwise), NonFinite at most the items; and Decode's objects are
// whole-frame texts of class -1, one per text, in the same order.
func FuzzCTC(f *testing.F) {
	f32bytes := func(v ...float32) []byte { return f32("", nil, v).Data }
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	f.Add(byte(3), []byte{3, 2, 3, 5, 0}, f32bytes(0.1, 0.9, 0, 0, 0, 0.1, 0.9, 0, 0, 0, 0.9, 0, 0, 0, 0.1,
		0, 0, 0.9, 0.1, 0, 0, 0, 0, 0, 0.9, 0.2, 0.2, 0.2, 0.2, 0.2), 0.0, false)
	f.Add(byte(3), []byte{3, 2, 3, 5, 0}, f32bytes(0.1, 0.9, 0, 0, nan, 0.1, 0.9, 0, 0, 0, 0.9, 0, 0, 0, 0.1,
		0, 0, 0.9, 0.1, 0, 0, 0, 0, 0, inf, 0.2, 0.2, 0.2, 0.2, 0.2), 0.0, true)
	f.Add(byte(2), []byte{2, 3, 4, 0}, f32bytes(1, 2, 3, 4, 4, 3, 2, 1, -inf, 0, 0, 0), -1.0, true)
	f.Add(byte(2), []byte{3, 1, 2, 4, 1}, []byte{0, 255, 10, 20, 255, 0, 0, 0}, 0.5, false)
	f.Add(byte(3), []byte{3, 1, 1, 7, 0}, f32bytes(0, 0, 0, 0, 0, 0, 1), 0.0, false) // 7 classes for 4 tokens
	f.Add(byte(1), []byte{4, 2, 1, 2, 3, 0}, f32bytes(1, 2, 3), 0.0, false)
	f.Fuzz(func(t *testing.T, tokens byte, shapes, data []byte, thr float64, softmax bool) {
		dict := []string{"中", "a", "\u3000", "", "文字"}[:1+int(tokens)%5]
		d, err := decode.New(decode.Config{Mode: decode.CTC, Labels: dict, ScoreThreshold: thr, Softmax: softmax})
		if err != nil {
			if !errors.Is(err, decode.ErrConfig) {
				t.Fatalf("New: %v", err)
			}
			return
		}
		ts := fuzzTensors(shapes, data)
		sentinel := func(err error) bool { return errors.Is(err, decode.ErrLayout) || errors.Is(err, decode.ErrData) }
		capacity, err := d.TextCapacity(ts)
		if err != nil {
			if !sentinel(err) {
				t.Fatalf("TextCapacity: %v wraps no sentinel", err)
			}
			return
		}
		for range 2 {
			texts, buf, err := d.DecodeTexts(ts, nil)
			if err != nil {
				if !sentinel(err) {
					t.Fatalf("DecodeTexts: %v wraps no sentinel", err)
				}
				return
			}
			if len(buf) > capacity || d.NonFinite() < 0 || d.NonFinite() > len(texts) {
				t.Fatalf("%d bytes (capacity %d), %d non-finite of %d items", len(buf), capacity, d.NonFinite(), len(texts))
			}
			var want []string
			end := 0
			for n, x := range texts {
				if x.Start != end || x.End < x.Start || x.End > len(buf) {
					t.Fatalf("item %d: %+v after %d, of %d bytes", n, x, end, len(buf))
				}
				end = x.End
				text := buf[x.Start:x.End]
				if !utf8.Valid(text) || math.IsNaN(x.Confidence) || math.IsInf(x.Confidence, 0) {
					t.Fatalf("item %d: %q confidence %v", n, text, x.Confidence)
				}
				if len(text) > 0 && !(x.Confidence > thr) || len(text) == 0 && x.Confidence != 0 {
					t.Fatalf("item %d: %q confidence %v, threshold %v", n, text, x.Confidence, thr)
				}
				if len(text) > 0 {
					want = append(want, string(text))
				}
			}
			objs, err := d.Decode(ts, decode.Identity(100, 32))
			if err != nil || len(objs) != len(want) {
				t.Fatalf("Decode after DecodeTexts: %d objects, %v; want %d", len(objs), err, len(want))
			}
			for i, o := range objs {
				if o.ClassID != -1 || o.Box != (decode.Box{W: 100, H: 32}) || o.Label != want[i] {
					t.Fatalf("object %d %+v, want the text %q", i, o, want[i])
				}
			}
		}
	})
}
