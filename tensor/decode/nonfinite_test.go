package decode_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

var (
	nan  = float32(math.NaN())
	pinf = float32(math.Inf(1))
	ninf = float32(math.Inf(-1))
)

// One YOLO candidate with a NaN coordinate changes nothing of the
// others: normalized boxes stay normalized (automatic units decided
// without it), the candidate is dropped and counted. Before, the NaN
// made the frame read as pixels: a box 240,240 160×160 became
// 0.375,0.375 0.25×0.25.
func TestYOLONaNCoordinateChangesNoOtherBox(t *testing.T) {
	good := anchor{cx: 0.5, cy: 0.5, w: 0.25, h: 0.25, obj: 1, cls: []float32{0.9}}
	for _, bad := range []anchor{
		{cx: nan, cy: 0.1, w: 0.1, h: 0.1, obj: 1, cls: []float32{0.8}},
		{cx: 0.1, cy: 0.1, w: pinf, h: 0.1, obj: 1, cls: []float32{0.8}},
		{cx: 0.1, cy: ninf, w: 0.1, h: 0.1, obj: 1, cls: []float32{0.8}},
	} {
		for name, tensor := range map[string]decode.Tensor{"v5": yoloV5(1, []anchor{bad, good}), "v8": yoloV8(1, []anchor{bad, good})} {
			d := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.45})
			got := decodeOK(t, d, decode.Identity(640, 640), tensor)
			checkObjects(t, name, got, []decode.Object{obj(240, 240, 160, 160, 0, "", 0.9)})
			if d.NonFinite() != 1 {
				t.Errorf("%s %+v: NonFinite %d, want 1", name, bad, d.NonFinite())
			}
		}
	}
}

