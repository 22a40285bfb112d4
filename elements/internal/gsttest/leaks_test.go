package gsttest

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/go-gst/go-gst/gst"
)

func TestMain(m *testing.M) {
	os.Setenv("GST_TRACERS", "leaks")
	gst.Init(nil)
	os.Exit(m.Run())
}

// The query must survive objects being freed on other threads while it
// runs: with the tracer's get-live-objects signal this test died within a
// few rounds ("gst_mini_object_unref: assertion ... > 0 failed", then
// SIGSEGV), as the element tests did at exit when a go-gst finalizer freed
// a buffer during the query.
func TestLiveObjectsWhileOtherThreadsFree(t *testing.T) {
	for round := 0; round < 200; round++ {
		bufs := make([]*gst.Buffer, 500)
		for i := range bufs {
			bufs[i] = gst.NewBufferWithSize(16)
			runtime.SetFinalizer(bufs[i], nil) // freed below, by hand
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, b := range bufs {
				b.Unref()
			}
		}()
		if _, ok := LiveObjects(); !ok {
			t.Fatal("the leaks tracer is not active")
		}
		wg.Wait()
	}
}

// A buffer kept alive is listed with its type and reference count; once
// freed it is not.
func TestLiveObjectsListsWhatIsAlive(t *testing.T) {
	buffers := func() (n int, lines []string) {
		objs, ok := LiveObjects()
		if !ok {
			t.Fatal("the leaks tracer is not active")
		}
		for _, o := range objs {
			if strings.HasPrefix(o, "GstBuffer (ref-count 1): buffer: ") {
				n++
			}
		}
		return n, objs
	}
	before, _ := buffers()
	b := gst.NewBufferWithSize(16)
	runtime.SetFinalizer(b, nil)
	if n, objs := buffers(); n != before+1 {
		t.Fatalf("%d buffers listed with one more alive, want %d: %q", n, before+1, objs)
	}
	b.Unref()
	if n, objs := buffers(); n != before {
		t.Fatalf("%d buffers listed after the free, want %d: %q", n, before, objs)
	}
}
