package tensorinfer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/preprocess"
)

// mean, std, scale and offset as gst-launch users write them, parsed by
// gst_parse_launch as gst-launch-1.0 and Gst.parse_launch hand them over:
// a plain list, GStreamer's array syntax in quotes, the same after the
// shell took the quotes away, with spaces (which gst-launch-1.0 passes
// on backslash-escaped: gst_parse_launchv's form of the shell word
// mean=<0.485, 0.456, 0.406>), with GStreamer's casts, and single
// numbers. Every output is the model's reference on the tensor the
// numbers make (and the property reads back what was written).
func TestTensorInferNormalisationSyntax(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.Means{NCHW: true, H: 24, W: 32, C: 3, Scale: 1}
	model := writeModel(t, "syntax.onnx", m.ONNX())
	imagenet := func(c *preprocess.Config) {
		c.Mean, c.Std = [3]float32{0.485, 0.456, 0.406}, [3]float32{0.229, 0.224, 0.225}
	}
	for _, tc := range []struct {
		name, props, readBack string
		cfg                   func(*preprocess.Config)
	}{
		{"plain list", "mean=0.485,0.456,0.406 std=0.229,0.224,0.225", "0.485,0.456,0.406", imagenet},
		{"array in quotes", `mean="<0.485,0.456,0.406>" std="<0.229,0.224,0.225>"`, "<0.485,0.456,0.406>", imagenet},
		{"array, quotes gone", "mean=<0.485,0.456,0.406> std=<0.229,0.224,0.225>", "<0.485,0.456,0.406>", imagenet},
		{"array with spaces in quotes", `mean="<0.485, 0.456, 0.406>" std="< 0.229 , 0.224 , 0.225 >"`, "<0.485, 0.456, 0.406>", imagenet},
		{"array with escaped spaces", `mean=<0.485,\ 0.456,\ 0.406> std=<0.229,\ 0.224,\ 0.225>`, "<0.485, 0.456, 0.406>", imagenet},
		{"array with casts", `mean="<(double)0.485, (double)0.456, (double)0.406>" std="<(float)0.229, (float)0.224, (float)0.225>"`,
			"<(double)0.485, (double)0.456, (double)0.406>", imagenet},
		{"single numbers", "mean=0.5 std=<0.25>", "0.5", func(c *preprocess.Config) {
			c.Mean, c.Std = [3]float32{0.5, 0.5, 0.5}, [3]float32{0.25, 0.25, 0.25}
		}},
		{"scale and offset", `scale="<0.5, 1, 2>" offset=-1`, "", func(c *preprocess.Config) {
			c.Scale, c.Offset = [3]float32{0.5, 1, 2}, [3]float32{-1, -1, -1}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := preprocess.Config{SrcFormat: preprocess.RGB, SrcWidth: 32, SrcHeight: 24, DstWidth: 32, DstHeight: 24,
				DstType: tensor.F32, DstLayout: preprocess.NCHW, ChannelOrder: preprocess.OrderRGB, Resize: preprocess.ResizeNone}
			tc.cfg(&cfg)
			plan, err := preprocess.NewPlan(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			desc := fmt.Sprintf("tensorsrc num-buffers=3 pattern=counter ! video/x-raw,format=RGB,width=32,height=24 ! "+
				"tensorinfer name=infer %s ort-library=%s model=%s ! fakesink", tc.props, lib, model)
			if tc.readBack != "" {
				p, err := gst.NewPipelineFromString(desc)
				if err != nil {
					t.Fatal(err)
				}
				e, _ := p.GetElementByName("infer")
				if v, err := e.GetProperty("mean"); err != nil || v != tc.readBack {
					t.Errorf("mean reads back %q (%v), want %q", v, err, tc.readBack)
				}
			}
			s, outs := runPreprocessed(t, desc, plan, m)
			if outs != 3 || s.Preprocessed != 3 {
				t.Errorf("%d outputs, stats %+v: want 3 frames pre-processed", outs, s)
			}
		})
	}
}

// A value that is neither one number nor three, in either syntax, is an
// error at the change to PAUSED naming the property and the value in
// words: no Go parser's text (it was `strconv.ParseFloat: parsing
// "<0.485": invalid syntax`, at the first caps).
func TestTensorInferNormalisationErrors(t *testing.T) {
	lib := infertest.Lib(t)
	model := writeModel(t, "syntaxerr.onnx", infertest.Means{NCHW: true, H: 24, W: 32, C: 3, Scale: 1}.ONNX())
	for _, tc := range []struct {
		props string
		want  []string
	}{
		{`mean="<0.485;0.456;0.406>"`, []string{`property mean="<0.485;0.456;0.406>"`, `"0.485;0.456;0.406" is not a number`}},
		{`std=<0.229,0.224>`, []string{`property std="<0.229,0.224>"`, "2 numbers", "one number (every colour) or three"}},
		{`scale="<0.5, 0.5, 0.5"`, []string{`property scale="<0.5, 0.5, 0.5"`, "must close with >"}},
		{`offset=red`, []string{`property offset="red"`, `"red" is not a number`}},
		{`mean="<>"`, []string{`property mean="<>"`, "no number"}},
	} {
		t.Run(tc.props, func(t *testing.T) {
			desc := fmt.Sprintf("tensorsrc num-buffers=3 pattern=counter ! video/x-raw,format=RGB,width=32,height=24 ! "+
				"tensorinfer name=infer %s ort-library=%s model=%s ! fakesink", tc.props, lib, model)
			r := runPipeline(t, desc, nil)
			if r.err == nil {
				t.Fatalf("no error; stats %+v", r.infer)
			}
			t.Logf("error: %s", r.err.Message)
			for _, w := range append(tc.want, "tensorinfer") {
				if !strings.Contains(r.err.Message, w) {
					t.Errorf("error %q does not say %q", r.err.Message, w)
				}
			}
			for _, parser := range []string{"strconv", "ParseFloat", "invalid syntax"} {
				if strings.Contains(r.err.Message, parser) {
					t.Errorf("error %q has the Go parser's text", r.err.Message)
				}
			}
			if r.infer.Frames != 0 {
				t.Errorf("stats %+v: frames ran", r.infer)
			}
		})
	}
}
