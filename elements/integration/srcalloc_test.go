package integration_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
)

// srcAllocs counts the Go allocations recorded in the heap profile whose
// stack runs through the source's Go vfuncs: go-gst's base-src and
// push-src trampolines (start, caps, the events tensorsrc's Event still
// handles). Its frame (create, the GstTensorSync end events, a memory's
// return) is C and calls no Go: were a Go call added to it, it would go
// through one of these or allocate under the sink's stack, which the
// sink's own test counts.
func srcAllocs() int64 {
	return profiledAllocs(func(funcs []string) bool {
		return anyContains(funcs, "goGstPushSrc", "goGstBaseSrc")
	})
}

// The source's per-frame path allocates nothing in Go: create (buffer,
// timestamps, video meta) and the GstTensorSync end events the sink sends
// upstream from each frame's Release are the source's C frame's. Runs
// of n and 4n frames must cost the source the same allocations: only the
// per-stream ones (start, caps, allocating and wrapping the ring, EOS).
func TestSourcePerFrameAllocationFree(t *testing.T) {
	if testing.Short() {
		t.Skip("heap profiling at rate 1")
	}
	for _, caps := range []string{
		"other/tensors,format=static,num_tensors=1,dimensions=3:32:32:1,types=uint8",
		"video/x-raw,format=RGBA,width=32,height=32", // with a GstVideoMeta on every buffer
	} {
		t.Run(caps[:13], func(t *testing.T) {
			old := runtime.MemProfileRate
			runtime.MemProfileRate = 1
			defer func() { runtime.MemProfileRate = old }()

			cost := func(frames int) int64 {
				before := srcAllocs()
				p, s := play(t, fmt.Sprintf("tensorsrc name=src num-buffers=%d pool-size=4 ! %s ! tensorpinsink name=sink sync=false",
					frames, caps), func(f tensorpinsink.Frame) { f.Release() })
				after := srcAllocs()
				if s.Frames != uint64(frames) || s.BracketsJoined != uint64(frames) {
					t.Fatalf("%d frames: sink stats %+v; want every frame delivered in the source's bracket", frames, s)
				}
				// Every frame's reader end event was counted, and every
				// bracket ended at the source.
				src, _ := p.GetElementByName("src")
				st, err := gstglue.GetStructureProperty(src, "stats")
				if err != nil {
					t.Fatal(err)
				}
				defer st.Free()
				for k, want := range map[string]uint64{"frames": uint64(frames), "reader-end-events": uint64(frames),
					"brackets-closed": uint64(frames), "brackets-ended-here": uint64(frames), "other-end-events": 0} {
					if v, err := st.GetValue(k); err != nil || fmt.Sprint(v) != fmt.Sprint(want) {
						t.Errorf("%d frames: source stats %s = %v (%v), want %d (all: %s)", frames, k, v, err, want, st)
					}
				}
				return after - before
			}
			const n = 250
			cost(n) // warm up: first-time type and class initialisation
			small, large := cost(n), cost(4*n)
			// The per-stream allocations (start, caps, EOS) run under the
			// markers' vfuncs: none at all means the markers no longer match
			// go-gst's names and the count below would pass vacuously.
			if small == 0 {
				t.Fatal("no allocation found under the source's vfuncs: were the trampolines renamed? update the markers")
			}
			perFrame := float64(large-small) / float64(3*n)
			t.Logf("source allocations: %d for %d frames, %d for %d frames: %.3f per frame", small, n, large, 4*n, perFrame)
			// A wrapper per frame would be >= 1; allow for a stray sample.
			if perFrame > 0.05 {
				t.Errorf("the source allocates %.2f Go objects per frame (%d for %d frames, %d for %d); want 0", perFrame, small, n, large, 4*n)
			}
		})
	}
}
