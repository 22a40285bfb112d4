package tensorsrc

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
)

// TestMain initialises GStreamer with its leaks tracer, registers
// tensorsrc statically, warms up what GStreamer opens once per process
// (system clock, task pool), and fails the run if the tests leaked fds,
// fd-backed mappings or GStreamer objects (buffers, memories, events,
// caps, elements...). TENSORSRC_LEAKS=0 runs without the tracer; a
// GST_TRACERS already set is kept.
func TestMain(m *testing.M) {
	tracer := os.Getenv("TENSORSRC_LEAKS") != "0"
	if tracer && os.Getenv("GST_TRACERS") == "" {
		os.Setenv("GST_TRACERS", "leaks")
	}
	gst.Init(nil)
	if !Register(nil) {
		fmt.Fprintln(os.Stderr, "cannot register tensorsrc")
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
		if objs := gstLeaks(); len(objs) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: leaks tracer: %d GStreamer object(s) alive after the tests:\n  %s\n",
				len(objs), strings.Join(objs, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}

// gstLeaks lists the GStreamer objects the leaks tracer sees alive, once
// go-gst's finalizers have dropped their references, except what lives as
// long as the process by design: gstc's two allocators and the tensorsrc
// element factory, which Register(nil) added to the registry after the
// tracer started.
func gstLeaks() []string {
	var objs []string
	for i := 0; i < 20; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		_, desc, ok := gstc.LeaksTracerLiveObjects()
		if !ok {
			return []string{"the leaks tracer is not active (GST_TRACERS=" + os.Getenv("GST_TRACERS") + ")"}
		}
		objs = objs[:0]
		for _, d := range desc {
			if !strings.HasPrefix(d, "GstFdAllocator ") && !strings.HasPrefix(d, "GstDmaBufAllocator ") &&
				!strings.HasPrefix(d, "GstElementFactory ") {
				objs = append(objs, d)
			}
		}
		if len(objs) == 0 {
			break
		}
	}
	return objs
}

// parse builds a pipeline and returns it with its element named "src".
func parse(t testing.TB, desc string) (*gst.Pipeline, *gst.Element) {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	src, err := p.GetElementByName("src")
	if err != nil {
		t.Fatalf("%s: no element named src", desc)
	}
	return p, src
}

// play sets p to PLAYING and waits for EOS or an error; it returns the
// error (nil at EOS) and leaves p PLAYING (call stop).
func play(t testing.TB, p *gst.Pipeline) *gstc.GError {
	t.Helper()
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Logf("set PLAYING: %v", err)
	}
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(30*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS or error within 30 s")
	}
	if msg.Type() == gst.MessageError {
		ge, _ := gstc.ParseErrorMessage(msg)
		return ge
	}
	return nil
}

func stop(t testing.TB, p *gst.Pipeline) {
	t.Helper()
	if err := p.SetState(gst.StateNull); err != nil {
		t.Errorf("set NULL: %v", err)
	}
}

// stats reads the stats property of src.
func stats(t testing.TB, src *gst.Element) map[string]any {
	t.Helper()
	st, err := gstc.GetStructureProperty(src, "stats")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Free()
	m := map[string]any{}
	for _, k := range []string{"frames", "mmaps", "brackets-opened", "brackets-closed-downstream",
		"brackets-closed-by-source", "brackets-open", "waits-for-free-slot", "end-events",
		"unmatched-end-events", "sync-errors", "pool-size", "backend"} {
		v, err := st.GetValue(k)
		if err != nil {
			t.Fatalf("stats lacks %s: %s", k, st)
		}
		m[k] = v
	}
	return m
}

func wantStat(t testing.TB, m map[string]any, k string, want any) {
	t.Helper()
	if fmt.Sprint(m[k]) != fmt.Sprint(want) {
		t.Errorf("stats %s = %v, want %v (all: %v)", k, m[k], want, m)
	}
}

// goElement returns the Go element behind src (test hook).
func goElement(t testing.TB, src *gst.Element) *element {
	t.Helper()
	s, err := FromElement(src)
	if err != nil {
		t.Fatal(err)
	}
	return s.el
}

// openBrackets counts CPU brackets open on the tensors of every ring the
// running source has (test hook; 0 when stopped).
func (e *element) openBrackets() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st == nil {
		return 0
	}
	n := 0
	for _, r := range append(e.st.retired, e.st.ring) {
		if r != nil {
			n += r.openBrackets()
		}
	}
	return n
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
