package tensorinfer_test

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/preprocess"
)

// Pre-processing inside tensorinfer: frames of another size and format
// (RGBx, NV12, I420) go through the fused pass (letterbox or stretch,
// channel order, mean/std) into a float32 NCHW model 32×24; every output
// equals the model's Go reference computed on the tensor package
// preprocess makes from the same frame (the pass itself is checked
// against an independent reference in its own package), the frames'
// memory is never bound as the model's input, and the counters say what
// ran. With output=video the meta's transform is the letterbox's.
func TestTensorInferPreprocess(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.Means{NCHW: true, H: 24, W: 32, C: 3, Scale: 1}
	model := writeModel(t, "nchw.onnx", m.ONNX())
	for _, tc := range []struct {
		name, src, format string
		w, h              int
		props             string
		cfg               func(*preprocess.Config)
	}{
		{"rgbx-letterbox", "tensorsrc pattern=counter", "RGBx", 64, 64, "resize=letterbox pad-value=114 mean=0.485,0.456,0.406 std=0.229,0.224,0.225",
			func(c *preprocess.Config) {
				c.Resize, c.PadValue = preprocess.ResizeLetterbox, 114
				c.Mean, c.Std = [3]float32{0.485, 0.456, 0.406}, [3]float32{0.229, 0.224, 0.225}
			}},
		{"bgr-order-stretch", "tensorsrc pattern=counter", "RGB", 40, 20, "resize=stretch channel-order=bgr",
			func(c *preprocess.Config) {
				c.Resize, c.ChannelOrder = preprocess.ResizeStretch, preprocess.OrderBGR
				c.Scale = [3]float32{1.0 / 255, 1.0 / 255, 1.0 / 255}
			}},
		{"nv12-letterbox", "videotestsrc pattern=smpte", "NV12", 96, 50, "resize=letterbox",
			func(c *preprocess.Config) {
				c.Resize = preprocess.ResizeLetterbox
				c.Scale = [3]float32{1.0 / 255, 1.0 / 255, 1.0 / 255}
			}},
		{"i420-none-scale", "videotestsrc pattern=ball", "I420", 32, 24, "scale=0.5 offset=-1",
			func(c *preprocess.Config) {
				c.Resize = preprocess.ResizeNone
				c.Scale, c.Offset = [3]float32{0.5, 0.5, 0.5}, [3]float32{-1, -1, -1}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const frames = 5
			cfg := preprocess.Config{SrcFormat: preprocess.Format(tc.format), SrcWidth: tc.w, SrcHeight: tc.h,
				DstWidth: 32, DstHeight: 24, DstType: tensor.F32, DstLayout: preprocess.NCHW, ChannelOrder: preprocess.OrderRGB}
			tc.cfg(&cfg)
			plan, err := preprocess.NewPlan(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			desc := fmt.Sprintf("%s num-buffers=%d ! video/x-raw,format=%s,width=%d,height=%d ! tensorinfer name=infer %s ort-library=%s model=%s ! fakesink",
				tc.src, frames, tc.format, tc.w, tc.h, tc.props, lib, model)
			s, outs := runPreprocessed(t, desc, plan, m)
			if outs != frames || s.Preprocessed != frames || s.PreprocessNsTotal == 0 || s.InputBinds != 1 {
				t.Errorf("%d outputs, stats %+v: want %d frames pre-processed, one input bound (the model's own)", outs, s, frames)
			}
			// The pass runs in the frame engine: Go is called once per
			// new memory (its pin), not per frame.
			// Every format comes in pinned memory (the pool the element
			// proposes, or tensorsrc's own): no copy, NV12 and I420 too.
			if s.Copies != 0 {
				t.Errorf("stats %+v: %d inputs copied; want none", s, s.Copies)
			}
			if s.SteadyFrames+s.Misses < frames {
				t.Errorf("stats %+v: %d frames made with no call into Go, %d new memories; want every frame but each memory's first", s, s.SteadyFrames, s.Misses)
			}
		})
	}
}

// output=video with a letterbox: the meta's transform is the letterbox's
// (64×32 into 32×24: half size, 4 rows of padding above), so a decoder
// maps model coordinates back to the frame.
func TestTensorInferPreprocessVideoTransform(t *testing.T) {
	lib := infertest.Lib(t)
	model := writeModel(t, "nchw.onnx", infertest.Means{NCHW: true, H: 24, W: 32, C: 3, Scale: 1}.ONNX())
	var got []tensormeta.Transform
	desc := fmt.Sprintf("tensorsrc num-buffers=3 pattern=counter ! video/x-raw,format=RGBx,width=64,height=32 ! "+
		"tensorinfer name=infer output=video resize=letterbox ort-library=%s model=%s ! fakesink", lib, model)
	videoRun(t, desc, func(gstglue.RawBuffer) {}, func(b gstglue.RawBuffer) {
		if m, ok := tensormeta.ReadRaw(b); ok {
			got = append(got, m.Transform)
			gstglue.UnrefRawBuffer(m.Tensors)
		}
	})
	want := tensormeta.Transform{ModelWidth: 32, ModelHeight: 24, ScaleX: 0.5, ScaleY: 0.5, OffsetY: 4}
	if len(got) != 3 {
		t.Fatalf("%d metas, want 3", len(got))
	}
	for _, tr := range got {
		if tr != want {
			t.Errorf("transform %+v, want %+v", tr, want)
		}
	}
}

// A .modelinfo file beside the model (GStreamer 1.28's format) turns the
// pass on with its normalisation — ranges -1..1 are scale 2/255, offset
// -1 — and a normalisation property overrides it.
func TestTensorInferPreprocessModelInfo(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.Means{NCHW: true, H: 24, W: 32, C: 3, Scale: 1}
	model := writeModel(t, "nchw.onnx", m.ONNX())
	info := "[image]\ndir=input\ntype=float32\ndims=1,3,24,32\nranges=-1.0,1.0\n[modelinfo]\nversion=1.0\n"
	if err := os.WriteFile(model+".modelinfo", []byte(info), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, props   string
		scale, offset float32
	}{
		{"from the file", "", 2.0 / 255, -1},
		{"scale property overrides it", "scale=1", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := preprocess.NewPlan(preprocess.Config{SrcFormat: preprocess.RGB, SrcWidth: 32, SrcHeight: 24,
				DstWidth: 32, DstHeight: 24, DstType: tensor.F32, DstLayout: preprocess.NCHW, ChannelOrder: preprocess.OrderRGB,
				Resize: preprocess.ResizeNone, Scale: [3]float32{tc.scale, tc.scale, tc.scale}, Offset: [3]float32{tc.offset, tc.offset, tc.offset}})
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			desc := fmt.Sprintf("tensorsrc num-buffers=4 pattern=counter ! video/x-raw,format=RGB,width=32,height=24 ! "+
				"tensorinfer name=infer %s ort-library=%s model=%s ! fakesink", tc.props, lib, model)
			s, outs := runPreprocessed(t, desc, plan, m)
			if outs != 4 || s.Preprocessed != 4 {
				t.Errorf("%d outputs; stats %+v", outs, s)
			}
		})
	}
}

