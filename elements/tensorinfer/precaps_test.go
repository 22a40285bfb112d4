package tensorinfer_test

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/preprocess"
)

// Pre-processing through caps changes (appsrc's caps set before each
// frame, in a cycle of RGBx 64×48, NV12 40×30 and RGB 16×16, letterboxed
// into the model's 32×24): each change makes the pass for the new frames,
// and every output is the model's reference of its own frame as package
// preprocess's plan for that format and size writes it; fds and memfd
// mappings stay bounded.
func TestTensorInferPreprocessCapsChanges(t *testing.T) {
	const changes = 60
	lib := infertest.Lib(t)
	m := infertest.Means{NCHW: true, H: 24, W: 32, C: 3, Scale: 1}
	model := writeModel(t, "precaps.onnx", m.ONNX())
	type form struct {
		format string
		w, h   int
	}
	forms := []form{{"RGBx", 64, 48}, {"NV12", 40, 30}, {"RGB", 16, 16}}
	plans := make([]*preprocess.Plan, len(forms))
	for i, f := range forms {
		p, err := preprocess.NewPlan(preprocess.Config{SrcFormat: preprocess.Format(f.format), SrcWidth: f.w, SrcHeight: f.h,
			DstWidth: m.W, DstHeight: m.H, DstType: tensor.F32, DstLayout: preprocess.NCHW, ChannelOrder: preprocess.OrderRGB,
			Resize: preprocess.ResizeLetterbox, PadValue: 114, Scale: [3]float32{1.0 / 255, 1.0 / 255, 1.0 / 255}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		plans[i] = p
	}
	frameOf := func(i int) []byte { return counter(i, plans[i%len(forms)].SrcSize()) }
	desc := fmt.Sprintf("appsrc name=src format=time block=true max-bytes=65536 ! "+
		"tensorinfer name=infer resize=letterbox pad-value=114 ort-library=%s model=%s ! tensorpinsink name=sink sync=false", lib, model)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	se, _ := p.GetElementByName("src")
	src := app.SrcFromElement(se)
	fds0, maps0 := openMappings(t)
	var mu sync.Mutex
	var problems []string
	var n atomic.Int64
	onFrame := func(f tensorpinsink.Frame) {
		defer f.Release()
		k := int(n.Add(1)) - 1
		dst := make([]byte, plans[k%len(forms)].DstSize())
		if err := plans[k%len(forms)].Run(dst, frameOf(k)); err != nil {
			mu.Lock()
			problems = append(problems, err.Error())
			mu.Unlock()
			return
		}
		img := floats(dst)
		want := m.Reference(func(y, x, c int) float64 { return float64(img[(c*m.H+y)*m.W+x]) })[0]
		for c, g := range floats(f.PlaneBytes(0)) {
			if !within(g, want[c]) {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("frame %d (%v): scores %v, want %v", k, forms[k%len(forms)], floats(f.PlaneBytes(0)), want))
				mu.Unlock()
				return
			}
		}
	}
	maxFds, maxMaps := 0, 0
	go func() {
		defer src.EndStream()
		for i := range changes {
			for int(n.Load()) < i { // one frame in the element at a time
				time.Sleep(50 * time.Microsecond)
			}
			fds, maps := openMappings(t)
			mu.Lock()
			maxFds, maxMaps = max(maxFds, fds-fds0), max(maxMaps, maps-maps0)
			mu.Unlock()
			f := forms[i%len(forms)]
			caps := gst.NewCapsFromString(fmt.Sprintf("video/x-raw,format=%s,width=%d,height=%d,framerate=0/1", f.format, f.w, f.h))
			src.SetCaps(caps)
			gstglue.ReleaseCaps(caps)
			if !pushNewMemfd(t, src, frameOf(i), time.Duration(i)*time.Millisecond) {
				return
			}
		}
	}()
	r := runPipelineOf(t, p, desc, onFrame)
	runtime.KeepAlive(p)
	if r.err != nil {
		t.Fatal(r.err.Message)
	}
	mu.Lock()
	defer mu.Unlock()
	reportProblems(t, problems)
	if n.Load() != changes || r.infer.Preprocessed != changes {
		t.Errorf("%d frames, stats %+v: want %d pre-processed", n.Load(), r.infer, changes)
	}
	t.Logf("%d caps changes: fds at most +%d, memfd mappings at most +%d", changes, maxFds, maxMaps)
	if maxFds > 24 || maxMaps > 24 {
		t.Errorf("fds grew by up to %d and memfd mappings by up to %d over %d caps changes: want them bounded", maxFds, maxMaps, changes)
	}
}
