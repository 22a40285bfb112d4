package tensorsrc

import (
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

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

// BenchmarkAppFrame measures one pattern=app frame into fakesink: the
// application's Acquire (waiting when it is ahead of the pipeline), a
// write of the frame's first byte and Push, and the frame the source
// makes of it. Per frame: the process's CPU time (rusage, every thread),
// its context switches (a Go thread woken, or the streaming thread
// waiting), and its Go allocations.
func BenchmarkAppFrame(b *testing.B) {
	p, srcEl := parse(b, "tensorsrc name=src pattern=app pool-size=4 ! video/x-raw,format=RGB,width=320,height=240 ! fakesink enable-last-sample=false")
	src, err := FromElement(srcEl)
	if err != nil {
		b.Fatal(err)
	}
	produced := make(chan error, 1)
	runtime.GC()
	var m0, m1 runtime.MemStats
	var r0, r1 syscall.Rusage
	runtime.ReadMemStats(&m0)
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	b.ResetTimer()
	go func() {
		ctx := context.Background()
		for i := range b.N {
			sl, err := src.Acquire(ctx)
			if err != nil {
				produced <- err
				return
			}
			sl.Bytes()[0] = byte(i)
			if err := src.Push(sl, -1); err != nil {
				produced <- err
				return
			}
		}
		produced <- src.EndOfStream()
	}()
	if ge := play(b, p); ge != nil {
		b.Fatal(ge.Message)
	}
	b.StopTimer()
	if err := <-produced; err != nil {
		b.Fatal(err)
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	runtime.ReadMemStats(&m1)
	stop(b, p)
	n := float64(b.N)
	cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/frame")
	b.ReportMetric(float64(r1.Nvcsw+r1.Nivcsw-r0.Nvcsw-r0.Nivcsw)/n, "ctxsw/frame")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/n, "allocs/frame")
}

// BenchmarkRingGrowth reports how many tensors the ring holds at the end
// of a run (pool-size=4, max-pool-size 64) in pipelines where create waits
// for a free slot for long: a sync sink behind a queue in PLAYING (the
// source outruns it: every frame waits ~33 ms), a sink whose every
// frame takes 300 ms (the first one too: a slow preroll), and a
// prerolled pipeline left PAUSED for 2 s with a queue in front of its
// sink. The ring grows only where a preroll waits in vain (grow.go): a
// ring that grew whenever no slot was free, as a GstBufferPool does, would
// hold what the queue holds (up to 1 s of frames: 30) in each.
func BenchmarkRingGrowth(b *testing.B) {
	caps := "video/x-raw,format=RGB,width=64,height=48,framerate=30/1"
	for _, c := range []struct {
		name, desc string
		paused     time.Duration // left PAUSED this long, then stopped
	}{
		{"playing-sync-sink", "tensorsrc name=src num-buffers=90 ! " + caps + " ! queue ! fakesink sync=true", 0},
		{"slow-sink-and-preroll", "tensorsrc name=src num-buffers=10 ! " + caps + " ! queue ! identity sleep-time=300000 ! fakesink sync=false", 0},
		{"paused-prerolled", "tensorsrc name=src ! " + caps + " ! queue ! fakesink sync=false", 2 * time.Second},
	} {
		b.Run(c.name, func(b *testing.B) {
			var ring, grown, waits float64
			for range b.N {
				p, src := parse(b, c.desc)
				if c.paused > 0 {
					if err := p.SetState(gst.StatePaused); err != nil {
						b.Fatal(err)
					}
					time.Sleep(c.paused)
				} else if ge := play(b, p); ge != nil {
					b.Fatal(ge.Message)
				}
				st := stats(b, src)
				stop(b, p)
				ring += float64(st["ring-size"].(uint64))
				grown += float64(st["pool-grown"].(uint64))
				waits += float64(st["waits-for-free-slot"].(uint64))
			}
			n := float64(b.N)
			b.ReportMetric(ring/n, "ring-tensors")
			b.ReportMetric(grown/n, "grown")
			b.ReportMetric(waits/n, "waits")
		})
	}
}
