package tensorinfer_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// fuzzBound is how long one fuzzed pipeline may take to end.
const fuzzBound = 20 * time.Second

// inferCapsRun sets caps on `appsrc ! tensorinfer model=<model> !
// fakesink` and pushes one buffer after each of them (one fd memory of
// inputBytes: a memfd; the caps after the first are a renegotiation
// mid-stream), then EOS, and checks what every caps string must keep:
// the pipeline ends within fuzzBound with EOS or an error message that
// says what went wrong (tensorinfer's own errors name the element), the
// element's brackets are balanced, and the fds and fd-backed mappings
// are back where they were once the pipeline is NULL. A panic across cgo
// would have killed the process.
func inferCapsRun(t *testing.T, lib, model string, inputBytes int, capsSeq ...*gst.Caps) {
	caps := capsSeq[len(capsSeq)-1]
	fd, err := unix.MemfdCreate("fuzz-input", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(inputBytes)); err != nil {
		t.Fatal(err)
	}
	base := pintest.Take()
	before := tensor.ReadStats()
	func() {
		p, err := gst.NewPipelineFromString(fmt.Sprintf("appsrc name=src format=time ! tensorinfer name=infer ort-library=%s model=%s ! fakesink",
			lib, model))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
		e, err := p.GetElementByName("src")
		if err != nil {
			t.Fatal(err)
		}
		src := app.SrcFromElement(e)
		p.SetState(gst.StatePaused)
		for _, c := range capsSeq {
			if c != nil {
				src.SetCaps(c)
			}
			mem, err := gstglue.NewFdMemory(fd, inputBytes, nil)
			if err != nil {
				t.Fatal(err)
			}
			buf := gst.NewEmptyBuffer()
			gstglue.AppendMemory(buf, mem)
			src.PushBuffer(buf)
		}
		src.EndStream()
		p.SetState(gst.StatePlaying)
		msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(fuzzBound), gst.MessageEOS|gst.MessageError)
		if msg == nil {
			t.Fatalf("caps %q: neither EOS nor an error within %v", caps.String(), fuzzBound)
		}
		if msg.Type() == gst.MessageError {
			ge, _ := gstglue.ParseErrorMessage(msg)
			if ge == nil || strings.TrimSpace(ge.Message) == "" {
				t.Fatalf("caps %q: an error message with no text (%+v) from %s", caps.String(), ge, msg.Source())
			}
			if msg.Source() == "infer" && !strings.Contains(ge.Message, "tensorinfer") {
				t.Fatalf("caps %q: tensorinfer's error %q does not say it is tensorinfer's", caps.String(), ge.Message)
			}
		}
		p.SetState(gst.StateNull)
	}()
	after := tensor.ReadStats()
	if after.UnbalancedSyncs != before.UnbalancedSyncs || after.BracketsOpened-before.BracketsOpened != after.BracketsClosed-before.BracketsClosed {
		t.Fatalf("caps %q: brackets unbalanced: %+v -> %+v", caps.String(), before, after)
	}
	if l := base.Leaks(); l != "" {
		t.Fatalf("caps %q: %s", caps.String(), l)
	}
}

// Arbitrary caps on tensorinfer's input (issue 18's fuzzed caps): the
// model's own (runs), other shapes, ranks, types, planes, media types and
// malformed tensors caps — accepted, refused at negotiation, or refused
// with an error that names the problem; never a crash, a hang or a leak.
// The seed corpus runs in `make test`; `make fuzz` fuzzes it.
func FuzzTensorInferCaps(f *testing.F) {
	for _, s := range []string{
		"other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8,framerate=30/1",
		"video/x-raw,format=RGB,width=64,height=64,framerate=30/1",
		"video/x-raw(memory:DMABuf),format=RGB,width=64,height=64",
		"video/x-raw,format=RGB,width=32,height=32",
		"video/x-raw,format=RGBA,width=64,height=48",
		"video/x-raw,format=GRAY8,width=64,height=64",
		"video/x-raw,format=NV12,width=64,height=64",
		"video/x-raw,format=RGB,width=0,height=64",
		"other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=float32",
		"other/tensors,format=static,num_tensors=2,dimensions=(string)\"3:64:64:1,3:64:64:1\",types=(string)\"uint8,uint8\"",
		"other/tensors,format=static,num_tensors=1,dimensions=4294967295:4294967295,types=float64",
		"other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=nonsense",
		"other/tensors,format=flexible",
		"other/tensors,format=static",
		"audio/x-raw,format=S16LE,rate=48000,channels=2",
		"ANY",
		"",
	} {
		f.Add(s)
	}
	lib := infertest.Lib(f)
	model := infertest.RepoFile(f, infertest.ShippedModel)
	f.Fuzz(func(t *testing.T, s string) {
		caps := gst.NewCapsFromString(s)
		if caps == nil || !caps.IsFixed() {
			// appsrc makes a caps event of the caps it is given, and
			// GStreamer refuses to make one of caps that are not fixed
			// (ANY, EMPTY, lists, ranges): a critical in appsrc before
			// tensorinfer sees anything. Unfixed caps reach tensorinfer
			// as caps queries, which every fixed string here also asks.
			return
		}
		inferCapsRun(t, lib, model, infertest.ShippedInputBytes, caps)
	})
}

// Caps renegotiated mid-stream for a model with a free batch dimension
// (float32 [batch 8 8 3]): the first caps open a session, the second
// (fuzzed) replace it, are refused, or fail with an error that names the
// problem — never a crash, a hang, a leak or unbalanced brackets. Each
// caps is followed by one buffer of memory for a batch of 4.
func FuzzTensorInferRenegotiatedCaps(f *testing.F) {
	for _, s := range []string{
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:2,types=float32,framerate=30/1",
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:4,types=uint8,framerate=30/1",
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:1,types=float32,framerate=30/1",
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:64,types=float32,framerate=30/1",
		"other/tensors,format=static,num_tensors=1,dimensions=3:16:16:1,types=float32,framerate=30/1",
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:0,types=float32",
		"video/x-raw,format=RGB,width=8,height=8,framerate=30/1",
		"video/x-raw,format=GRAY8,width=8,height=8",
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:1:1,types=float32",
	} {
		f.Add(s)
	}
	lib := infertest.Lib(f)
	m := infertest.Means{H: 8, W: 8, C: 3, Scale: 1, DynamicBatch: true}
	model := writeModel(f, "dyn.onnx", m.ONNX())
	first := gst.NewCapsFromString("other/tensors,format=static,num_tensors=1,dimensions=3:8:8:1,types=float32,framerate=30/1")
	f.Fuzz(func(t *testing.T, s string) {
		caps := gst.NewCapsFromString(s)
		if caps == nil || !caps.IsFixed() {
			return // as FuzzTensorInferCaps
		}
		inferCapsRun(t, lib, model, 4*m.InputBytes(), first, caps)
	})
}
