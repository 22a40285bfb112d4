// Package gsttest is the TestMain of the element packages: GStreamer
// initialised under its leaks tracer, the elements registered statically,
// and a run that fails if the tests leaked fds, fd-backed mappings or
// GStreamer objects (buffers, memories, events, caps, pads, elements).
//
// Main's check runs Go's collector until nothing changes before it asks
// the tracer, so it cannot see a reference an element handed to a go-gst
// wrapper and never gave back: the wrapper's finalizer gives it back
// then. A C or Python process seldom runs the plugin's collector, and
// keeps such objects alive. The package's own test TestNullCyclesLeakNothing
// (nullcycles_test.go) covers that: every element's pipeline through 1
// and 5 NULL→PLAYING→NULL cycles, in a C program (testdata/nullcycles.c)
// that loads the real libgsttensorpin.so through GST_PLUGIN_PATH with the
// leaks tracer on and the plugin's collector off (GOGC=off); an object
// alive after the cycles that was not before fails it. A new element adds
// a row to its table, nullCycleCases.
package gsttest

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
)

// LeaksEnv turns the leaks tracer off when set to "0"; a GST_TRACERS
// already set is kept.
const LeaksEnv = "TENSORPIN_GST_LEAKS"

// Main initialises GStreamer (with GST_TRACERS=leaks), calls register,
// warms up what GStreamer opens once per process (system clock, task
// pool), runs the tests and exits, failing on leaks.
func Main(m *testing.M, register func() bool) {
	tracer := os.Getenv(LeaksEnv) != "0"
	if tracer && os.Getenv("GST_TRACERS") == "" {
		os.Setenv("GST_TRACERS", "leaks")
	}
	gst.Init(nil)
	if !register() {
		fmt.Fprintln(os.Stderr, "gsttest: cannot register the elements")
		os.Exit(1)
	}
	warm, err := gst.NewPipelineFromString("fakesrc num-buffers=1 ! queue ! fakesink sync=true")
	if err != nil {
		panic(err)
	}
	warm.SetState(gst.StatePlaying)
	warm.GetPipelineBus().TimedPopFiltered(gst.ClockTime(5*time.Second), gst.MessageEOS|gst.MessageError)
	warm.SetState(gst.StateNull)
	runtime.GC()

	base := pintest.Take()
	code := m.Run()
	if code == 0 {
		if leaks := base.Leaks(); leaks != "" { // runs the GC until settled
			fmt.Fprintf(os.Stderr, "FAIL: resources leaked by the tests: %s\n", leaks)
			code = 1
		}
	}
	if code == 0 && tracer {
		if objs := liveObjects(); len(objs) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: leaks tracer: %d GStreamer object(s) alive after the tests:\n  %s\n",
				len(objs), strings.Join(objs, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}

// liveObjects lists the GStreamer objects the leaks tracer sees alive, once
// go-gst's finalizers have dropped their references, except the element
// factories that registration added after the tracer started (they live as
// long as the registry).
func liveObjects() []string {
	var objs []string
	for i := 0; i < 20; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		desc, ok := LiveObjects()
		if !ok {
			return []string{"the leaks tracer is not active (GST_TRACERS=" + os.Getenv("GST_TRACERS") + ")"}
		}
		objs = objs[:0]
		for _, d := range desc {
			if !strings.HasPrefix(d, "GstElementFactory ") {
				objs = append(objs, d)
			}
		}
		if len(objs) == 0 {
			break
		}
	}
	return objs
}
