package tensorinfer_test

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// Pre-processing converts NV12 and I420 with the caps' colorimetry —
// their matrix and range, or GStreamer's defaults for the size when they
// name none — as the model sees it: one pixel, Y'CbCr (60, 100, 200),
// fills every frame, and a model averaging each channel in pixel units
// (scale=1) gives back its R, G, B. Each must be the standard's value
// (published coefficients, written out below) rounded to the nearest,
// within the pass's fixed-point error (tensor/preprocess: 0.563).
// Full-range BT.601 is what jpegdec gives, so every MJPEG camera; it was
// fed as (166, 4, 0), BT.601 limited range's answer, whatever the caps
// said.
func TestTensorInferPreprocessColorimetry(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.Means{NCHW: true, H: 24, W: 32, C: 3, Scale: 1}
	model := writeModel(t, "colour.onnx", m.ONNX())
	const y, u, v = 60, 100, 200
	// Limited range: Y = 1.164384 (Y'-16); full range: Y = Y'.
	bt601Limited := [3]float64{1.164384*44 + 1.596027*72, 1.164384*44 + 0.391762*28 - 0.812968*72, 1.164384*44 - 2.017232*28}
	bt709Limited := [3]float64{1.164384*44 + 1.792741*72, 1.164384*44 + 0.213249*28 - 0.532909*72, 1.164384*44 - 2.112402*28}
	bt601Full := [3]float64{60 + 1.402*72, 60 + 0.344136*28 - 0.714136*72, 60 - 1.772*28}
	bt709Full := [3]float64{60 + 1.5748*72, 60 + 0.187324*28 - 0.468124*72, 60 - 1.8556*28}
	for _, c := range []struct {
		name, format string
		w, h         int
		colorimetry  string
		want         [3]float64
	}{
		{"jpeg-full-range", "I420", 64, 48, "1:4:0:0", bt601Full},
		{"hd-default-bt709", "NV12", 1280, 720, "", bt709Limited},
		{"sd-default-bt601", "I420", 640, 480, "", bt601Limited},
		{"bt709-named", "NV12", 64, 48, "bt709", bt709Limited},
		{"bt709-full-range", "NV12", 64, 48, "1:3:5:1", bt709Full},
	} {
		t.Run(c.name, func(t *testing.T) {
			caps := fmt.Sprintf("video/x-raw,format=%s,width=%d,height=%d,framerate=0/1", c.format, c.w, c.h)
			if c.colorimetry != "" {
				caps += ",colorimetry=" + c.colorimetry
			}
			desc := fmt.Sprintf("appsrc name=src format=time caps=\"%s\" ! tensorinfer name=infer resize=stretch scale=1 "+
				"ort-library=%s model=%s ! tensorpinsink name=sink sync=false", caps, lib, model)
			p, err := gst.NewPipelineFromString(desc)
			if err != nil {
				t.Fatal(err)
			}
			se, _ := p.GetElementByName("src")
			src := app.SrcFromElement(se)
			// Tight planes (the sizes are multiples of 8): luma, then
			// NV12's interleaved U, V or I420's U plane and V plane.
			luma, chroma := c.w*c.h, c.w*c.h/4
			frame := make([]byte, luma+2*chroma)
			for i := range frame {
				switch {
				case i < luma:
					frame[i] = y
				case c.format == "NV12" && (i-luma)%2 == 0, c.format == "I420" && i < luma+chroma:
					frame[i] = u
				default:
					frame[i] = v
				}
			}
			const frames = 2
			go func() {
				defer src.EndStream()
				for i := range frames {
					if !pushNewMemfd(t, src, frame, time.Duration(i)*time.Millisecond) {
						return
					}
				}
			}()
			var mu sync.Mutex
			var got [][]float32
			r := runPipelineOf(t, p, desc, func(f tensorpinsink.Frame) {
				defer f.Release()
				mu.Lock()
				got = append(got, append([]float32(nil), floats(f.PlaneBytes(0))...))
				mu.Unlock()
			})
			if r.err != nil {
				t.Fatal(r.err.Message)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != frames || r.infer.Preprocessed != frames {
				t.Fatalf("%d outputs, stats %+v: want %d frames pre-processed", len(got), r.infer, frames)
			}
			for _, g := range got {
				for i := range 3 {
					w := math.Min(math.Max(c.want[i], 0), 255)
					if math.Abs(float64(g[i])-w) > 0.563 || g[i] != float32(math.Round(float64(g[i]))) {
						t.Fatalf("%s: Y'CbCr (%d,%d,%d) reached the model as RGB %v; the standard says (%.1f, %.1f, %.1f)",
							caps, y, u, v, g, c.want[0], c.want[1], c.want[2])
					}
				}
			}
			t.Logf("%s: RGB %v (the standard: %.2f, %.2f, %.2f)", caps, got[0], c.want[0], c.want[1], c.want[2])
		})
	}
}
