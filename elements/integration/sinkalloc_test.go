package integration_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
)

// sinkAllocs counts the Go allocations recorded in the heap profile whose
// stack runs through the sink's vfuncs (gstc's render and GstTensorSync
// trampolines, go-gst's base-sink trampolines) but not through the
// source's go-gst event trampoline, which a frame's Release reaches
// synchronously when it sends GstTensorSync end upstream: those are the
// source's allocations.
func sinkAllocs() int64 {
	return profiledAllocs(func(funcs []string) bool {
		return anyContains(funcs, "gstcGoBaseSink", "goGstBaseSink") && !anyContains(funcs, "goGstBaseSrc", "gstcGoBaseSrc")
	})
}

// The sink's per-frame path allocates nothing in Go: render and the
// GstTensorSync begin events go through gstc's trampolines. Runs of n and
// 4n frames from tensorsrc (which announces every frame with a begin
// event) must cost the sink the same allocations: only the per-stream
// ones (start, caps, importing the pool's slots, EOS).
func TestSinkPerFrameAllocationFree(t *testing.T) {
	if testing.Short() {
		t.Skip("heap profiling at rate 1")
	}
	// other/tensors, and video whose every buffer carries a GstVideoMeta
	// (read per frame, plane by plane) and an NV12 frame of two planes.
	for _, caps := range []string{
		"other/tensors,format=static,num_tensors=1,dimensions=3:32:32:1,types=uint8",
		"video/x-raw,format=RGBA,width=32,height=32",
	} {
		t.Run(caps[:13], func(t *testing.T) { sinkAllocationFree(t, caps) })
	}
}

func sinkAllocationFree(t *testing.T, caps string) {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()

	cost := func(frames int) int64 {
		before := sinkAllocs()
		_, s := play(t, fmt.Sprintf("tensorsrc num-buffers=%d pool-size=4 ! "+
			"%s ! tensorpinsink name=sink sync=false", frames, caps),
			func(f tensorpinsink.Frame) { f.Release() })
		if s.Frames != uint64(frames) || s.BracketsJoined != uint64(frames) {
			t.Fatalf("%d frames: stats %+v; want every frame delivered in an adopted bracket", frames, s)
		}
		return sinkAllocs() - before
	}
	const n = 250
	cost(n) // warm up: first-time type and class initialisation
	small, large := cost(n), cost(4*n)
	// The per-stream allocations (start, caps, EOS) run under the same
	// vfuncs: none at all means the markers no longer match the
	// trampolines' names and the count below would pass vacuously.
	if small == 0 {
		t.Fatal("no allocation found under the sink's vfuncs: were the trampolines renamed? update the markers")
	}
	perFrame := float64(large-small) / float64(3*n)
	t.Logf("sink allocations: %d for %d frames, %d for %d frames: %.3f per frame", small, n, large, 4*n, perFrame)
	// A wrapper per frame would be >= 1; allow for a stray sample.
	if perFrame > 0.05 {
		t.Errorf("the sink allocates %.2f Go objects per frame (%d for %d frames, %d for %d); want 0", perFrame, small, n, large, 4*n)
	}
}
