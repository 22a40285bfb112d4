package frameengine

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// testSrc is a GstPushSrc exercising the layer the way an element does:
// its own create (RawCreator, via InstallPushSrcCreate) wrapping an fd as
// DMA-BUF memory, a GstTensorSync begin event before each buffer, a
// "new-frame" signal with a buffer argument, read-only hyphenated and
// GstStructure properties, and a go-gst event override that consumes
// GstTensorSync end events and chains everything else up.
type testSrc struct{ frames atomic.Uint64 }

// srcHarness configures and observes testSrc instances (one at a time).
var srcHarness struct {
	mu       sync.Mutex
	fd, size int
	dev, ino uint64
	failAt   uint64 // post a StreamFormat error at this frame
	panicAt  uint64 // panic in CreateRaw at this frame
	released atomic.Int64
	syncs    []tensorsync.Info // GstTensorSync events received upstream
}

var (
	newFrameSignal uint
	classInitErr   error
)

func (s *testSrc) New() glib.GoObjectSubclass { return &testSrc{} }

func (s *testSrc) ClassInit(klass *glib.ObjectClass) {
	ec := gst.ToElementClass(klass)
	ec.SetMetadata("gstc test source", "Source", "Exercises gstc in a real pipeline", "gst-tensorpin")
	ec.AddPadTemplate(gst.NewPadTemplate("src", gst.PadDirectionSource, gst.PadPresenceAlways, gst.NewAnyCaps()))
	klass.InstallProperties([]*glib.ParamSpec{
		glib.NewBoxedParam("stats", "Stats", "Counters", gst.TypeStructure, glib.ParameterReadable),
		glib.NewUint64Param("frame-count", "Frame count", "Frames created", 0, math.MaxUint64, 0, glib.ParameterReadable),
	})
	InstallPushSrcCreate(klass)
	newFrameSignal, classInitErr = gstglue.NewSignal(klass, "new-frame", gstglue.BufferGType(), glib.TYPE_UINT64)
}

func (s *testSrc) SetProperty(*glib.Object, uint, *glib.Value) {}

// GetProperty receives the 0-based index of the property in
// InstallProperties (go-glib passes prop_id-1).
func (s *testSrc) GetProperty(_ *glib.Object, id uint) *glib.Value {
	switch id {
	case 0:
		st := gst.NewStructure("gstc-test-stats")
		st.SetValue("frames", s.frames.Load())
		v, _ := gstglue.TakeStructureValue(st)
		return v
	case 1:
		v, _ := glib.GValue(s.frames.Load())
		return v
	}
	return nil
}

func (s *testSrc) CreateRaw(self gstglue.RawElement) (flow gst.FlowReturn, out gstglue.RawBuffer) {
	h := &srcHarness
	n := s.frames.Add(1)
	h.mu.Lock()
	failAt, panicAt := h.failAt, h.panicAt
	h.mu.Unlock()
	if n == panicAt {
		panic(fmt.Sprintf("boom at frame %d", n))
	}
	if n == failAt {
		gstglue.PostErrorRaw(self, gstglue.StreamFormat, fmt.Sprintf("frame %d: stride 100 is shorter than a row (320 bytes)", n),
			"raised by the test")
		return gst.FlowError, gstglue.RawBuffer{}
	}
	mem, err := gstglue.WrapFd(true, h.fd, h.size, func() { h.released.Add(1) })
	if err != nil {
		gstglue.PostErrorRaw(self, gstglue.ResourceRead, err.Error(), "")
		return gst.FlowError, gstglue.RawBuffer{}
	}
	buf := gst.NewEmptyBuffer()
	// From here on the buffer's reference is the RawBuffer's: returned
	// with FlowOK it goes to GStreamer, otherwise the trampoline drops it.
	runtime.SetFinalizer(buf, nil)
	out = gstglue.BorrowBuffer(buf)
	if err := gstglue.AppendMemory(buf, mem); err != nil {
		gstglue.ReleaseMemory(mem)
		return gst.FlowError, out
	}
	pts := n * uint64(time.Millisecond)
	buf.SetPresentationTimestamp(gst.ClockTime(pts))
	ev, err := tensorsync.NewEvent(tensorsync.Downstream, tensorsync.Info{Phase: tensorsync.PhaseBegin,
		Access: tensorsync.AccessRead, Dev: h.dev, Ino: h.ino, PTS: pts, Seqnum: uint32(n)})
	if err != nil {
		panic(err)
	}
	flow = gst.FlowOK
	// The go-gst wrapper of self, for the pad and the signal (this test
	// element does not care about allocations).
	glib.WithPointerTransferOriginal(self.Unsafe(), func(obj *glib.Object, _ glib.GoObjectSubclass) {
		elem := gst.ToElement(obj)
		pad := elem.GetStaticPad("src")
		pad.PushEvent(ev)
		gstglue.ReleasePad(pad)
		if err := gstglue.EmitSignal(elem, newFrameSignal, buf, n); err != nil {
			gstglue.PostErrorRaw(self, gstglue.CoreFailed, err.Error(), "")
			flow = gst.FlowError
		}
	})
	return flow, out
}

