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

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// fuzzBound is how long one fuzzed pipeline may take to end.
const fuzzBound = 20 * time.Second

// inferCapsRun sets caps on `appsrc ! tensorinfer model=<shipped> !
// fakesink`, pushes one buffer (one fd memory of the shipped model's input
// size: a memfd) and EOS, and checks what every caps string must keep:
// the pipeline ends within fuzzBound with EOS or an error message that
// says what went wrong (tensorinfer's own errors name the element), the
// element's brackets are balanced, and the fds and fd-backed mappings
// are back where they were once the pipeline is NULL. A panic across cgo
// would have killed the process.
func inferCapsRun(t *testing.T, lib, model string, caps *gst.Caps) {
	fd, err := unix.MemfdCreate("fuzz-input", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, infertest.ShippedInputBytes); err != nil {
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
		if caps != nil {
			src.SetCaps(caps)
		}
		p.SetState(gst.StatePaused)
		mem, err := gstc.NewFdMemory(fd, infertest.ShippedInputBytes, nil)
		if err != nil {
			t.Fatal(err)
		}
		buf := gst.NewEmptyBuffer()
		gstc.AppendMemory(buf, mem)
		src.PushBuffer(buf)
		src.EndStream()
		p.SetState(gst.StatePlaying)
		msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(fuzzBound), gst.MessageEOS|gst.MessageError)
		if msg == nil {
			t.Fatalf("caps %q: neither EOS nor an error within %v", caps.String(), fuzzBound)
		}
		if msg.Type() == gst.MessageError {
			ge, _ := gstc.ParseErrorMessage(msg)
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
		inferCapsRun(t, lib, model, caps)
	})
}