// +Inf is no detection: an infinite score is no object of confidence
// +Inf, an infinite width no box as wide as the frame — in YOLO v5 and
// v8, SSD, map-boxes and classify alike; each is counted, and the
// finite objects beside them are decoded as without them.
func TestInfinityIsNoObject(t *testing.T) {
	t.Run("yolo", func(t *testing.T) {
		good := anchor{cx: 320, cy: 320, w: 100, h: 100, obj: 1, cls: []float32{0.9}}
		for _, bad := range []anchor{
			{cx: 100, cy: 100, w: 10, h: 10, obj: 1, cls: []float32{pinf}},
			{cx: 100, cy: 100, w: pinf, h: 10, obj: 1, cls: []float32{0.8}},
			{cx: 100, cy: 100, w: 10, h: 10, obj: pinf, cls: []float32{0.8}},
		} {
			for name, tensor := range map[string]decode.Tensor{"v5": yoloV5(1, []anchor{bad, good}), "v8": yoloV8(1, []anchor{bad, good})} {
				if name == "v8" && bad.obj != 1 {
					continue // v8 has no objectness
				}
				d := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.45})
				got := decodeOK(t, d, decode.Identity(640, 640), tensor)
				checkObjects(t, name, got, []decode.Object{obj(270, 270, 100, 100, 0, "", 0.9)})
				if d.NonFinite() != 1 {
					t.Errorf("%s %+v: NonFinite %d, want 1", name, bad, d.NonFinite())
				}
			}
		}
	})
	t.Run("ssd", func(t *testing.T) {
		boxes := []float32{0.1, 0.1, 0.5, 0.5, 0, 0, pinf, 0.5, 0, 0, 0.5, 0.5, 0.2, 0.2, 0.4, 0.4}
		classes := []float32{1, 1, 1, nan}
		scores := []float32{0.9, 0.8, pinf, 0.7}
		d := newDecoder(t, decode.Config{Mode: decode.BoxesSSD, ScoreThreshold: 0.5})
		got := decodeOK(t, d, decode.Identity(100, 100),
			f32("boxes", []int{1, 4, 4}, boxes), f32("classes", []int{1, 4}, classes), f32("scores", []int{1, 4}, scores))
		checkObjects(t, "ssd", got, []decode.Object{obj(10, 10, 40, 40, 1, "", 0.9)})
		if d.NonFinite() != 3 {
			t.Errorf("ssd: NonFinite %d, want 3 (an infinite box, score, a NaN class)", d.NonFinite())
		}
	})
	t.Run("map-boxes", func(t *testing.T) {
		h, w, v := parseMap(
			"..........",
			".99.......",
			".99....9..",
			".......9..",
		)
		v[2*w+7] = pinf
		d := newDecoder(t, decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.5, ScoreThreshold: 0.5})
		got := decodeOK(t, d, decode.Identity(w, h), f32("map", []int{1, 1, h, w}, v))
		checkObjects(t, "map", got, []decode.Object{obj(1, 1, 2, 2, 0, "", 0.9), obj(7, 3, 1, 1, 0, "", 0.9)})
		if d.NonFinite() != 1 {
			t.Errorf("map: NonFinite %d, want 1", d.NonFinite())
		}
	})
	t.Run("classify", func(t *testing.T) {
		for _, softmax := range []bool{false, true} {
			d := newDecoder(t, decode.Config{Mode: decode.Classify, ScoreThreshold: 0, Softmax: softmax})
			scores := []float32{pinf, 0.5, nan, 0.25}
			got := decodeOK(t, d, decode.Identity(4, 4), f32("s", []int{1, 4}, scores))
			want := []decode.Object{obj(0, 0, 4, 4, 1, "", 0.5), obj(0, 0, 4, 4, 3, "", 0.25)}
			if softmax {
				e1, e3 := math.Exp(0.5), math.Exp(0.25)
				want = []decode.Object{obj(0, 0, 4, 4, 1, "", e1/(e1+e3)), obj(0, 0, 4, 4, 3, "", e3/(e1+e3))}
			}
			checkObjects(t, "classify", got, want)
			if d.NonFinite() != 2 {
				t.Errorf("classify softmax=%v: NonFinite %d, want 2", softmax, d.NonFinite())
			}
		}
	})
	t.Run("ctc", func(t *testing.T) {
		d := ctcDecoder(t, []string{"a", "b"})
		tn := steps(3, []int{1, 2}, nil)
		bad := f32("o", []int{1, 2, 3}, []float32{0.1, 0.9, 0, 0, pinf, 0})
		if got := decodeOK(t, d, decode.Identity(4, 4), bad); len(got) != 0 || d.NonFinite() != 1 {
			t.Errorf("ctc with +Inf: %s, NonFinite %d; want nothing, 1", fmtObjects(got), d.NonFinite())
		}
		if got := decodeOK(t, d, decode.Identity(4, 4), tn); len(got) != 1 || got[0].Label != "ab" || d.NonFinite() != 0 {
			t.Errorf("the next frame: %s, NonFinite %d; want \"ab\", 0", fmtObjects(got), d.NonFinite())
		}
	})
}

