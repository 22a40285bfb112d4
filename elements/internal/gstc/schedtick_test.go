package gstc

import (
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
)

// A thread that keeps calling gstc_sched_tick yields once per period at
// most, and at least once once a period has passed since its first call.
func TestSchedTickYieldsOncePerPeriod(t *testing.T) {
	done := make(chan [2]uint64)
	go func() {
		// One OS thread throughout: the period is per thread.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		start := time.Now()
		schedTick() // starts this thread's period (or yields, if it has run before)
		before := schedYields.Load()
		afterFirst := time.Now()
		for {
			// The last call is made at least 5 periods after the first.
			late := time.Since(afterFirst) >= 5*schedTickPeriod
			schedTick()
			if late {
				break
			}
		}
		last := time.Since(start) // at least the time between the first call and the last
		done <- [2]uint64{schedYields.Load() - before, uint64(last)}
	}()
	r := <-done
	yields, elapsed := r[0], time.Duration(r[1])
	if yields < 1 || yields > uint64(elapsed/schedTickPeriod) {
		t.Fatalf("%d yields over %v of calls: want 1..%d (one per %v at most)", yields, elapsed, elapsed/schedTickPeriod, schedTickPeriod)
	}
}

// A GStreamer streaming thread that calls into Go for every frame (here
// the test source's create) yields through the trampoline.
func TestSchedTickOnStreamingThread(t *testing.T) {
	checkFds(t)
	defer setupSrc(t, 0, 0)()
	p, err := gst.NewPipelineFromString("gstctestsrc num-buffers=-1 ! fakesink sync=false")
	if err != nil {
		t.Fatal(err)
	}
	before := schedYields.Load()
	p.SetState(gst.StatePlaying)
	deadline := time.Now().Add(10 * time.Second)
	for schedYields.Load() == before && time.Now().Before(deadline) {
		time.Sleep(schedTickPeriod)
	}
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p)
	if schedYields.Load() == before {
		t.Fatal("the streaming thread never yielded to Go's scheduler in 10 s of frames")
	}
}
