package pipelines_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
)

// openFDs returns what every open fd of the process points at.
func openFDs(t *testing.T) map[string]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	fds := map[string]string{}
	for _, e := range ents {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil {
			fds[e.Name()] = target
		}
	}
	return fds
}

// runOne builds a pipeline with Parse and runs it to EOS (cancel false) or
// cancels it once a few frames have arrived.
func runOne(t *testing.T, cancelIt bool) {
	t.Helper()
	desc := "tensorsrc num-buffers=5 ! " + tensorCaps(3, 16, 16) + " ! queue ! tensorpinsink name=sink"
	if cancelIt {
		desc = "tensorsrc is-live=true framerate=200/1 ! " + tensorCaps(3, 16, 16) + " ! queue ! tensorpinsink name=sink"
	}
	p, err := pipelines.Parse(desc)
	if err != nil {
		t.Fatal(err)
	}
	sink, err := p.PinSink("sink")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := consume(sink, func(f pipelines.Frame, r *received) {
		if cancelIt && r.frames == 2 {
			cancel()
		}
	})
	err = p.Run(ctx)
	if cancelIt {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
	} else if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if r := <-got; r.frames == 0 {
		t.Fatal("no frame arrived")
	}
}

// Run releases every GStreamer reference the package took, so a program
// that builds pipelines one after the other keeps its fds flat without a
// garbage collection: the collector is switched off for the test, so no
// go-gst finalizer can drop a reference Run forgot (before Run released
// them, each pipeline's bus kept its GstPoll's two fds until a GC).
func TestRunReleasesFDsWithoutGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// One run of each kind first: what GStreamer and the runtime open once
	// per process (thread pools, the clock) belongs to the baseline.
	runOne(t, false)
	runOne(t, true)
	base := openFDs(t)
	for i := 0; i < 30; i++ {
		runOne(t, i%2 == 1)
		if now := openFDs(t); len(now) > len(base) {
			var extra []string
			for fd, target := range now {
				if base[fd] != target {
					extra = append(extra, fmt.Sprintf("fd %s -> %s", fd, target))
				}
			}
			slices.Sort(extra)
			t.Fatalf("after %d pipelines: %d fds open, %d before: %s", i+1, len(now), len(base), strings.Join(extra, ", "))
		}
	}
}

// A pipeline that is never run is released by Close (idempotent), also
// without a GC; what it handed out is gone afterwards, and it cannot run.
func TestCloseReleasesUnrunPipeline(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	build := []func() (*pipelines.Pipeline, error){
		func() (*pipelines.Pipeline, error) {
			return pipelines.Parse("tensorsrc name=src ! queue ! tensorpinsink name=sink")
		},
		func() (*pipelines.Pipeline, error) {
			return pipelines.New(pipelines.Element{Factory: "tensorsrc", Name: "src"},
				pipelines.Element{Factory: "queue"}, pipelines.Element{Factory: "tensorpinsink", Name: "sink"})
		},
	}
	base := len(openFDs(t))
	for i := 0; i < 10; i++ {
		p, err := build[i%2]()
		if err != nil {
			t.Fatal(err)
		}
		sink, err := p.PinSink("")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.TensorSrc("src"); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Element("sink"); err != nil {
			t.Fatal(err)
		}
		// The bus exists (and holds its fds) once something asks for it.
		if p.Gst().GetPipelineBus() == nil {
			t.Fatal("no bus")
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		if p.Gst() != nil || sink.Element() != nil || sink.Caps() != nil {
			t.Fatal("a closed pipeline still hands out GStreamer objects")
		}
		if _, err := p.Element("sink"); !errors.Is(err, pipelines.ErrNoElement) {
			t.Fatalf("Element after Close: %v, want ErrNoElement", err)
		}
		if _, ok := <-sink.Frames(); ok {
			t.Fatal("frame channel open after Close")
		}
		if err := p.Run(context.Background()); !errors.Is(err, pipelines.ErrAlreadyRun) {
			t.Fatalf("Run after Close: %v, want ErrAlreadyRun", err)
		}
		if n := len(openFDs(t)); n > base {
			t.Fatalf("after %d closed pipelines: %d fds open, %d before", i+1, n, base)
		}
	}
}
