package integration_test

// tensorinfer on real dma-bufs (issue 18 item 4): the input's bracket is
// joined (tensorsrc's) or opened (a pool buffer nobody bracketed) by
// tensorinfer, its output's is opened by tensorinfer and joined by
// tensorpinsink, and each costs exactly one DMA_BUF_IOCTL_SYNC START and
// one END per frame — counted with package tensor's counters in the QEMU
// guest, where the input and the output ring are dma-heap buffers. Both
// skip on a host without /dev/dma_heap/system (memfd's SYNC is ENOTTY:
// the counts would prove nothing), and need ONNX Runtime (infertest.Lib;
// the lane passes the host's ONNXRUNTIME_LIB to the guest).

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// scoresMatch compares one output frame's float32 scores with the shipped
// model's Go reference of img.
func scoresMatch(out, img []byte) error {
	want := infertest.ShippedReference(img)
	if len(out) != 4*len(want) {
		return fmt.Errorf("%d output bytes, want %d", len(out), 4*len(want))
	}
	for i, w := range want {
		g := float64(math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])))
		if !infertest.ShippedWithin(g, w) {
			return fmt.Errorf("score %d is %v, want %v", i, g, w)
		}
	}
	return nil
}

// inferCounts is what one tensorinfer run in the guest cost in package
// tensor's counters.
type inferCounts struct{ start, end, opened, closed, joined, unbalanced, notTTY, syncErrors uint64 }

func countsBetween(a, b tensor.Stats) inferCounts {
	return inferCounts{
		start: b.SyncStart - a.SyncStart, end: b.SyncEnd - a.SyncEnd,
		opened: b.BracketsOpened - a.BracketsOpened, closed: b.BracketsClosed - a.BracketsClosed,
		joined: b.BracketsJoined - a.BracketsJoined, unbalanced: b.UnbalancedSyncs - a.UnbalancedSyncs,
		notTTY: b.SyncNotTTY - a.SyncNotTTY, syncErrors: b.SyncErrors - a.SyncErrors,
	}
}

// checkTwoPerSide asserts the design's count: one bracket (a START and an
// END) on the input and one on each output tensor per frame — 2 SYNC per
// input frame and 2 per output frame — with nothing unbalanced and every
// fd a real dma-buf.
func checkTwoPerSide(t *testing.T, c inferCounts, frames, outputs int) {
	t.Helper()
	want := uint64(frames * (1 + outputs))
	if c.start != want || c.end != want {
		t.Errorf("%d START + %d END DMA_BUF_IOCTL_SYNC for %d frames of 1 input and %d output tensor(s): want %d each "+
			"(2 per input frame, 2 per output tensor)", c.start, c.end, frames, outputs, want)
	}
	if c.opened != want || c.closed != want {
		t.Errorf("%d brackets opened, %d closed, want %d each", c.opened, c.closed, want)
	}
	if c.unbalanced != 0 || c.notTTY != 0 || c.syncErrors != 0 {
		t.Errorf("%d unbalanced syncs, %d ENOTTY fds, %d sync errors: want none (real dma-bufs, balanced brackets)",
			c.unbalanced, c.notTTY, c.syncErrors)
	}
}

