package frameengine

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// testSink is a GstBaseSink rendering through InstallBaseSinkRender and
// taking GstTensorSync begin events through InstallBaseSinkTensorSync; its
// go-gst Event must still see every other event.
type testSink struct{}

var sinkHarness struct {
	mu        sync.Mutex
	panicAt   int
	renders   int
	sizes     []int
	begins    []tensorsync.Info
	eventSync int // GstTensorSync begin events that reached Event (want 0)
	eos       int
}

func (s *testSink) New() glib.GoObjectSubclass { return &testSink{} }

func (s *testSink) ClassInit(klass *glib.ObjectClass) {
	ec := gst.ToElementClass(klass)
	ec.SetMetadata("gstc test sink", "Sink", "Exercises frameengine's base-sink trampolines", "gst-tensorpin")
	ec.AddPadTemplate(gst.NewPadTemplate("sink", gst.PadDirectionSink, gst.PadPresenceAlways, gst.NewAnyCaps()))
	InstallBaseSinkRender(klass)
	InstallBaseSinkTensorSync(klass)
}

func (s *testSink) RenderRaw(self gstglue.RawElement, buf gstglue.RawBuffer) gst.FlowReturn {
	h := &sinkHarness
	h.mu.Lock()
	h.renders++
	n, panicAt := h.renders, h.panicAt
	var v gstglue.BufferView
	gstglue.ReadBufferView(buf, gstglue.QdataKey{}, &v)
	h.sizes = append(h.sizes, v.Size())
	h.mu.Unlock()
	if n == panicAt {
		panic(fmt.Sprintf("sink boom at frame %d", n))
	}
	if !gstglue.PeekMemory(buf, 0).IsDmabuf() || !gstglue.PeekMemory(buf, 1).IsNil() {
		gstglue.PostErrorRaw(self, gstglue.StreamFormat, "not one dma-buf memory", "")
		return gst.FlowError
	}
	l := gstglue.LeaseBuffer(buf)
	dst := make([]byte, 8)
	if gstglue.ExtractBuffer(buf, dst) != len(dst) {
		gstglue.PostErrorRaw(self, gstglue.StreamFailed, "short extract", "")
	}
	l.Release()
	return gst.FlowOK
}

func (s *testSink) TensorSyncBegin(self gstglue.RawElement, ts tensorsync.Info) bool {
	sinkHarness.mu.Lock()
	sinkHarness.begins = append(sinkHarness.begins, ts)
	sinkHarness.mu.Unlock()
	return true
}

func (s *testSink) Event(self *base.GstBaseSink, ev *gst.Event) bool {
	sinkHarness.mu.Lock()
	if ts, ok := tensorsync.Parse(ev); ok && ts.Phase == tensorsync.PhaseBegin {
		sinkHarness.eventSync++
	}
	if ev.Type() == gst.EventTypeEOS {
		sinkHarness.eos++
	}
	sinkHarness.mu.Unlock()
	return self.ParentEvent(ev)
}

var registerSink = sync.OnceValue(func() bool {
	return gst.RegisterElement(nil, "gstctestsink", gst.RankNone, &testSink{}, base.ExtendsBaseSink)
})

func setupSink(t *testing.T, panicAt int) {
	t.Helper()
	if !registerSink() {
		t.Fatal("cannot register gstctestsink")
	}
	h := &sinkHarness
	h.mu.Lock()
	h.panicAt, h.renders, h.sizes, h.begins, h.eventSync, h.eos = panicAt, 0, nil, nil, 0, 0
	h.mu.Unlock()
}

func TestBaseSinkTrampolines(t *testing.T) {
	checkFds(t)
	defer setupSrc(t, 0, 0)()
	setupSink(t, 0)
	msg := runLaunch(t, "gstctestsrc num-buffers=4 ! gstctestsink sync=false")
	if msg.Type() != gst.MessageEOS {
		e, _ := gstglue.ParseErrorMessage(msg)
		t.Fatalf("got %v (%+v), want EOS", msg.Type(), e)
	}
	h := &sinkHarness
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.renders != 4 || len(h.begins) != 4 || h.eventSync != 0 || h.eos != 1 {
		t.Fatalf("renders %d, begins %d, begins seen by Event %d, EOS %d; want 4, 4, 0, 1",
			h.renders, len(h.begins), h.eventSync, h.eos)
	}
	for i, ts := range h.begins {
		if ts.Phase != tensorsync.PhaseBegin || ts.Access != tensorsync.AccessRead || ts.Seqnum != uint32(i+1) ||
			ts.Dev != srcHarness.dev || ts.Ino != srcHarness.ino {
			t.Errorf("begin %d: %+v", i, ts)
		}
	}
	for i, n := range h.sizes {
		if n != 4096 {
			t.Errorf("buffer %d: size %d, want 4096", i, n)
		}
	}
}

// A panic in RenderRaw becomes an element error, not a crash.
func TestBaseSinkRenderPanicRecovered(t *testing.T) {
	checkFds(t)
	defer setupSrc(t, 0, 0)()
	setupSink(t, 2)
	msg := runLaunch(t, "gstctestsrc num-buffers=5 ! gstctestsink sync=false")
	e, ok := gstglue.ParseErrorMessage(msg)
	if !ok || e.Domain != gstglue.DomainCore || e.Code != int(gstglue.CoreFailed) || !strings.Contains(e.Message, "sink boom at frame 2") {
		t.Fatalf("got %+v", e)
	}
}
