package tensorinfer_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// An NCHW float32 classifier declaring [? 3 ? ?] fed RGB video at two
// sizes: the free height and width are fixed through the HWC→CHW mapping
// the conversion uses (a 192×48 frame makes [1 3 48 192]), and every
// output equals the Go reference of its frame.
func TestTensorInferFreeHeightWidthNCHW(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.Means{NCHW: true, C: 3, Scale: 1.0 / 256, DynamicBatch: true, DynamicHW: true}
	model := writeModel(t, "classifier.onnx", m.ONNX())
	for _, size := range [][2]int{{192, 48}, {20, 36}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			var c checker
			mm := m
			mm.H, mm.W = h, w
			r := mustRun(t, fmt.Sprintf("tensorsrc num-buffers=6 pattern=counter ! video/x-raw,format=RGB,width=%d,height=%d ! "+
				"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", w, h, lib, model),
				func(f tensorpinsink.Frame) {
					c.frame(f, func(n int) [][]float64 {
						img := counter(n, w*h*3)
						return mm.Reference(func(y, x, ch int) float64 { return float64(img[(y*w+x)*3+ch]) })
					})
				})
			c.check(t, 6)
			if r.infer.Conversions == 0 {
				t.Errorf("stats %+v: uint8 HWC into float32 NCHW counted no conversion", r.infer)
			}
		})
	}
}

// mapOut is one output frame of a map model: its size and tensors.
type mapOut struct {
	w, h    int
	tensors [][]float32
}

// A text detector / segmenter shape: [? 3 ? ?] → [? 1 ? ?] and a second
// output at half the size. Fed RGB video at 320×320, then 640×480 in the
// same stream (a capsfilter changed while playing), its outputs take
// their sizes from ONNX Runtime for each input size, a new session and
// output ring come with the new caps, and every output equals the Go
// reference of its frame.
func TestTensorInferOutputsFollowInputSize(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.MapModel{Scale: 1.0 / 4, Pooled: true}
	model := writeModel(t, "map.onnx", m.ONNX())
	capsFor := func(w, h int) string {
		return fmt.Sprintf("video/x-raw,format=RGB,width=%d,height=%d,framerate=0/1", w, h)
	}
	p, err := gst.NewPipelineFromString(fmt.Sprintf("tensorsrc pattern=counter ! capsfilter name=cf caps=%s ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", capsFor(320, 320), lib, model))
	if err != nil {
		t.Fatal(err)
	}
	e, _ := p.GetElementByName("sink")
	sink, _ := tensorpinsink.FromElement(e)
	var mu sync.Mutex
	var outs []mapOut
	var problems []string
	got := make(chan struct{}, 64)
	sink.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		defer mu.Unlock()
		n := len(outs)
		o := mapOut{}
		for k := range f.Planes() {
			o.tensors = append(o.tensors, floats(f.PlaneBytes(k)))
		}
		// The map's size is the frame's: 320×320 (102400) or 640×480.
		switch len(o.tensors[0]) {
		case 320 * 320:
			o.w, o.h = 320, 320
		case 640 * 480:
			o.w, o.h = 640, 480
		default:
			problems = append(problems, fmt.Sprintf("output %d: map of %d values", n, len(o.tensors[0])))
		}
		if o.w > 0 {
			img := counter(n, o.w*o.h*3)
			want := m.Reference(o.h, o.w, func(y, x, c int) float64 { return float64(img[(y*o.w+x)*3+c]) })
			for k := range want {
				if k >= len(o.tensors) || len(o.tensors[k]) != len(want[k]) {
					problems = append(problems, fmt.Sprintf("output %d (%dx%d) tensor %d: wrong size", n, o.w, o.h, k))
					continue
				}
				for i := range want[k] {
					if !within(o.tensors[k][i], want[k][i]) {
						problems = append(problems, fmt.Sprintf("output %d (%dx%d) tensor %d value %d: %v, want %v",
							n, o.w, o.h, k, i, o.tensors[k][i], want[k][i]))
						break
					}
				}
			}
		}
		outs = append(outs, o)
		select {
		case got <- struct{}{}:
		default:
		}
	})
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(outs) }
	waitFor := func(n int, what string) {
		t.Helper()
		deadline := time.After(60 * time.Second)
		for count() < n {
			select {
			case <-got:
			case <-deadline:
				t.Fatalf("%d frames, want %d %s", count(), n, what)
			}
		}
	}
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	waitFor(3, "at 320×320")
	cf, _ := p.GetElementByName("cf")
	if err := cf.SetProperty("caps", gst.NewCapsFromString(capsFor(640, 480))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		last := outs[len(outs)-1]
		mu.Unlock()
		if last.w == 640 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no 640×480 output within 60 s of the caps change")
		}
		select {
		case <-got:
		case <-time.After(time.Second):
		}
	}
	waitFor(count()+3, "after the caps change")
	p.SetState(gst.StateNull)
	mu.Lock()
	defer mu.Unlock()
	reportProblems(t, problems)
	big := 0
	for n, o := range outs {
		if o.w == 640 {
			big++
		} else if big > 0 {
			t.Errorf("output %d is 320×320 after a 640×480 one", n)
		}
	}
	if big == 0 || big == len(outs) {
		t.Errorf("%d outputs, %d at 640×480: want both sizes", len(outs), big)
	}
}

