package tensorinfer_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// videoRun plays desc (tensorinfer named infer, a fakesink) to EOS,
// calling in for each buffer entering tensorinfer and out for each
// leaving it, on the streaming thread; it returns the stats.
func videoRun(t *testing.T, desc string, in, out func(buf gstglue.RawBuffer)) tensorinfer.Stats {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	ie, _ := p.GetElementByName("infer")
	for name, f := range map[string]func(gstglue.RawBuffer){"sink": in, "src": out} {
		pad := ie.GetStaticPad(name)
		f := f
		pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
			if b := info.GetBuffer(); b != nil {
				f(gstglue.BorrowBuffer(b))
			}
			return gst.PadProbeOK
		})
		gstglue.ReleasePad(pad)
	}
	r := runPipelineOf(t, p, desc, nil)
	runtime.KeepAlive(p)
	if r.err != nil {
		t.Fatalf("%s: %s", desc, r.err.Message)
	}
	return r.infer
}

// output=video pushes the input buffer on — the same memory, its caps —
// with the frame's outputs in a GstTensorPinMeta whose tensors equal the
// Go reference of that frame, whose caps describe them and whose
// transform is the identity at the frame's size.
func TestTensorInferVideoOutputSameMemoryWithTensors(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const frames = 12
	var mu sync.Mutex
	memOf := map[uint64]uintptr{} // PTS → the input's memory
	nOf := map[uint64]int{}
	var problems []string
	checked := 0
	desc := fmt.Sprintf("tensorsrc num-buffers=%d pattern=counter ! video/x-raw,format=RGB,width=64,height=64 ! "+
		"tensorinfer name=infer output=video ort-library=%s model=%s ! fakesink", frames, lib, model)
	s := videoRun(t, desc, func(b gstglue.RawBuffer) {
		mu.Lock()
		defer mu.Unlock()
		pts := gstglue.BufferPTS(b)
		memOf[pts] = gstglue.PeekMemory(b, 0).Identity()
		nOf[pts] = len(nOf)
	}, func(b gstglue.RawBuffer) {
		mu.Lock()
		defer mu.Unlock()
		pts := gstglue.BufferPTS(b)
		n := nOf[pts]
		if got := gstglue.PeekMemory(b, 0).Identity(); got != memOf[pts] {
			problems = append(problems, fmt.Sprintf("frame %d: memory %#x out, %#x in", n, got, memOf[pts]))
		}
		m, ok := tensormeta.ReadRaw(b)
		if !ok {
			problems = append(problems, fmt.Sprintf("frame %d: no GstTensorPinMeta", n))
			return
		}
		defer gstglue.UnrefRawBuffer(m.Tensors)
		scores := make([]byte, 4*infertest.ShippedScores)
		if k := gstglue.ExtractBuffer(m.Tensors, scores); k != len(scores) {
			problems = append(problems, fmt.Sprintf("frame %d: tensors of %d bytes", n, k))
			return
		}
		want := infertest.ShippedReference(counter(n, infertest.ShippedInputBytes))
		for i, v := range floats(scores) {
			if !infertest.ShippedWithin(float64(v), want[i]) {
				problems = append(problems, fmt.Sprintf("frame %d: scores %v, want %v", n, floats(scores), want))
				break
			}
		}
		if !strings.Contains(m.Caps, "names=(string)scores") || !strings.Contains(m.Caps, "dimensions=(string)3:1") {
			problems = append(problems, fmt.Sprintf("frame %d: meta caps %s", n, m.Caps))
		}
		if tr := m.Transform; tr != (tensormeta.Transform{ModelWidth: 64, ModelHeight: 64, ScaleX: 1, ScaleY: 1}) {
			problems = append(problems, fmt.Sprintf("frame %d: transform %+v", n, tr))
		}
		checked++
	})
	mu.Lock()
	defer mu.Unlock()
	reportProblems(t, problems)
	if checked != frames || s.Frames != frames || s.Runs != frames {
		t.Errorf("%d outputs checked, stats %+v: want %d frames run", checked, s, frames)
	}
}