// Finite values whose box overflows float32 — SSD's normalized edge
// times the input's size, a normalized YOLO box scaled to pixels — are
// no box reaching the frame's edge: the candidate is dropped and
// counted, the others decoded as without it. A YOLO box whose edge
// overflows (a centre and width of 3e38) is counted too.
func TestOverflowIsNoBox(t *testing.T) {
	good := anchor{cx: 320, cy: 320, w: 100, h: 100, obj: 1, cls: []float32{0.9}}
	bad := anchor{cx: 3e38, cy: 100, w: 3e38, h: 10, obj: 1, cls: []float32{0.8}}
	for name, tensor := range map[string]decode.Tensor{"v5": yoloV5(1, []anchor{bad, good}), "v8": yoloV8(1, []anchor{bad, good})} {
		d := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.45})
		got := decodeOK(t, d, decode.Identity(640, 640), tensor)
		checkObjects(t, name, got, []decode.Object{obj(270, 270, 100, 100, 0, "", 0.9)})
		if d.NonFinite() != 1 {
			t.Errorf("%s: NonFinite %d, want 1", name, d.NonFinite())
		}
	}
	// Forced normalized: ±2e36 × 640 is past float32.
	d := newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.45, YOLOCoords: decode.CoordsNormalized})
	got := decodeOK(t, d, decode.Identity(640, 640), yoloV8(1, []anchor{
		{cx: 0.5, cy: 0.5, w: 0.25, h: 0.25, cls: []float32{0.9}}, {cx: 0, cy: 0.5, w: 4e36, h: 0.1, cls: []float32{0.8}}}))
	checkObjects(t, "normalized", got, []decode.Object{obj(240, 240, 160, 160, 0, "", 0.9)})
	if d.NonFinite() != 1 {
		t.Errorf("normalized: NonFinite %d, want 1", d.NonFinite())
	}
	d = newDecoder(t, decode.Config{Mode: decode.BoxesSSD, ScoreThreshold: 0.5})
	got = decodeOK(t, d, decode.Identity(1000, 1000),
		f32("boxes", []int{1, 2, 4}, []float32{0.1, 0.2, 0.5, 3e38, 0.1, 0.2, 0.5, 0.6}),
		f32("classes", []int{1, 2}, []float32{2, 1}), f32("scores", []int{1, 2}, []float32{0.9, 0.75}))
	checkObjects(t, "ssd", got, []decode.Object{obj(200, 100, 400, 400, 1, "", 0.75)})
	if d.NonFinite() != 1 {
		t.Errorf("ssd: NonFinite %d, want 1", d.NonFinite())
	}
	// A transform whose scale is so small that a box's edges map past
	// float64 gives no frame-wide box.
	tr := decode.Identity(640, 640)
	tr.ScaleX = 1e-320
	d = newDecoder(t, decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.45})
	across := anchor{cx: 10, cy: 320, w: 100, h: 100, cls: []float32{0.9}} // x from -40 to 60: -Inf to +Inf once mapped
	if got := decodeOK(t, d, tr, yoloV8(1, []anchor{across})); len(got) != 0 {
		t.Errorf("a box mapped past float64: %s, want none", fmtObjects(got))
	}
}

// An SSD count the tensors cannot hold — more detections than the
// boxes, or fewer than none — is an error naming every tensor's dims
// (the tensors are not what the mode reads: the count was taken as all
// of them, or none); a count that is not a number gives nothing,
// counted. A quantization scale that is not a number is ErrData.
func TestSSDCountOutOfRange(t *testing.T) {
	ssd := func(count float32) []decode.Tensor {
		return []decode.Tensor{f32("boxes", []int{1, 4, 4}, ssdBoxes), f32("classes", []int{1, 4}, ssdClasses),
			f32("scores", []int{1, 4}, ssdScores), f32("count", []int{1}, []float32{count})}
	}
	for _, count := range []float32{5, 1e9, -1} {
		d := newDecoder(t, decode.Config{Mode: decode.BoxesSSD, ScoreThreshold: 0.5})
		_, err := d.Decode(ssd(count), decode.Identity(100, 100))
		if !errors.Is(err, decode.ErrData) {
			t.Errorf("count %v of 4 boxes: %v, want ErrData", count, err)
			continue
		}
		for _, w := range []string{`"count" float32 [1]`, `"boxes" float32 [1 4 4]`, "4 detections"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("count %v: error %q does not say %q", count, err, w)
			}
		}
	}
	for _, count := range []float32{nan, pinf} {
		d := newDecoder(t, decode.Config{Mode: decode.BoxesSSD, ScoreThreshold: 0.5})
		if got := decodeOK(t, d, decode.Identity(100, 100), ssd(count)...); len(got) != 0 || d.NonFinite() != 1 {
			t.Errorf("count %v: %s, NonFinite %d; want nothing, 1", count, fmtObjects(got), d.NonFinite())
		}
	}
	d := newDecoder(t, decode.Config{Mode: decode.Classify})
	q := decode.Tensor{Name: "q", DType: tensor.U8, Shape: []int{1, 3}, Data: []byte{10, 200, 138}, Scale: math.NaN()}
	if _, err := d.Decode([]decode.Tensor{q}, decode.Identity(8, 8)); !errors.Is(err, decode.ErrData) || !strings.Contains(err.Error(), `"q" uint8 [1 3]`) {
		t.Errorf("scale NaN: %v, want ErrData naming the tensor", err)
	}
}