// runPreprocessed plays desc (tensorinfer named infer, the model m, a
// 32×24 NCHW Means) and checks every output against m's reference on the
// tensor plan makes from that frame's bytes, failing t on a mismatch; it
// returns the stats and how many outputs it checked.
func runPreprocessed(t *testing.T, desc string, plan *preprocess.Plan, m infertest.Means) (tensorinfer.Stats, int) {
	t.Helper()
	var mu sync.Mutex
	inputs := map[uint64][]byte{}
	var problems []string
	outs := 0
	s := videoRun(t, desc, func(b gstglue.RawBuffer) {
		buf := make([]byte, plan.SrcSize())
		gstglue.ExtractBuffer(b, buf)
		mu.Lock()
		inputs[gstglue.BufferPTS(b)] = buf
		mu.Unlock()
	}, func(b gstglue.RawBuffer) {
		mu.Lock()
		defer mu.Unlock()
		outs++
		got := make([]byte, 12)
		gstglue.ExtractBuffer(b, got)
		dst := make([]byte, plan.DstSize())
		if err := plan.Run(dst, inputs[gstglue.BufferPTS(b)]); err != nil {
			problems = append(problems, err.Error())
			return
		}
		img := floats(dst)
		want := m.Reference(func(y, x, c int) float64 { return float64(img[(c*m.H+y)*m.W+x]) })[0]
		for i, v := range floats(got) {
			if !within(v, want[i]) {
				problems = append(problems, fmt.Sprintf("frame at %d: scores %v, want %v", gstglue.BufferPTS(b), floats(got), want))
				break
			}
		}
	})
	mu.Lock()
	defer mu.Unlock()
	reportProblems(t, problems)
	return s, outs
}