// interval=3 runs every third frame; the two between carry the last
// result (the same run number, the same tensors), and the counters say so.
func TestTensorInferVideoOutputInterval(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const frames = 10
	var runs []uint64
	desc := fmt.Sprintf("tensorsrc num-buffers=%d pattern=counter ! video/x-raw,format=RGB,width=64,height=64 ! "+
		"tensorinfer name=infer output=video interval=3 ort-library=%s model=%s ! fakesink", frames, lib, model)
	s := videoRun(t, desc, func(gstglue.RawBuffer) {}, func(b gstglue.RawBuffer) {
		// Through the public Go reader, as an application would.
		buf := gstglue.LeaseBuffer(b)
		defer buf.Release()
		wrapper := buf.Buffer()
		defer gstglue.ReleaseBuffer(wrapper)
		if m, ok := tensormeta.Read(wrapper); ok {
			runs = append(runs, m.Run)
			if m.Tensors == nil || m.Tensors.GetSize() != 4*infertest.ShippedScores {
				t.Errorf("run %d: tensors %v", m.Run, m.Tensors)
			}
			if x, y := m.ModelToFrame(m.FrameToModel(10, 20)); x != 10 || y != 20 {
				t.Errorf("identity transform maps (10, 20) to (%v, %v)", x, y)
			}
			m.Release()
		}
	})
	want := []uint64{0, 0, 0, 1, 1, 1, 2, 2, 2, 3}
	if fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("run numbers %v, want %v", runs, want)
	}
	if s.Runs != 4 || s.Frames != 4 || s.FramesReused != 6 {
		t.Errorf("stats %+v: want 4 runs and frames, 6 reused", s)
	}
	// tensorsrc's brackets: every frame's begin answered, ran or not.
	if s.BeginsMatched != frames || s.BeginsExpired != 0 {
		t.Errorf("stats %+v: want all %d begins matched, none expired", s, frames)
	}
}

// The output slot stays with the video buffer: downstream holding every
// slot's video makes tensorinfer wait for one, and freeing them lets the
// stream finish; nothing is left behind (TestMain checks fds and
// GStreamer's objects).
func TestTensorInferVideoOutputSlotReturnsWithTheVideo(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const frames = 20
	var mu sync.Mutex
	var held []gstglue.Lease
	released := false
	done := make(chan struct{})
	desc := fmt.Sprintf("tensorsrc num-buffers=%d pattern=counter ! video/x-raw,format=RGB,width=64,height=64 ! "+
		"tensorinfer name=infer output=video max-leases=2 ort-library=%s model=%s ! fakesink", frames, lib, model)
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	ie, _ := p.GetElementByName("infer")
	pad := ie.GetStaticPad("src")
	pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		mu.Lock()
		if !released && len(held) < 3 { // the ring's 3 slots (max-leases+1)
			held = append(held, gstglue.LeaseBuffer(gstglue.BorrowBuffer(info.GetBuffer())))
		}
		mu.Unlock()
		return gst.PadProbeOK
	})
	gstglue.ReleasePad(pad)
	go func() {
		defer close(done)
		// Once tensorinfer waits for a slot, let the videos go.
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if s, _ := tensorinfer.ReadStats(ie); s.Waits > 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		mu.Lock()
		for _, l := range held {
			l.Release()
		}
		held, released = nil, true
		mu.Unlock()
	}()
	r := runPipelineOf(t, p, desc, nil)
	<-done
	runtime.KeepAlive(p)
	if r.err != nil {
		t.Fatal(r.err.Message)
	}
	if r.infer.Waits == 0 || r.infer.Frames != frames {
		t.Errorf("stats %+v: want a wait for a slot while the videos were held, then all %d frames", r.infer, frames)
	}
}

// output=video from a producer that takes the proposed pool: the video
// goes on as the input buffer itself, so its memories come back to the
// pool writable and stay pinned and bound — a few binds for the stream,
// not one a frame.
func TestTensorInferVideoOutputKeepsThePool(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	desc := fmt.Sprintf("videotestsrc num-buffers=60 ! video/x-raw,format=RGB,width=64,height=64 ! "+
		"tensorinfer name=infer output=video ort-library=%s model=%s ! queue ! fakesink", lib, model)
	s := videoRun(t, desc, func(gstglue.RawBuffer) {}, func(gstglue.RawBuffer) {})
	if s.Frames != 60 || s.Misses > 8 || s.InputBinds > 8 || s.Copies != 0 {
		t.Errorf("stats %+v: want 60 frames from at most 8 pool buffers, pinned and bound once each, no copy", s)
	}
}
