package integration_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

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

// BenchmarkSinkOwnCost measures, in one process, what tensorpinsink
// itself costs a frame at each frame size: tensorsrc pattern=none (it
// writes nothing, so the producer's cost does not grow with the frame)
// into tensorpinsink, each frame handed to an OnFrame callback that
// releases it, and into fakesink. cpu-ns/frame is the process's CPU
// (user+sys, every thread) over the frames; the sink's own cost at a size
// is the difference of the two (scripts/benchreport takes it, and the
// ratio 4K ÷ 360p: a zero-copy sink's cost must not grow with the frame).
// In-process and over b.N frames, it resolves the few µs a frame that
// separate processes, each with its own start-up noise, cannot. Run it
// with TENSORPIN_GST_LEAKS=0: the leaks tracer's bookkeeping of every
// buffer and event is not what a user's pipeline pays.
func BenchmarkSinkOwnCost(b *testing.B) {
	for _, sz := range []struct {
		name string
		w, h int
	}{{"360p", 640, 360}, {"1080p", 1920, 1080}, {"4K", 3840, 2160}} {
		for _, sink := range []string{"tensorpinsink", "fakesink"} {
			b.Run(sz.name+"/"+sink, func(b *testing.B) {
				n := max(b.N, 100)
				desc := fmt.Sprintf("tensorsrc num-buffers=%d pool-size=5 pattern=none ! video/x-raw,format=RGBA,width=%d,height=%d ! %s name=sink sync=false",
					n, sz.w, sz.h, sink)
				p, err := gst.NewPipelineFromString(desc)
				if err != nil {
					b.Fatal(err)
				}
				if sink == "tensorpinsink" {
					e, _ := p.GetElementByName("sink")
					k, err := tensorpinsink.FromElement(e)
					if err != nil {
						b.Fatal(err)
					}
					k.OnFrame(func(f tensorpinsink.Frame) { f.Release() })
				}
				cpu0 := processCPU(b)
				b.ResetTimer()
				p.SetState(gst.StatePlaying)
				msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(5*time.Minute), gst.MessageEOS|gst.MessageError)
				b.StopTimer()
				cpu1 := processCPU(b)
				p.SetState(gst.StateNull)
				runtime.KeepAlive(p)
				if msg == nil || msg.Type() != gst.MessageEOS {
					b.Fatalf("%s: no EOS (%v)", desc, msg)
				}
				b.ReportMetric(float64(cpu1-cpu0)/float64(n), "cpu-ns/frame")
			})
		}
	}
}

// processCPU is the process's user+sys CPU time so far, in ns.
func processCPU(b *testing.B) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
