package integration_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// BenchmarkPipelineFrame measures a whole frame, source to sink to the
// application's Release: Go allocations (go-gst's vfunc trampolines
// allocate wrappers; the project's own per-frame path does not), mmaps and
// sync bracket halves per frame. Compare the counts, not the times.
func BenchmarkPipelineFrame(b *testing.B) {
	for _, caps := range []string{
		"other/tensors,format=static,num_tensors=1,dimensions=3:224:224:1,types=uint8",
		"video/x-raw,format=RGBA,width=640,height=480",
	} {
		b.Run(caps[:13], func(b *testing.B) {
			n := max(b.N, 8)
			var before, after runtime.MemStats
			st0 := tensor.ReadStats()
			runtime.ReadMemStats(&before)
			_, s := play(b, fmt.Sprintf("tensorsrc num-buffers=%d pool-size=4 ! %s ! tensorpinsink name=sink sync=false", n, caps),
				func(f tensorpinsink.Frame) { f.Release() })
			runtime.ReadMemStats(&after)
			st1 := tensor.ReadStats()
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/frame")
			b.ReportMetric(float64(st1.Mmaps-st0.Mmaps)/float64(n), "mmaps/frame")
			b.ReportMetric(float64(s.Syncs)/float64(n), "sink-bracket-halves/frame")
			b.ReportMetric(float64(s.Copies)/float64(n), "copies/frame")
		})
	}
}
