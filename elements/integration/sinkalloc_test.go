package integration_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
)

// sinkAllocs counts the Go allocations recorded in the heap profile whose
// stack runs through the sink's calls into Go (its C frame's gstcGoSink*
// exports, go-gst's base-sink trampolines) but not through the source's
// go-gst event trampoline, which a frame's Release reaches synchronously
// when it sends GstTensorSync end upstream: those are the source's
// allocations.
func sinkAllocs() int64 {
	return profiledAllocs(func(funcs []string) bool {
		return anyContains(funcs, "gstcGoSink", "goGstBaseSink") && !anyContains(funcs, "goGstBaseSrc")
	})
}

// The sink's per-frame path allocates nothing in Go: render and the
// GstTensorSync begin events are the sink's C frame's. Runs of n and
// 4n frames must cost the sink the same allocations: only the per-stream
// ones (start, caps, importing the pool's slots, EOS). The cases:
// other/tensors and RGBA video from tensorsrc (which announces every frame
// with a begin event: each frame joins the source's bracket), and NV12 —
// two planes, each buffer carrying a GstVideoMeta read per frame plane by
// plane — from videotestsrc writing into the pool the sink proposes (the
// sink opens each frame's bracket itself).
func TestSinkPerFrameAllocationFree(t *testing.T) {
	if testing.Short() {
		t.Skip("heap profiling at rate 1")
	}
	for _, c := range []sinkAllocCase{
		{name: "tensors", planes: 1, joined: true,
			src: "tensorsrc num-buffers=%d pool-size=4 ! other/tensors,format=static,num_tensors=1,dimensions=3:32:32:1,types=uint8"},
		{name: "video-RGBA", planes: 1, joined: true,
			src: "tensorsrc num-buffers=%d pool-size=4 ! video/x-raw,format=RGBA,width=32,height=32"},
		{name: "video-NV12-two-planes", planes: 2, pool: true,
			src: "videotestsrc num-buffers=%d ! video/x-raw,format=NV12,width=32,height=32"},
	} {
		t.Run(c.name, func(t *testing.T) { sinkAllocationFree(t, c) })
	}
}

// sinkAllocCase is a producer of frames for the sink: src (with %d for the
// frame count), the planes each frame must have, and whether each frame
// joins the source's bracket (tensorsrc) or comes through the sink's
// proposed pool (no copy).
type sinkAllocCase struct {
	name, src    string
	planes       int
	joined, pool bool
}

func sinkAllocationFree(t *testing.T, c sinkAllocCase) {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()

	cost := func(frames int) int64 {
		var badPlanes atomic.Int64 // counted on the streaming thread: no allocation
		before := sinkAllocs()
		_, s := play(t, fmt.Sprintf(c.src+" ! tensorpinsink name=sink sync=false", frames),
			func(f tensorpinsink.Frame) {
				if f.Planes() != c.planes {
					badPlanes.Add(1)
				}
				f.Release()
			})
		after := sinkAllocs()
		if s.Frames != uint64(frames) {
			t.Fatalf("%d frames: %d delivered (stats %+v)", frames, s.Frames, s)
		}
		if n := badPlanes.Load(); n != 0 {
			t.Fatalf("%d frames: %d of them without %d planes", frames, n, c.planes)
		}
		if c.joined && s.BracketsJoined != uint64(frames) {
			t.Fatalf("%d frames: stats %+v; want every frame delivered in an adopted bracket", frames, s)
		}
		if c.pool && (s.PoolsProposed == 0 || s.Copies != 0) {
			t.Fatalf("%d frames: stats %+v; want the producer writing into the proposed pool, no copy", frames, s)
		}
		return after - before
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
