package tensorpinsink_test

import (
	"strings"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
)

// A panic in a call from the sink's C frame into Go (here the first
// frame's import) stops in the export: the pipeline ends with an error
// naming it, the process goes on, and nothing leaks (the package's test
// main checks fds, mappings and GStreamer objects).
func TestSinkInputPanicRecovered(t *testing.T) {
	defer tensorpinsink.SetSinkInputHook(func() { panic("boom in the sink's input") })()
	p, err := gst.NewPipelineFromString("videotestsrc num-buffers=3 ! video/x-raw,format=RGB,width=32,height=16 ! tensorpinsink sync=false")
	if err != nil {
		t.Fatal(err)
	}
	if msg := run(t, p); !strings.Contains(msg, "internal error: boom in the sink's input") {
		t.Fatalf("the pipeline ended with %q; want the panic as its error", msg)
	}
}
