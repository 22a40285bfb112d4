package integration_test

// Real fences into tensorinfer (TestDMABufFenceInfer*): the frame
// engine's wait for an input's fences, in C, bounded by sync-timeout and
// ended by a stop. vgem buffers of 4096 bytes carry the fences (see
// fence_test.go); the model reads them as float32 [1 16 16 4].

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

const inferFenceCaps = "other/tensors,format=static,num_tensors=1,dimensions=4:16:16:1,types=float32,framerate=0/1"

// fenceModel writes a model that takes one vgem buffer as it is.
func fenceModel(t *testing.T) (lib, model string) {
	t.Helper()
	lib = infertest.Lib(t)
	model = filepath.Join(t.TempDir(), "means.onnx")
	if err := os.WriteFile(model, infertest.Means{H: 16, W: 16, C: 4, Scale: 1}.ONNX(), 0o644); err != nil {
		t.Fatal(err)
	}
	return lib, model
}

// A ready buffer, one whose fence never signals, the ready one again:
// with on-sync-timeout=drop the stuck frame is dropped and counted after
// sync-timeout, the others run; with error, a bus error names the
// dma-buf, the access and the timeout. No bracket stays open.
func TestDMABufFenceInferTimeout(t *testing.T) {
	dev := vgemDevice(t)
	for _, mode := range []string{"drop", "error"} {
		t.Run(mode, func(t *testing.T) {
			lib, model := fenceModel(t)
			ready, _ := vgemBuf(t, dev)
			stuck, stuckID := vgemBuf(t, dev)
			fence, err := stuck.AttachWriteFence()
			if err != nil {
				t.Fatal(err)
			}
			defer dev.SignalFence(fence)
			p, _, _ := parseWithSink(t, fmt.Sprintf("appsrc name=src format=time caps=%s ! tensorinfer name=infer "+
				"sync-timeout=100 on-sync-timeout=%s ort-library=%s model=%s ! tensorpinsink name=sink sync=false",
				inferFenceCaps, mode, lib, model))
			defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
			se, _ := p.GetElementByName("src")
			src := app.SrcFromElement(se)
			if err := p.SetState(gst.StatePlaying); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			pushDMABuf(t, src, ready.FD, 0)
			pushDMABuf(t, src, stuck.FD, time.Millisecond)
			pushDMABuf(t, src, ready.FD, 2*time.Millisecond)
			src.EndStream()
			msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(10*time.Second), gst.MessageEOS|gst.MessageError)
			elapsed := time.Since(start)
			if msg == nil {
				t.Fatal("neither EOS nor an error within 10 s")
			}
			s := inferStats(t, p)
			t.Logf("%s: %v after %v; stats frames %d dropped %d fence-waits %d timeouts %d", mode, msg.Type(), elapsed,
				s.Frames, s.Dropped, s.FenceWaits, s.FenceTimeouts)
			if elapsed > 5*time.Second || elapsed < 100*time.Millisecond {
				t.Errorf("%v to the end, want ≥ sync-timeout and well under vgem's 10 s", elapsed)
			}
			if s.FenceTimeouts != 1 || s.FenceWaits != 1 {
				t.Errorf("stats %+v: want one fence wait that timed out", s)
			}
			switch mode {
			case "drop":
				if msg.Type() != gst.MessageEOS || s.Frames != 2 || s.Dropped != 1 {
					t.Errorf("%v, stats %+v: want EOS, 2 frames, 1 dropped", msg.Type(), s)
				}
			case "error":
				ge, _ := gstglue.ParseErrorMessage(msg)
				if msg.Type() != gst.MessageError {
					t.Fatalf("%v, want an error", msg.Type())
				}
				for _, want := range []string{stuckID.String(), "read access", "not signalled after", "sync-timeout 100 ms"} {
					if !strings.Contains(ge.Message, want) {
						t.Errorf("error %q does not name %q", ge.Message, want)
					}
				}
			}
			if err := p.SetState(gst.StateNull); err != nil {
				t.Fatal(err)
			}
			if _, open := tensor.OpenBracket(stuckID); open {
				t.Error("the stuck buffer's bracket is open")
			}
		})
	}
}

// sync-timeout=0 waits without a bound: a stop (PLAYING to NULL) while
// the engine waits for a fence that never signals ends the wait at once
// (the poll watches the element's wake), not when vgem gives up (10 s).
func TestDMABufFenceInferStopEndsWait(t *testing.T) {
	dev := vgemDevice(t)
	lib, model := fenceModel(t)
	stuck, stuckID := vgemBuf(t, dev)
	fence, err := stuck.AttachWriteFence()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.SignalFence(fence)
	p, _, _ := parseWithSink(t, fmt.Sprintf("appsrc name=src format=time caps=%s ! tensorinfer name=infer "+
		"sync-timeout=0 ort-library=%s model=%s ! tensorpinsink name=sink sync=false", inferFenceCaps, lib, model))
	defer runtime.KeepAlive(p)
	se, _ := p.GetElementByName("src")
	src := app.SrcFromElement(se)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	pushDMABuf(t, src, stuck.FD, 0)
	time.Sleep(300 * time.Millisecond) // the streaming thread is in the poll
	start := time.Now()
	if err := p.SetState(gst.StateNull); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	t.Logf("NULL after %v", elapsed)
	if elapsed > 3*time.Second {
		t.Errorf("the stop took %v: the fence wait did not end with it", elapsed)
	}
	if _, open := tensor.OpenBracket(stuckID); open {
		t.Error("the stuck buffer's bracket is open after NULL")
	}
}
