package infer_test

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// The run's CPU time is sampled: not the first run (ONNX Runtime's set-up),
// the second, then one in up to 128
// (fewer runs between samples when runs are long), and never more CPU
// per sampled run than its wall time allows. With the engine's default
// options (one intra-op thread) the calling thread does the whole run:
// over 2000 runs its CPU time is most of the process's, which it would
// not be if ONNX Runtime handed the work to a thread pool.
func TestInferRunCPUTimeIsSampledOnTheCallingThread(t *testing.T) {
	e := load(t)
	s, err := e.NewSession(infertest.RepoFile(t, infertest.ShippedModel), infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, s)
	bindFirstSlots(t, s)
	for run := 1; run <= 2; run++ {
		if err := s.Run(0, 0); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.RunsCPUSampled != uint64(run-1) || (run == 2) != (st.RunCPUNsSampled > 0) {
			t.Fatalf("after run %d: stats %+v, want %d runs sampled in CPU time", run, st, run-1)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The collector's work left by earlier tests would count in the
	// process's CPU time: done before, not during, the runs.
	runtime.GC()
	before := s.Stats()
	thread0, proc0 := rusageNs(t, unix.RUSAGE_THREAD), rusageNs(t, unix.RUSAGE_SELF)
	const runs = 2000
	lastYield := time.Now()
	for range runs {
		if err := s.Run(0, 0); err != nil {
			t.Fatal(err)
		}
		// A locked thread that stays in cgo calls for more than 10 ms
		// makes Go's sysmon take its P and poll every 20 µs (see frameengine's
		// schedtick.go): up to a third of the process's CPU here, in
		// sysmon's thread. Yielding now and then lets the P's tick
		// advance, as the elements' streaming threads do.
		if time.Since(lastYield) > 4*time.Millisecond {
			runtime.Gosched()
			lastYield = time.Now()
		}
	}
	thread, proc := rusageNs(t, unix.RUSAGE_THREAD)-thread0, rusageNs(t, unix.RUSAGE_SELF)-proc0
	st := s.Stats()
	samples := st.RunsCPUSampled - before.RunsCPUSampled
	wallPerRun := (st.RunNsTotal - before.RunNsTotal) / runs
	t.Logf("%d runs: %d sampled in CPU time, %d ns CPU per sampled run, %d ns wall per run; calling thread %d of the process's %d µs CPU",
		runs, samples, (st.RunCPUNsSampled-before.RunCPUNsSampled)/max(samples, 1), wallPerRun, thread/1000, proc/1000)
	if samples < runs/128 || samples > runs {
		t.Errorf("%d of %d runs sampled, want between 1 in 128 and all", samples, runs)
	}
	if thread < proc*7/10 {
		t.Errorf("the calling thread used %d of the process's %d µs CPU over %d runs: the run is not on the calling thread", thread/1000, proc/1000, runs)
	}
}

func rusageNs(t *testing.T, who int) int64 {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
