package tensorinfer_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// output=video through five PLAYING → EOS → NULL cycles of one pipeline,
// the application holding two video buffers of each cycle across the
// NULLs that follow: each held buffer's GstTensorPinMeta still holds its
// frame's outputs after the element stopped (its ring retired, its
// session closed) — the scores equal the reference of the video's own
// bytes —, and once every buffer is released the process's fds and
// memfd mappings are back where they were after the first cycle.
func TestTensorInferVideoOutputNullCyclesWithBuffersHeld(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const cycles, perCycle = 5, 2
	desc := fmt.Sprintf("tensorsrc num-buffers=6 pattern=counter ! video/x-raw,format=RGB,width=64,height=64 ! "+
		"tensorinfer name=infer output=video max-leases=4 ort-library=%s model=%s ! fakesink", lib, model)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.KeepAlive(p)
	ie, _ := p.GetElementByName("infer")
	pad := ie.GetStaticPad("src")
	var mu sync.Mutex
	var held []gstglue.Lease
	holding := false
	taken := 0
	pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		mu.Lock()
		if holding && taken < perCycle {
			held = append(held, gstglue.LeaseBuffer(gstglue.BorrowBuffer(info.GetBuffer())))
			taken++
		}
		mu.Unlock()
		return gst.PadProbeOK
	})
	gstglue.ReleasePad(pad)
	cycle := func() {
		t.Helper()
		if err := p.SetState(gst.StatePlaying); err != nil {
			t.Fatal(err)
		}
		msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(30*time.Second), gst.MessageEOS|gst.MessageError)
		if msg == nil || msg.Type() != gst.MessageEOS {
			p.SetState(gst.StateNull)
			t.Fatalf("cycle: %v, want EOS", msg)
		}
		if err := p.SetState(gst.StateNull); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		for i, l := range held {
			buf := l.Buffer()
			m, ok := tensormeta.Read(buf)
			if !ok {
				t.Fatalf("%s: held buffer %d has no GstTensorPinMeta", when, i)
			}
			video := make([]byte, infertest.ShippedInputBytes)
			gstglue.ExtractBuffer(gstglue.BorrowBuffer(buf), video)
			scores := make([]byte, 4*infertest.ShippedScores)
			gstglue.ExtractBuffer(gstglue.BorrowBuffer(m.Tensors), scores)
			want := infertest.ShippedReference(video)
			for k, g := range floats(scores) {
				if !infertest.ShippedWithin(float64(g), want[k]) {
					t.Errorf("%s: held buffer %d: scores %v, want %v", when, i, floats(scores), want)
					break
				}
			}
			m.Release()
			gstglue.ReleaseBuffer(buf)
		}
	}
	cycle() // the warm-up: ONNX Runtime loaded, GStreamer's threads made
	fds0, maps0 := openMappings(t)
	for c := range cycles {
		mu.Lock()
		holding, taken = true, 0
		mu.Unlock()
		cycle()
		mu.Lock()
		holding = false
		n := len(held)
		mu.Unlock()
		if n != (c+1)*perCycle {
			t.Fatalf("cycle %d: %d buffers held, want %d", c, n, (c+1)*perCycle)
		}
		check(fmt.Sprintf("after NULL %d", c))
	}
	mu.Lock()
	for _, l := range held {
		l.Release()
	}
	held = nil
	mu.Unlock()
	fds, maps := openMappings(t)
	t.Logf("fds %d → %d, memfd mappings %d → %d over %d cycles", fds0, fds, maps0, maps, cycles)
	if fds > fds0 || maps > maps0 {
		t.Errorf("after releasing every held buffer: fds %d (were %d), memfd mappings %d (were %d)", fds, fds0, maps, maps0)
	}
}
