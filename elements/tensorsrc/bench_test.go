package tensorsrc

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// BenchmarkFrame measures one frame through tensorsrc ! fakesink: Go heap
// allocations (whole process: streaming thread, go-gst trampolines),
// mmaps and sync bracket halves per frame. Setup (caps, ring, pins) is
// amortised over b.N frames.
func BenchmarkFrame(b *testing.B) {
	for _, c := range []struct{ name, caps string }{
		{"64x48", "video/x-raw,format=RGB,width=64,height=48"},
		{"320x240", "video/x-raw,format=RGB,width=320,height=240"},
		{"tensor", "other/tensors,dimensions=(string)3:224:224:1,types=(string)uint8"},
	} {
		b.Run(c.name, func(b *testing.B) {
			desc := fmt.Sprintf("tensorsrc name=src num-buffers=%d pool-size=4 ! %s ! fakesink enable-last-sample=false", b.N, c.caps)
			p, _ := parse(b, desc)
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			s0 := tensor.ReadStats()
			b.ResetTimer()
			if ge := play(b, p); ge != nil {
				b.Fatal(ge.Message)
			}
			b.StopTimer()
			runtime.ReadMemStats(&m1)
			s1 := tensor.ReadStats()
			stop(b, p)
			n := float64(b.N)
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/n, "allocs/frame")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/n, "B/frame")
			b.ReportMetric(float64(s1.Mmaps-s0.Mmaps)/n, "mmaps/frame")
			b.ReportMetric(float64(s1.SyncStart-s0.SyncStart+s1.SyncEnd-s0.SyncEnd+s1.NoopSyncs-s0.NoopSyncs)/n, "syncs/frame")
		})
	}
}
