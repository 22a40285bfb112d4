package gstglue

import (
	"runtime"
	"testing"
	"time"
)

// A thread that keeps calling gstc_sched_tick yields, and at most once
// per period.
func TestSchedTickYieldsOncePerPeriod(t *testing.T) {
	type result struct {
		yields  int
		elapsed time.Duration
	}
	done := make(chan result)
	go func() {
		// One OS thread throughout: the period is per thread.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var r result
		start := time.Now()
		// Until the first yield: a gap of more than 2 ms between calls
		// (the thread preempted on a busy machine) restarts the period,
		// so how long that takes is not fixed; 10 s is ample.
		for r.yields == 0 && time.Since(start) < 10*time.Second {
			if schedTick() {
				r.yields++
			}
		}
		for time.Since(start) < 5*SchedTickPeriod {
			if schedTick() {
				r.yields++
			}
		}
		r.elapsed = time.Since(start) // at least the time from the first call to the last
		done <- r
	}()
	r := <-done
	if r.yields < 1 || r.yields > int(r.elapsed/SchedTickPeriod) {
		t.Fatalf("%d yields over %v of calls: want 1..%d (one per %v at most)", r.yields, r.elapsed, r.elapsed/SchedTickPeriod, SchedTickPeriod)
	}
}
