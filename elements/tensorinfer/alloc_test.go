package tensorinfer_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// inferAllocs counts the Go allocations in the heap profile whose stack
// runs through tensorinfer's calls from its C frame into Go (its
// gstcGoInfer* exports: input, run, per-frame run, sink event).
func inferAllocs() int64 {
	for range 3 {
		runtime.GC()
	}
	n, _ := runtime.MemProfile(nil, true)
	recs := make([]runtime.MemProfileRecord, n+256)
	n, _ = runtime.MemProfile(recs, true)
	var total int64
	for _, r := range recs[:n] {
		frames := runtime.CallersFrames(r.Stack())
		for {
			f, more := frames.Next()
			if strings.Contains(f.Function, "gstcGoInfer") {
				total += r.AllocObjects
				break
			}
			if !more {
				break
			}
		}
	}
	return total
}

// tensorinfer's per-frame path allocates nothing in Go: runs of n and 4n
// frames cost the same allocations under its trampolines (only the first
// bind of each input slot allocates). Two pipelines: the shipped model
// from tensorsrc (its frames are steady: done in C) and a float32 model
// fed uint8 video (converted before every run: every frame runs in Go).
func TestTensorInferPerFrameAllocationFree(t *testing.T) {
	if testing.Short() {
		t.Skip("heap profiling at rate 1")
	}
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	m := infertest.Means{NCHW: true, H: 16, W: 16, C: 3, Scale: 1.0 / 256}
	converted := writeModel(t, "means.onnx", m.ONNX())
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	for _, c := range []struct{ name, caps, model string }{
		{"steady", "other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8", model},
		{"converted", "video/x-raw,format=RGB,width=16,height=16", converted},
	} {
		cost := func(frames int) (int64, tensorinfer.Stats) {
			before := inferAllocs()
			r := mustRun(t, fmt.Sprintf("tensorsrc num-buffers=%d pool-size=4 ! %s ! "+
				"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", frames, c.caps, lib, c.model),
				func(f tensorpinsink.Frame) { f.Release() })
			if r.infer.Frames != uint64(frames) {
				t.Fatalf("%s, %d frames: stats %+v", c.name, frames, r.infer)
			}
			return inferAllocs() - before, r.infer
		}
		const n = 250
		cost(n)
		small, _ := cost(n)
		large, s := cost(4 * n)
		if small == 0 {
			t.Fatalf("%s: no allocation found under tensorinfer's trampolines (the first binds allocate): were they renamed? update the marker", c.name)
		}
		if c.name == "converted" && s.SteadyFrames != 0 {
			t.Fatalf("%s: %d steady frames; want every frame run in Go (converted)", c.name, s.SteadyFrames)
		}
		perFrame := float64(large-small) / float64(3*n)
		t.Logf("%s: tensorinfer allocations: %d for %d frames, %d for %d frames: %.3f per frame", c.name, small, n, large, 4*n, perFrame)
		if perFrame > 0.05 {
			t.Errorf("%s: tensorinfer allocates %.2f Go objects per frame (%d for %d frames, %d for %d); want 0", c.name, perFrame, small, n, large, 4*n)
		}
	}
}