func inferStats(t *testing.T, p *gst.Pipeline) tensorinfer.Stats {
	t.Helper()
	e, err := p.GetElementByName("infer")
	if err != nil {
		t.Fatal(err)
	}
	s, err := tensorinfer.ReadStats(e)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tensorsrc backend=dma-heap ! tensorinfer (the shipped model) !
// tensorpinsink on real dma-heap buffers: tensorinfer joins tensorsrc's
// read-write bracket on each input (one START by the source, one END when
// the source's memory comes back after tensorinfer's end event), opens a
// read-write bracket on its output tensor (a dma-heap buffer of its own
// ring) that tensorpinsink joins and whose END comes when the frame's
// lease is released: exactly 2 SYNC per input frame and 2 per output
// frame. Every output equals the Go reference of its input.
func TestDMAHeapTensorInferSyncCounts(t *testing.T) {
	needReal(t, tensor.DMAHeapPath, openable(tensor.DMAHeapPath))
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const frames, pool, leases = 120, 4, 4
	p, sink, sinkEl := parseWithSink(t, fmt.Sprintf("tensorsrc backend=dma-heap num-buffers=%d pool-size=%d pattern=counter ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8,framerate=30/1 ! "+
		"tensorinfer name=infer max-leases=%d ort-library=%s model=%s ! tensorpinsink name=sink sync=false",
		frames, pool, leases, lib, model))
	var probe memProbe
	probe.attach(sinkEl)
	var mu sync.Mutex
	var problems []string
	n := 0
	addrs := map[uintptr]bool{}
	sink.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		defer mu.Unlock()
		bad := func(format string, a ...any) {
			if len(problems) < 10 {
				problems = append(problems, fmt.Sprintf("frame %d: ", n)+fmt.Sprintf(format, a...))
			}
		}
		if f.Copied() || f.Tensor().Backend() != tensor.BackendDMABuf {
			bad("copied %v, backend %v: want tensorinfer's dma-heap output, not copied", f.Copied(), f.Tensor().Backend())
		}
		if _, open := tensor.OpenBracket(f.Tensor().Identity()); !open {
			bad("delivered outside a bracket")
		}
		img := make([]byte, infertest.ShippedInputBytes)
		for i := range img {
			img[i] = byte(n*7) + byte(i) // tensorsrc's pattern=counter
		}
		if err := scoresMatch(f.PlaneBytes(0), img); err != nil {
			bad("%v", err)
		}
		addrs[f.Pin().Addr()] = true
		n++
	})
	before := tensor.ReadStats()
	s := run(t, p, sink)
	after := tensor.ReadStats()
	is := inferStats(t, p)
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("%d problem(s): %s", len(problems), strings.Join(problems, "; "))
	}
	if n != frames || probe.dmabuf != frames {
		t.Fatalf("%d frames delivered, %d of them DMA-BUF memory at the sink pad, want %d", n, probe.dmabuf, frames)
	}
	c := countsBetween(before, after)
	checkTwoPerSide(t, c, frames, 1)
	// The input's bracket is tensorsrc's, joined by tensorinfer; the
	// output's is tensorinfer's, joined by the sink.
	if c.joined != 2*frames {
		t.Errorf("%d bracket joins, want %d (tensorinfer joins each input's, the sink each output's)", c.joined, 2*frames)
	}
	if is.Frames != frames || is.InputBinds < 1 || is.InputBinds > pool || is.OutputBinds != leases+1 || is.Copies != 0 || is.Conversions != 0 ||
		is.BeginsMatched != frames || is.EndEventsSent != frames || is.OutBracketsOpened != frames || is.OutBracketsClosed != frames {
		t.Errorf("tensorinfer stats %+v: want %d frames, 1 to %d input binds (tensorsrc's ring is LIFO: one per slot used), %d output binds, no copy or conversion, every begin matched and ended, "+
			"a write bracket per frame", is, frames, pool, leases+1)
	}
	if s.BeginsMatched != frames || s.Copies != 0 {
		t.Errorf("sink stats %+v: want every frame's begin (tensorinfer's announcement) matched, no copy", s)
	}
	// The steady frame (C) joins each input's bracket and STARTs and ENDs
	// each output's: the counts above are its ioctls.
	if is.SteadyFrames < frames-is.InputBinds {
		t.Errorf("%d steady frames of %d with %d input binds: want every frame but each slot's first done in C", is.SteadyFrames, frames, is.InputBinds)
	}
	// tensorinfer's output ring hands out the slot returned last first:
	// as many distinct outputs as frames were downstream at once, at
	// most the whole ring (every slot is still allocated and bound).
	if len(addrs) < 1 || len(addrs) > leases+1 {
		t.Errorf("outputs from %d addresses, want 1 to the ring's %d", len(addrs), leases+1)
	}
	t.Logf("%d frames: %d START + %d END (%.1f SYNC per input frame + output frame), %d brackets opened, %d closed, %d joined, %d unbalanced, %d ENOTTY",
		frames, c.start, c.end, float64(c.start+c.end)/float64(frames), c.opened, c.closed, c.joined, c.unbalanced, c.notTTY)
	logShapeCounts(t, "tensorinfer-dma-heap", frames, c.start, c.end, 4,
		"tensorsrc backend=dma-heap ! other/tensors,uint8,3:64:64:1 ! tensorinfer model=model.onnx ! tensorpinsink")
}