// No capsfilter: the sink pad's caps come from the model, so tensorsrc,
// and videotestsrc through videoconvert and videoscale, negotiate the
// model's size and a format it takes, for an NHWC uint8 model (the
// shipped one), a fixed NCHW float32 one and one with free height and
// width (the producer's own size then).
func TestTensorInferNegotiatesFromTheModel(t *testing.T) {
	lib := infertest.Lib(t)
	shipped := infertest.RepoFile(t, infertest.ShippedModel)
	nchw := writeModel(t, "nchw.onnx", infertest.Means{NCHW: true, H: 24, W: 40, C: 3, Scale: 1}.ONNX())
	free := writeModel(t, "free.onnx", infertest.Means{NCHW: true, C: 3, Scale: 1, DynamicBatch: true, DynamicHW: true}.ONNX())
	for _, tc := range []struct {
		name, src, model string
		wantIn           string // in the caps tensorinfer's sink pad negotiated
	}{
		{"tensorsrc/shipped", "tensorsrc num-buffers=4", shipped, "width=(int)64, height=(int)64"},
		{"videotestsrc/shipped", "videotestsrc num-buffers=4 ! videoconvert ! videoscale", shipped, "width=(int)64, height=(int)64"},
		{"tensorsrc/nchw", "tensorsrc num-buffers=4", nchw, "width=(int)40, height=(int)24"},
		{"videotestsrc/nchw", "videotestsrc num-buffers=4 ! videoconvert ! videoscale", nchw, "width=(int)40, height=(int)24"},
		{"videotestsrc/free", "videotestsrc num-buffers=4 ! video/x-raw,width=48,height=32 ! videoconvert ! videoscale", free,
			"width=(int)48, height=(int)32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desc := fmt.Sprintf("%s ! tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", tc.src, lib, tc.model)
			p, err := gst.NewPipelineFromString(desc)
			if err != nil {
				t.Fatal(err)
			}
			ie, _ := p.GetElementByName("infer")
			pad := ie.GetStaticPad("sink")
			var mu sync.Mutex
			var caps string
			pad.AddProbe(gst.PadProbeTypeEventDownstream, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
				if ev := info.GetEvent(); ev != nil && ev.Type() == gst.EventTypeCaps {
					mu.Lock()
					caps = ev.ParseCaps().String()
					mu.Unlock()
				}
				return gst.PadProbeOK
			})
			r := runPipelineOf(t, p, desc, nil)
			if r.err != nil {
				t.Fatalf("pipeline error: %s (%s)", r.err.Message, r.err.Debug)
			}
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(caps, tc.wantIn) || !strings.HasPrefix(caps, "video/x-raw") {
				t.Errorf("negotiated %q, want video/x-raw with %s", caps, tc.wantIn)
			}
			if r.infer.Frames != 4 || r.sink.Frames != 4 {
				t.Errorf("%d frames run, %d delivered: want 4", r.infer.Frames, r.sink.Frames)
			}
		})
	}
}
