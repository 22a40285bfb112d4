package decode_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// yoloV8Frame is a YOLOv8 output of a 640×640 input, [1 84 8400], as a
// real frame looks: every class score low (under 0.05) but for 20
// objects, each seen by 10 neighbouring candidates scoring 0.3–1 in its
// class (about 200 candidates over 0.25, which NMS reduces to about 20).
func yoloV8Frame() decode.Tensor {
	const n, c = 8400, 80
	rng := rand.New(rand.NewPCG(5, 6))
	as := make([]anchor, n)
	for i := range as {
		cls := make([]float32, c)
		for k := range cls {
			cls[k] = rng.Float32() * 0.05
		}
		as[i] = anchor{cx: rng.Float32() * 640, cy: rng.Float32() * 640, w: 10 + rng.Float32()*100, h: 10 + rng.Float32()*100, cls: cls}
	}
	for range 20 {
		cx, cy, k := 50+rng.Float32()*540, 50+rng.Float32()*540, rng.IntN(c)
		base := rng.IntN(n - 10)
		for j := range 10 {
			a := &as[base+j]
			a.cx, a.cy, a.w, a.h = cx+rng.Float32()*6, cy+rng.Float32()*6, 60+rng.Float32()*6, 80+rng.Float32()*6
			a.cls[k] = 0.3 + rng.Float32()*0.7
		}
	}
	return yoloV8(c, as)
}

// BenchmarkYOLOv8_84x8400 is boxes-yolo on a YOLOv8 640×640 output at
// score threshold 0.25 (IoU 0.45, at most 100 detections), the frame's
// candidates and objects in buffers the decoder reuses: the per-frame
// cost tensordecode adds. Target: under 0.5 ms a frame.
func BenchmarkYOLOv8_84x8400(b *testing.B) {
	out := yoloV8Frame()
	d, err := decode.New(decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.45, MaxDetections: 100})
	if err != nil {
		b.Fatal(err)
	}
	tr := decode.Letterbox(1280, 720, 640, 640)
	ts := []decode.Tensor{out}
	objs, err := d.Decode(ts, tr)
	if err != nil || len(objs) < 10 {
		b.Fatalf("%d objects, %v", len(objs), err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(out.Data)))
	for b.Loop() {
		if _, err := d.Decode(ts, tr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMapBoxes_640x640 is map-boxes on a 640×640 map with 50
// text-line-like regions.
func BenchmarkMapBoxes_640x640(b *testing.B) {
	const s = 640
	v := make([]float32, s*s)
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		x0, y0 := rng.IntN(s-100), rng.IntN(s-20)
		for y := y0; y < y0+12; y++ {
			for x := x0; x < x0+90; x++ {
				v[y*s+x] = 0.9
			}
		}
	}
	d, err := decode.New(decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.3, UnclipRatio: 1.5})
	if err != nil {
		b.Fatal(err)
	}
	ts := []decode.Tensor{f32("map", []int{1, 1, s, s}, v)}
	tr := decode.Identity(s, s)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Decode(ts, tr); err != nil {
			b.Fatal(err)
		}
	}
}

// After the first frame has sized its buffers, a decoder allocates
// nothing per frame, in any mode.
func TestDecodeAllocatesNothingPerFrame(t *testing.T) {
	h, w, m := parseMap("..9..", ".99..", ".....", "...8.")
	for _, c := range []struct {
		cfg decode.Config
		ts  []decode.Tensor
	}{
		{decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.45, Labels: []string{"x"}}, []decode.Tensor{yoloV8Frame()}},
		{decode.Config{Mode: decode.BoxesYOLO, ScoreThreshold: 0.25, IoUThreshold: 0.45}, []decode.Tensor{yoloV5(3, yoloScene)}},
		{decode.Config{Mode: decode.Classify, Softmax: true, TopK: 2}, []decode.Tensor{f32("s", []int{1, 5}, []float32{1, 3, 2, 3, -1})}},
		{decode.Config{Mode: decode.BoxesSSD, ScoreThreshold: 0.5}, []decode.Tensor{f32("boxes", []int{1, 4, 4}, ssdBoxes),
			f32("classes", []int{1, 4}, ssdClasses), f32("scores", []int{1, 4}, ssdScores), f32("count", []int{1}, []float32{4})}},
		{decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.5}, []decode.Tensor{f32("m", []int{1, 1, h, w}, m)}},
		{decode.Config{Mode: decode.CTC, Labels: []string{"京", "A", "1"}}, []decode.Tensor{steps(5, []int{1, 0, 2, 4, 3, 3}, nil)}},
	} {
		d := newDecoder(t, c.cfg)
		tr := decode.Letterbox(1280, 720, 640, 640)
		if _, err := d.Decode(c.ts, tr); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(20, func() { _, _ = d.Decode(c.ts, tr) }); n != 0 {
			t.Errorf("%v: %v allocations per frame", c.cfg.Mode, n)
		}
	}
}
