package integration_test

// Real-fence tests through the elements (TestDMABufFence*): vgem buffers
// (tensor/fencetest) carry write fences that only the test signals, pushed
// into tensorpinsink by appsrc, or attached to a tensorsrc pattern=app
// slot with SetWriteFence. The QEMU lane loads vgem; elsewhere they skip
// (fail under TENSORPIN_REQUIRE_DMABUF=1).

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/fencetest"
)

const fenceCaps = "other/tensors,format=static,num_tensors=1,dimensions=4096:1:1:1,types=uint8,framerate=0/1"

func vgemDevice(t *testing.T) *fencetest.Device {
	t.Helper()
	dev, err := fencetest.Open()
	needReal(t, "vgem", err)
	t.Cleanup(func() { dev.Close() })
	return dev
}

func vgemBuf(t *testing.T, dev *fencetest.Device) (*fencetest.Buffer, tensor.Identity) {
	t.Helper()
	b, err := dev.NewBuffer(4096)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close) // after the pipeline is in NULL (cleanups run last first)
	var st unix.Stat_t
	if err := unix.Fstat(b.FD, &st); err != nil {
		t.Fatal(err)
	}
	return b, tensor.Identity{Dev: st.Dev, Ino: st.Ino}
}

// pushDMABuf pushes a buffer wrapping the dma-buf fd (4096 bytes).
func pushDMABuf(t *testing.T, src *app.Source, fd int, pts time.Duration) {
	gsttest.PushFD(t, src, fd, 4096, pts)
}

// appsrc pushes a ready vgem buffer, one whose fence never signals, and
// the ready one again into tensorpinsink sync-timeout=100: with
// on-sync-timeout=drop the fenced frame is dropped and counted, the others
// arrive and the pipeline reaches EOS, nothing held and no bracket open.
func TestDMABufFenceSinkTimeoutDrops(t *testing.T) {
	dev := vgemDevice(t)
	ready, _ := vgemBuf(t, dev)
	stuck, stuckID := vgemBuf(t, dev)
	fence, err := stuck.AttachWriteFence()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.SignalFence(fence)
	p, k, _ := parseWithSink(t, "appsrc name=src format=time caps="+fenceCaps+
		" ! tensorpinsink name=sink sync-timeout=100 on-sync-timeout=drop")
	se, _ := p.GetElementByName("src")
	src := app.SrcFromElement(se)
	var frames []uint64
	k.OnFrame(func(f tensorpinsink.Frame) {
		frames = append(frames, uint64(f.PTS()))
		f.Release()
	})
	go func() {
		pushDMABuf(t, src, ready.FD, 0)
		pushDMABuf(t, src, stuck.FD, time.Millisecond)
		pushDMABuf(t, src, ready.FD, 2*time.Millisecond)
		src.EndStream()
	}()
	start := time.Now()
	s := run(t, p, k)
	elapsed := time.Since(start)
	t.Logf("3 frames, one stuck: %v to EOS; stats frames %d dropped %d fence-waits %d (max %v) timeouts %d",
		elapsed, s.Frames, s.Dropped, s.FenceWaits, time.Duration(s.FenceWaitMaxNanos), s.FenceTimeouts)
	if s.Frames != 2 || s.Dropped != 1 || s.FenceTimeouts != 1 || s.FenceWaits != 1 || s.LeasesOutstanding != 0 {
		t.Errorf("stats %+v, want 2 frames, 1 dropped, 1 fence wait that timed out", s)
	}
	if len(frames) != 2 || frames[1] != uint64(2*time.Millisecond) {
		t.Errorf("frames delivered at %v, want 0 and 2ms", frames)
	}
	if s.FenceWaitMaxNanos < uint64(100*time.Millisecond) || elapsed > 5*time.Second {
		t.Errorf("waited %v (run %v), want ≥ 100ms and well under vgem's 10s", time.Duration(s.FenceWaitMaxNanos), elapsed)
	}
	if _, open := tensor.OpenBracket(stuckID); open {
		t.Error("the stuck buffer's bracket is open")
	}
}