func (s *testSrc) Event(self *base.GstBaseSrc, ev *gst.Event) bool {
	if ts, ok := tensorsync.Parse(ev); ok {
		srcHarness.mu.Lock()
		srcHarness.syncs = append(srcHarness.syncs, ts)
		srcHarness.mu.Unlock()
		return true
	}
	return BaseSrcParentEvent(self, ev)
}

// setupSrc prepares the harness with a fresh memfd; the returned func
// closes it.
func setupSrc(t *testing.T, failAt, panicAt uint64) func() {
	t.Helper()
	if classInitErr != nil {
		t.Fatal(classInitErr)
	}
	fd := newMemfd(t, pattern(4096))
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	h := &srcHarness
	h.mu.Lock()
	h.fd, h.size, h.dev, h.ino = fd, 4096, uint64(st.Dev), st.Ino
	h.failAt, h.panicAt, h.syncs = failAt, panicAt, nil
	h.mu.Unlock()
	h.released.Store(0)
	return func() { unix.Close(fd) }
}

func runToEnd(t *testing.T, p *gst.Pipeline) *gst.Message {
	t.Helper()
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(10*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS or error within 10s")
	}
	return msg
}

// runLaunch runs the pipeline desc to EOS or an error, stops it and
// returns that message.
func runLaunch(t *testing.T, desc string) *gst.Message {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	msg := runToEnd(t, p)
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
	return msg
}

func TestPushSrcPipeline(t *testing.T) {
	checkFds(t)
	defer setupSrc(t, 0, 0)()
	p, err := gst.NewPipelineFromString("gstctestsrc name=src num-buffers=3 ! fakesink name=sink")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := p.GetElementByName("src")
	sink, _ := p.GetElementByName("sink")

	// "new-frame" reaches a Go handler with the buffer and frame number.
	var mu sync.Mutex
	var signalled []uint64
	var dmabufSeen int
	if _, err := src.Connect("new-frame", func(_ *gst.Element, b *gst.Buffer, n uint64) {
		mu.Lock()
		defer mu.Unlock()
		signalled = append(signalled, n)
		if gstglue.PeekMemory(gstglue.BorrowBuffer(b), 0).IsDmabuf() {
			dmabufSeen++
		}
	}); err != nil {
		t.Fatal(err)
	}

	// What reaches the sink pad, in order.
	var seq []string
	var beginPTS []uint64
	sink.GetStaticPad("sink").AddProbe(gst.PadProbeTypeEventDownstream|gst.PadProbeTypeBuffer,
		func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
			mu.Lock()
			defer mu.Unlock()
			// go-gst's GetBuffer on an event probe is a GStreamer
			// CRITICAL, not a nil: check the type first.
			if info.Type()&gst.PadProbeTypeBuffer != 0 {
				m := gstglue.PeekMemory(gstglue.BorrowBuffer(info.GetBuffer()), 0)
				seq = append(seq, fmt.Sprintf("buffer(fd=%v)", m.IsFd()))
				return gst.PadProbeOK
			}
			ev := info.GetEvent()
			if ts, ok := tensorsync.Parse(ev); ok {
				seq = append(seq, fmt.Sprintf("tensorsync(%s,%d)", ts.Phase, ts.Seqnum))
				beginPTS = append(beginPTS, ts.PTS)
				return gst.PadProbeOK
			}
			seq = append(seq, ev.Type().String())
			return gst.PadProbeOK
		})

	if msg := runToEnd(t, p); msg.Type() != gst.MessageEOS {
		e, _ := gstglue.ParseErrorMessage(msg)
		t.Fatalf("pipeline error: %v", e)
	}

	// The sink closes brackets by pushing GstTensorSync end upstream; the
	// source's Event override parses it (others are chained up).
	end, _ := tensorsync.NewEvent(tensorsync.Upstream, tensorsync.Info{Phase: tensorsync.PhaseEnd,
		Access: tensorsync.AccessRead, Dev: srcHarness.dev, Ino: srcHarness.ino, PTS: 3 * uint64(time.Millisecond), Seqnum: 3})
	if !sink.GetStaticPad("sink").PushEvent(end) {
		t.Error("upstream GstTensorSync end event not handled by the source")
	}

	// Properties: hyphenated uint64, and a read-only GstStructure.
	if v, err := src.GetProperty("frame-count"); err != nil || v != uint64(3) {
		t.Errorf("frame-count = %v, %v", v, err)
	}
	st, err := gstglue.GetStructureProperty(src, "stats")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := st.GetValue("frames"); err != nil || v != uint64(3) {
		t.Errorf("stats frames = %v, %v (%s)", v, err, st)
	}
	st.Free()
	if _, err := gstglue.GetStructureProperty(src, "frame-count"); err == nil {
		t.Error("GetStructureProperty accepted a uint64 property")
	}

	p.SetState(gst.StateNull)

	runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise

	mu.Lock()
	defer mu.Unlock()
	t.Logf("sink pad saw: %s", strings.Join(seq, " "))
	if fmt.Sprint(signalled) != "[1 2 3]" || dmabufSeen != 3 {
		t.Errorf("new-frame signals %v, dmabuf %d", signalled, dmabufSeen)
	}
	// Each buffer arrives right after the begin event announcing it.
	var order []string
	for _, s := range seq {
		if strings.HasPrefix(s, "tensorsync") || strings.HasPrefix(s, "buffer") {
			order = append(order, s)
		}
	}
	want := "tensorsync(begin,1) buffer(fd=true) tensorsync(begin,2) buffer(fd=true) tensorsync(begin,3) buffer(fd=true)"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order at the sink:\n got %s\nwant %s", got, want)
	}
	if fmt.Sprint(beginPTS) != "[1000000 2000000 3000000]" {
		t.Errorf("begin PTS %v", beginPTS)
	}
	srcHarness.mu.Lock()
	syncs := srcHarness.syncs
	srcHarness.mu.Unlock()
	if len(syncs) != 1 || syncs[0].Phase != tensorsync.PhaseEnd || syncs[0].Seqnum != 3 || syncs[0].Ino != srcHarness.ino {
		t.Errorf("source received %+v", syncs)
	}
	// Every buffer, hence every memory, is freed by the time the pipeline
	// is in NULL: release ran once per frame, and the fd is still ours.
	if !settle(func() bool { return srcHarness.released.Load() >= 3 }) || srcHarness.released.Load() != 3 {
		t.Errorf("released %d times, want 3", srcHarness.released.Load())
	}
	if !fdOpen(srcHarness.fd) {
		t.Error("fd closed by GStreamer")
	}
}

