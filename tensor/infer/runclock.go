package infer

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// runClock times ONNX Runtime's runs. Every run's wall time is summed,
// from two reads of the monotonic clock only (time.Since(clockEpoch):
// one vDSO read each, about 66 ns the pair here, where time.Now and
// time.Since took 90: time.Now reads the wall clock too). Wall time is
// not what a run costs the machine: a run preempted on a loaded machine
// takes more wall time than CPU time. So some runs are also timed in the
// calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID). With one intra-op
// and one inter-op thread (the engine's default) and sequential
// execution, ONNX Runtime creates no thread pool and runs the whole
// model on the calling thread, so that thread's CPU time is the run's.
// With more intra-op threads the pool's share is not counted.
//
// Not every run: the kernel serves CLOCK_THREAD_CPUTIME_ID with a system
// call (the vDSO only has the wall clocks), about 1.7 µs a read on this
// project's VM — two reads a run would cost more than the element's whole
// budget outside a 60 µs run. A run is sampled when the runs since the
// last sample have taken cpuSamplePeriod of wall time or cpuSampleMax
// runs, whichever comes first: every run of a model that runs for 8 ms
// or more (the reads are then under 0.05 % of it), one in 128 of a
// 60 µs one (about 26 ns a frame; one in 64 cost 52). A sampled run's
// wall time is kept too: the system calls cost the run after them some
// cache and TLB state (a sampled run of the shipped model took 39 µs
// against 34 µs for the others in a pipeline), so what estimates all
// runs' CPU time is the sampled runs' CPU share of their wall time
// applied to every run's wall time.
//
// Each sample is the difference of two reads less the reads' own cost
// between their sampling points (the rest of the first system call and
// the start of the second), measured once per session as the least of a
// few back-to-back pairs.
type runClock struct {
	// guarded by the session's runMu
	untilSample int    // runs to go before the next sampled one
	timed       uint64 // runs timed (their wall time is in runNs)
	pairNs      int64  // what two back-to-back reads count of their own cost
}

const (
	cpuSamplePeriod = 8 * time.Millisecond
	cpuSampleMax    = 128
)

// clockEpoch is what the runs' wall time is read against: time.Since of
// it reads the monotonic clock alone.
var clockEpoch = time.Now()

// threadCPUNs is the calling thread's CPU time (user and system), in ns.
func threadCPUNs() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// calibrate measures pairNs and leaves the first run unsampled. Called
// once, before the first run.
func (c *runClock) calibrate() {
	c.untilSample = 1
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c.pairNs = -1
	for range 8 {
		t0 := threadCPUNs()
		d := threadCPUNs() - t0
		if c.pairNs < 0 || d < c.pairNs {
			c.pairNs = d
		}
	}
	c.pairNs = max(c.pairNs, 0)
}

// timeRun calls run and adds its wall time to the session's counters,
// and, when this run is sampled, its thread CPU time. The caller holds
// runMu.
func (s *Session) timeRun(run func() error) error {
	c := &s.clock
	c.timed++
	if c.untilSample > 0 {
		c.untilSample--
		t0 := time.Since(clockEpoch)
		err := run()
		s.stats.runNs.Add(uint64(time.Since(clockEpoch) - t0))
		return err
	}
	// The two reads must be on the thread that runs the model: a
	// goroutine is not tied to one between its cgo calls unless locked.
	runtime.LockOSThread()
	cpu0 := threadCPUNs()
	t0 := time.Since(clockEpoch)
	err := run()
	wall := time.Since(clockEpoch) - t0
	cpu := threadCPUNs() - cpu0 - c.pairNs
	runtime.UnlockOSThread()
	s.stats.runNs.Add(uint64(wall))
	s.stats.runCPUNs.Add(uint64(max(cpu, 0)))
	s.stats.runWallSampled.Add(uint64(wall))
	s.stats.runsCPUSampled.Add(1)
	// The runs left unsampled: those that fit in cpuSamplePeriod at the
	// mean run's wall time so far, at most cpuSampleMax.
	mean := max(s.stats.runNs.Load()/c.timed, 1)
	c.untilSample = int(min(uint64(cpuSamplePeriod)/mean, cpuSampleMax-1))
	return err
}
