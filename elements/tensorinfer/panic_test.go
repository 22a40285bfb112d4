package tensorinfer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// A panic in a call from tensorinfer's C frame into Go (here the first
// frame's import and binding) stops in the export: the pipeline ends with
// an error naming it, the process goes on, and nothing leaks (the
// package's test main checks fds, mappings and GStreamer objects).
func TestInferInputPanicRecovered(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	defer tensorinfer.SetInferInputHook(func() { panic("boom in tensorinfer's input") })()
	r := runPipeline(t, fmt.Sprintf("tensorsrc num-buffers=3 ! other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8 ! "+
		"tensorinfer ort-library=%s model=%s ! fakesink", lib, model), nil)
	if r.err == nil || !strings.Contains(r.err.Message, "internal error: boom in tensorinfer's input") {
		t.Fatalf("the pipeline ended with %+v; want the panic as its error", r.err)
	}
}