// An error posted from the streaming thread keeps its text, domain and
// code all the way to the application, as gst-launch-1.0 would print it.
func TestPushSrcErrorText(t *testing.T) {
	checkFds(t)
	defer setupSrc(t, 2, 0)()
	msg := runLaunch(t, "gstctestsrc num-buffers=5 ! fakesink")
	e, ok := gstglue.ParseErrorMessage(msg)
	if !ok || msg.Type() != gst.MessageError {
		t.Fatalf("got %v, want an error message", msg)
	}
	const text = "frame 2: stride 100 is shorter than a row (320 bytes)"
	if e.Message != text || e.Domain != gstglue.DomainStream || e.Code != int(gstglue.StreamFormat) {
		t.Errorf("got %+v", e)
	}
	if !strings.Contains(e.Debug, "raised by the test") || !strings.Contains(e.Debug, "basesrc_test.go") {
		t.Errorf("debug %q lacks the debug text or caller location", e.Debug)
	}
	if ge := msg.ParseError(); ge == nil || ge.Error() != text {
		t.Errorf("go-gst ParseError sees %v", ge)
	}
	if srcHarness.released.Load() != 1 {
		t.Errorf("released %d, want 1 (one buffer before the error)", srcHarness.released.Load())
	}
}

// A panic in CreateRaw becomes an element error, not a crash.
func TestPushSrcPanicRecovered(t *testing.T) {
	checkFds(t)
	defer setupSrc(t, 0, 2)()
	msg := runLaunch(t, "gstctestsrc num-buffers=5 ! fakesink")
	e, ok := gstglue.ParseErrorMessage(msg)
	if !ok || e.Domain != gstglue.DomainCore || e.Code != int(gstglue.CoreFailed) || !strings.Contains(e.Message, "boom at frame 2") {
		t.Fatalf("got %+v", e)
	}
}

func TestEmitSignalArgumentChecks(t *testing.T) {
	if classInitErr != nil {
		t.Fatal(classInitErr)
	}
	elem, err := gst.NewElement("gstctestsrc")
	if err != nil {
		t.Fatal(err)
	}
	buf := gst.NewBufferWithSize(8)
	defer gstglue.UnrefBuffer(buf)
	if err := gstglue.EmitSignal(elem, newFrameSignal, buf); err == nil {
		t.Error("accepted a missing argument")
	}
	if err := gstglue.EmitSignal(elem, newFrameSignal, buf, int64(1)); err == nil {
		t.Error("accepted int64 for guint64")
	}
	if err := gstglue.EmitSignal(elem, newFrameSignal, "x", uint64(1)); err == nil {
		t.Error("accepted a string for GstBuffer")
	}
	if err := gstglue.EmitSignal(elem, newFrameSignal, buf, uint64(1)); err != nil {
		t.Error(err)
	}
}