// v4l2src io-mode=dmabuf (vivid) ! videoconvert ! videoscale ! RGB 64x64
// ! tensorinfer ! tensorpinsink: the scaler writes into the pool
// tensorinfer proposes (dma-heap in the guest), every frame is inferred
// with no copy, each pool buffer is bound once, tensorinfer brackets its
// own read of each input (no producer announced one) and its write of
// each output: 2 SYNC per input frame and 2 per output frame. Every output
// equals the Go reference of the frame tensorinfer was given.
func TestV4L2ConvertScaleIntoTensorInfer(t *testing.T) {
	dev := vividDevice(t, "vivid-000-vid-cap")
	needReal(t, tensor.DMAHeapPath, openable(tensor.DMAHeapPath))
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	const n = 20
	p, sink, _ := parseWithSink(t, fmt.Sprintf(`v4l2src device=%s io-mode=dmabuf num-buffers=%d extra-controls="c,osd_text_mode=2" ! `+
		`video/x-raw,format=YUY2,width=320,height=180 ! videoconvert ! videoscale ! video/x-raw,format=RGB,width=64,height=64 ! `+
		`tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false`, dev, n, lib, model))
	inferEl, _ := p.GetElementByName("infer")
	// What reaches tensorinfer: DMA-BUF memory of distinct pool buffers,
	// and each frame's bytes by PTS (for the reference).
	var mu sync.Mutex
	inputs := map[time.Duration][]byte{}
	ids := map[tensor.Identity]bool{}
	var inBufs, inDMABuf int
	var problems []string
	pad := inferEl.GetStaticPad("sink")
	pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		buf := info.GetBuffer()
		m := gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0)
		mu.Lock()
		defer mu.Unlock()
		inBufs++
		if m.IsDmabuf() {
			inDMABuf++
		}
		if m.IsFd() {
			if id, err := tensor.IdentityOf(m.FD()); err == nil {
				ids[id] = true
			}
		}
		mi := buf.Map(gst.MapRead)
		if mi == nil {
			problems = append(problems, "cannot map an input buffer")
			return gst.PadProbeOK
		}
		inputs[time.Duration(buf.PresentationTimestamp())] = append([]byte(nil), mi.Bytes()...)
		buf.Unmap()
		return gst.PadProbeOK
	})
	frames := 0
	sink.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		defer mu.Unlock()
		frames++
		img, ok := inputs[f.PTS()]
		switch {
		case f.Copied() || f.Tensor().Backend() != tensor.BackendDMABuf:
			problems = append(problems, fmt.Sprintf("output at %v: copied %v, backend %v", f.PTS(), f.Copied(), f.Tensor().Backend()))
		case !ok || len(img) != infertest.ShippedInputBytes:
			problems = append(problems, fmt.Sprintf("output at %v: no input of %d bytes with that PTS", f.PTS(), infertest.ShippedInputBytes))
		default:
			if err := scoresMatch(f.PlaneBytes(0), img); err != nil {
				problems = append(problems, fmt.Sprintf("output at %v: %v", f.PTS(), err))
			}
		}
	})
	before := tensor.ReadStats()
	s := run(t, p, sink)
	after := tensor.ReadStats()
	is := inferStats(t, p)
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("%d problem(s), first: %s", len(problems), strings.Join(problems[:min(len(problems), 5)], "; "))
	}
	if frames != n || inBufs != n || is.Frames != n || is.Runs != n || s.Frames != n {
		t.Fatalf("%d buffers into tensorinfer, %d inferred (%d runs), %d frames at the sink, want %d each", inBufs, is.Frames, is.Runs, frames, n)
	}
	if inDMABuf != n {
		t.Errorf("%d of %d input buffers were DMA-BUF memory: videoscale did not write into the dma-heap pool tensorinfer proposes", inDMABuf, n)
	}
	if is.Copies != 0 || is.BytesCopied != 0 || is.Conversions != 0 {
		t.Errorf("tensorinfer stats %+v: want no copy and no conversion", is)
	}
	if int(is.InputBinds) != len(ids) || len(ids) == 0 || len(ids) >= n {
		t.Errorf("%d input binds for %d distinct pool buffers over %d frames: want one bind per pool buffer", is.InputBinds, len(ids), n)
	}
	c := countsBetween(before, after)
	checkTwoPerSide(t, c, n, 1)
	t.Logf("vivid YUY2 → videoconvert → videoscale → tensorinfer: %d frames, %d pool buffers, %d input binds, %d copies, %d steady frames (done in C); "+
		"%d START + %d END (%.1f SYNC per input frame + output frame), %d unbalanced",
		n, len(ids), is.InputBinds, is.Copies, is.SteadyFrames, c.start, c.end, float64(c.start+c.end)/float64(n), c.unbalanced)
	// videoconvert maps the camera's dma-buf through GStreamer's own
	// allocator: a START and an END a frame that strace sees and package
	// tensor does not (as vivid-convert-scale-pool).
	logShapeCountsForeign(t, "tensorinfer-vivid", n, c.start, c.end, 4, 2,
		"v4l2src io-mode=dmabuf ! videoconvert ! videoscale ! RGB 64x64 ! tensorinfer model=model.onnx ! tensorpinsink")
}
