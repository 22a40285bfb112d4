package frameengine

import (
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// A GStreamer streaming thread that calls into Go for every frame (here
// the test source's create) yields through the trampoline.
func TestSchedTickOnStreamingThread(t *testing.T) {
	checkFds(t)
	defer setupSrc(t, 0, 0)()
	p, err := gst.NewPipelineFromString("gstctestsrc num-buffers=-1 ! fakesink sync=false")
	if err != nil {
		t.Fatal(err)
	}
	before := gstglue.SchedYields()
	p.SetState(gst.StatePlaying)
	deadline := time.Now().Add(10 * time.Second)
	for gstglue.SchedYields() == before && time.Now().Before(deadline) {
		time.Sleep(gstglue.SchedTickPeriod)
	}
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p)
	if gstglue.SchedYields() == before {
		t.Fatal("the streaming thread never yielded to Go's scheduler in 10 s of frames")
	}
}
