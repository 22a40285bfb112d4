package tensorsrc

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/internal/bracketabi"
)

// TestMain: GStreamer under its leaks tracer, tensorsrc registered
// statically; leaked fds, mappings or GStreamer objects fail the run.
func TestMain(m *testing.M) { gsttest.Main(m, func() bool { return Register(nil) }) }

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
func play(t testing.TB, p *gst.Pipeline) *gstglue.GError {
	t.Helper()
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Logf("set PLAYING: %v", err)
	}
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(30*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS or error within 30 s")
	}
	if msg.Type() == gst.MessageError {
		ge, _ := gstglue.ParseErrorMessage(msg)
		return ge
	}
	return nil
}

func stop(t testing.TB, p *gst.Pipeline) {
	t.Helper()
	if err := p.SetState(gst.StateNull); err != nil {
		t.Errorf("set NULL: %v", err)
	}
	// p's last use is inside SetState, before the C call returns: without
	// this, go-gst's finalizer may drop the pipeline's reference while
	// gst_element_set_state still runs on it (seen: "Trying to dispose
	// element pipeline210, but it is in READY", then SIGSEGV).
	runtime.KeepAlive(p)
}

// stats reads the stats property of src.
func stats(t testing.TB, src *gst.Element) map[string]any {
	t.Helper()
	st, err := gstglue.GetStructureProperty(src, "stats")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Free()
	m := map[string]any{}
	for _, k := range []string{"frames", "mmaps", "brackets-opened", "brackets-closed",
		"brackets-ended-here", "brackets-open", "waits-for-free-slot", "reader-end-events",
		"other-end-events", "sync-errors", "pool-size", "ring-size", "downstream-min-buffers", "backend",
		"fence-waits", "fence-wait-total-ns", "fence-wait-max-ns", "fence-timeouts", "fences-attached",
		"seeks", "seek-discarded", "steady-frames", "max-pool-size", "pool-grown"} {
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

// openBrackets counts CPU brackets open on the tensors of the running
// source's ring (test hook; 0 when stopped).
func (e *element) openBrackets() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st == nil {
		return 0
	}
	n := 0
	if e.st.ring != nil {
		n += e.st.ring.openBrackets()
	}
	return n
}

// openBrackets counts the holders inside the brackets of r's tensors.
func (r *ring) openBrackets() int {
	n := 0
	for _, sl := range r.slots {
		n += sl.brackets()
	}
	return n
}

// brackets counts the holders inside the bracket of sl's tensor, from
// the state word Go and C share (bracketabi): a slot's bracket is
// entered in C (the ring's), which the tensor's own count (OpenSyncs)
// does not see.
func (sl *Slot) brackets() int {
	if b, ok := bracketabi.Of(sl.t); ok {
		return int(atomic.LoadUint64((*uint64)(b.Word)) & bracketabi.RefsMask)
	}
	return sl.t.OpenSyncs()
}