// The same stuck frame with on-sync-timeout=error: a bus error naming the
// dma-buf, the access and the time waited; the pipeline goes to NULL
// cleanly and no bracket stays open.
func TestDMABufFenceSinkTimeoutErrors(t *testing.T) {
	dev := vgemDevice(t)
	stuck, stuckID := vgemBuf(t, dev)
	fence, err := stuck.AttachWriteFence()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.SignalFence(fence)
	p, k, _ := parseWithSink(t, "appsrc name=src format=time caps="+fenceCaps+
		" ! tensorpinsink name=sink sync-timeout=100 on-sync-timeout=error")
	se, _ := p.GetElementByName("src")
	src := app.SrcFromElement(se)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	pushDMABuf(t, src, stuck.FD, 0)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(10*time.Second), gst.MessageEOS|gst.MessageError)
	elapsed := time.Since(start)
	if msg == nil || msg.Type() != gst.MessageError {
		p.SetState(gst.StateNull)
		runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
		t.Fatalf("no error within 10 s (%v)", msg)
	}
	ge, _ := gstglue.ParseErrorMessage(msg)
	t.Logf("error after %v: %s", elapsed, ge.Message)
	for _, want := range []string{stuckID.String(), "read access", "not signalled after", "sync-timeout 100 ms"} {
		if !strings.Contains(ge.Message, want) {
			t.Errorf("error %q does not name %q", ge.Message, want)
		}
	}
	if elapsed > 5*time.Second {
		t.Errorf("error after %v, want well under vgem's 10s", elapsed)
	}
	if err := p.SetState(gst.StateNull); err != nil {
		t.Fatalf("NULL after the error: %v", err)
	}
	if s := k.Stats(); s.FenceTimeouts != 1 || s.Frames != 0 || s.LeasesOutstanding != 0 {
		t.Errorf("stats %+v", s)
	}
	if _, open := tensor.OpenBracket(stuckID); open {
		t.Error("the stuck buffer's bracket is open after NULL")
	}
}

// tensorsrc pattern=app on dma-heap: the application hands the slot to a
// "device" (vgem) whose write fence it attaches with SetWriteFence (the
// vgem buffer's fence exported as a sync_file); the sink waits for it,
// ~200 ms, then delivers the frame.
func TestDMABufFenceTensorSrcWriteFence(t *testing.T) {
	needReal(t, tensor.DMAHeapPath, openable(tensor.DMAHeapPath))
	dev := vgemDevice(t)
	vb, _ := vgemBuf(t, dev)
	vt, err := tensor.ImportFD(vb.FD, tensor.Layout{DType: tensor.U8, Shape: []int{4096}})
	if err != nil {
		t.Fatal(err)
	}
	defer vt.Close()
	fence, err := vb.AttachWriteFence()
	if err != nil {
		t.Fatal(err)
	}
	p, k, _ := parseWithSink(t, "tensorsrc name=src pattern=app backend=dma-heap pool-size=2 ! "+
		"other/tensors,format=static,dimensions=(string)4096:1:1:1,types=(string)uint8 ! tensorpinsink name=sink sync-timeout=5000")
	se, _ := p.GetElementByName("src")
	src, err := tensorsrc.FromElement(se)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan byte, 1)
	k.OnFrame(func(f tensorpinsink.Frame) {
		got <- f.Bytes()[7]
		f.Release()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		sl, err := src.Acquire(ctx)
		if err != nil {
			errc <- err
			return
		}
		sl.Bytes()[7] = 42 // stands in for the device's write
		sf, err := vt.ExportSyncFile(tensor.AccessRead)
		if err == nil {
			err = src.SetWriteFence(sl, sf)
			unix.Close(sf)
		}
		if err != nil {
			src.Discard(sl)
			errc <- err
			return
		}
		if err := src.Push(sl, 0); err != nil {
			errc <- err
			return
		}
		time.Sleep(200 * time.Millisecond) // the device working
		if err := dev.SignalFence(fence); err != nil {
			errc <- err
			return
		}
		errc <- src.EndOfStream()
	}()
	s := run(t, p, k)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if b := <-got; b != 42 {
		t.Errorf("frame byte 7 = %d, want 42", b)
	}
	waited := time.Duration(s.FenceWaitMaxNanos)
	t.Logf("sink waited %v for the slot's write fence (signalled after 200ms); fence-waits %d", waited, s.FenceWaits)
	if s.Frames != 1 || s.FenceWaits != 1 || waited < 150*time.Millisecond || s.FenceTimeouts != 0 {
		t.Errorf("stats %+v, want 1 frame after one wait of ~200ms", s)
	}
	st, err := gstglue.GetStructureProperty(se, "stats")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Free()
	if v, _ := st.GetValue("fences-attached"); v != uint64(1) {
		t.Errorf("tensorsrc fences-attached = %v, want 1", v)
	}
}
