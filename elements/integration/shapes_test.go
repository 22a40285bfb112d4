package integration_test

// One CPU-access bracket per frame, whatever the pipeline's shape: the
// bracket belongs to the dma-buf (tensor's process-wide shared brackets),
// tensorsrc opens it before writing and leaves it when the slot's memory
// comes back from its last holder, and every tensorpinsink joins and
// leaves it — so a frame costs one DMA_BUF_IOCTL_SYNC START and one END
// with any number of branches, readers that release in any order,
// elements that hold a buffer back, and frames held past the pipeline's
// NULL. TestDMAHeapBracketShapes counts the real ioctls on dma-heap
// buffers (in the QEMU guest, `make test-dmabuf`); TestBracketShapesMemfd
// runs the same shapes with memfd standing in for the dma-buf, where the
// kernel issues no sync ioctl, so it checks the shared-bracket bookkeeping
// (opened, joined, closed) instead.

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

const shapeCaps = "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"

// shape is a pipeline shape and what one frame must cost in it.
type shape struct {
	name string
	// desc has %s for the source's properties; the tensorpinsinks are
	// named sink, sink2, ...
	desc  string
	sinks int
	// syncsPerFrame: DMA_BUF_IOCTL_SYNC calls per frame on a dma-buf.
	syncsPerFrame int
	// joined: every frame of every sink joined the source's bracket
	// (handoff=adopt); expired: begin events that cannot match (a
	// converter hands the sink other buffers).
	joined, expired bool
	// poolJoined: on the dma-heap pool the sink proposes (where the device
	// opens, whatever tensorsrc's backend), the sink joins
	// the bracket the converter's write map opened (pool-handoff=adopt)
	// instead of opening its own; on the memfd pool nothing is bracketed
	// before the sink.
	poolJoined bool
	// poolWriteCloses: on the dma-heap pool the converter's write map
	// opens and closes a bracket of its own per frame (pool-handoff=close).
	poolWriteCloses bool
	// sinkOpens: the sink brackets its own reads (its buffer's bracket
	// is not open when it arrives: handoff=close, or a copy).
	sinkOpens bool
	// hold: the application keeps every frame until after NULL.
	hold bool
	// app: the source is pattern=app, fed by a goroutine of the test
	// (Acquire, write, Push; EndOfStream after the last frame).
	app bool
}

var shapes = []shape{
	{name: "line", desc: "tensorsrc name=src %s ! " + shapeCaps + " ! queue ! tensorpinsink name=sink sync=false",
		sinks: 1, syncsPerFrame: 2, joined: true},
	// The same with nothing between source and sink: the sink's
	// streaming thread is the source's.
	{name: "line-no-queue", desc: "tensorsrc name=src %s ! " + shapeCaps + " ! tensorpinsink name=sink sync=false",
		sinks: 1, syncsPerFrame: 2, joined: true},
	{name: "tee-2-sinks", desc: "tensorsrc name=src %s ! " + shapeCaps + " ! tee name=t " +
		"t. ! queue ! tensorpinsink name=sink sync=false t. ! queue ! tensorpinsink name=sink2 sync=false",
		sinks: 2, syncsPerFrame: 2, joined: true},
	{name: "tee-3-branches-one-fakesink", desc: "tensorsrc name=src %s ! " + shapeCaps + " ! tee name=t " +
		"t. ! queue ! tensorpinsink name=sink sync=false t. ! queue max-size-buffers=1 ! tensorpinsink name=sink2 sync=false " +
		"t. ! queue ! fakesink sync=false",
		sinks: 2, syncsPerFrame: 2, joined: true},
	// videorate keeps buffer n until n+1 arrives, and forwards the begin
	// event of n+1 before buffer n.
	{name: "hold-back-videorate", desc: "tensorsrc name=src %s ! " + shapeCaps + " ! videorate ! queue ! tensorpinsink name=sink sync=false",
		sinks: 1, syncsPerFrame: 2, joined: true},
	{name: "held-across-null", desc: "tensorsrc name=src %s ! " + shapeCaps + " ! tensorpinsink name=sink sync=false max-leases=8",
		sinks: 1, syncsPerFrame: 2, joined: true, hold: true},
	// handoff=close: the source ends its bracket after writing; the sink
	// opens and ends its own.
	{name: "handoff-close", desc: "tensorsrc name=src handoff=close %s ! " + shapeCaps + " ! queue ! tensorpinsink name=sink sync=false",
		sinks: 1, syncsPerFrame: 4, sinkOpens: true},
	// Converters with nothing to convert are passthrough: the sink gets the
	// source's buffer (and its begin event) and joins its bracket.
	{name: "converter-passthrough", desc: "tensorsrc name=src %s ! " + shapeCaps + " ! videoconvert ! videoscale ! " + shapeCaps +
		" ! queue ! tensorpinsink name=sink sync=false",
		sinks: 1, syncsPerFrame: 2, joined: true},
	// A converter reads the source's buffer inside its bracket (its map
	// joins it: no ioctl) and writes into the pool the sink proposes
	// (dma-heap where it opens): its write map opens that buffer's bracket,
	// which travels with the buffer (pool-handoff=adopt); the sink joins it
	// and the pool's release ends it — 2 ioctls for the source's frame, 2
	// for the converter's (where the pool is memfd, the sink brackets it
	// itself, with no ioctl).
	{name: "converter-between", desc: "tensorsrc name=src %s ! " + shapeCaps + " ! videoconvert ! video/x-raw,format=BGRA ! tensorpinsink name=sink sync=false",
		sinks: 1, syncsPerFrame: 4, expired: true, sinkOpens: true, poolJoined: true},
	// The same with pool-handoff=close: the converter's write bracket ends
	// at its unmap (for a device that would read the buffer before the
	// sink), and the sink opens its own — 2 more ioctls a frame.
	{name: "converter-between-close", desc: "tensorsrc name=src %s ! " + shapeCaps + " ! videoconvert ! video/x-raw,format=BGRA ! " +
		"tensorpinsink name=sink sync=false pool-handoff=close",
		sinks: 1, syncsPerFrame: 6, expired: true, sinkOpens: true, poolWriteCloses: true},
	// pattern=app: the application's Acquire opens the slot's bracket
	// (in C, on the ring the built-in patterns use), the C create sends
	// it, and its return ends it — the same two ioctls a frame.
	{name: "app-line", desc: "tensorsrc name=src pattern=app %s ! " + shapeCaps + " ! queue ! tensorpinsink name=sink sync=false",
		sinks: 1, syncsPerFrame: 2, joined: true, app: true},
	{name: "app-tee-2-sinks", desc: "tensorsrc name=src pattern=app %s ! " + shapeCaps + " ! tee name=t " +
		"t. ! queue ! tensorpinsink name=sink sync=false t. ! queue ! tensorpinsink name=sink2 sync=false",
		sinks: 2, syncsPerFrame: 2, joined: true, app: true},
	{name: "app-handoff-close", desc: "tensorsrc name=src pattern=app handoff=close %s ! " + shapeCaps + " ! queue ! tensorpinsink name=sink sync=false",
		sinks: 1, syncsPerFrame: 4, sinkOpens: true, app: true},
}

// shapeResult is what one run of a shape counted.
type shapeResult struct {
	sinks         []tensorpinsink.Stats
	src           map[string]uint64
	delta         tensor.Stats // over the whole run, frames released
	beforeRelease tensor.Stats // hold: after NULL, before the frames were released
	delivered     []int
	heldAfterNull int
	problems      []string
}

func runShape(t *testing.T, sh shape, backend string, frames int) shapeResult {
	t.Helper()
	desc := fmt.Sprintf(sh.desc, fmt.Sprintf("backend=%s num-buffers=%d pool-size=4", backend, frames))
	if sh.hold {
		desc = fmt.Sprintf(sh.desc, fmt.Sprintf("backend=%s num-buffers=%d pool-size=%d", backend, frames, frames))
	}
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	var res shapeResult
	var mu sync.Mutex
	var held []tensorpinsink.Frame
	sinks := make([]*tensorpinsink.Sink, sh.sinks)
	res.delivered = make([]int, sh.sinks)
	for i := range sinks {
		name := "sink"
		if i > 0 {
			name = fmt.Sprintf("sink%d", i+1)
		}
		el, err := p.GetElementByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if sinks[i], err = tensorpinsink.FromElement(el); err != nil {
			t.Fatal(err)
		}
		i := i
		sinks[i].OnFrame(func(f tensorpinsink.Frame) {
			mu.Lock()
			defer mu.Unlock()
			res.delivered[i]++
			b := f.Bytes()
			if len(b) != 64*48*4 {
				res.problems = append(res.problems, fmt.Sprintf("sink %d: %d bytes", i, len(b)))
			}
			if _, open := tensor.OpenBracket(f.Tensor().Identity()); !open && !f.Copied() {
				res.problems = append(res.problems, fmt.Sprintf("sink %d: frame delivered outside a bracket", i))
			}
			if sh.hold {
				held = append(held, f)
				return
			}
			f.Release()
		})
	}
	before := tensor.ReadStats()
	p.SetState(gst.StatePlaying)
	fed := make(chan struct{})
	if sh.app {
		srcEl, _ := p.GetElementByName("src")
		src, err := tensorsrc.FromElement(srcEl)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer close(fed)
			if err := feedApp(src, frames); err != nil {
				mu.Lock()
				res.problems = append(res.problems, "feeding the source: "+err.Error())
				mu.Unlock()
			}
		}()
	} else {
		close(fed)
	}
	defer func() { <-fed }()
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(120*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		p.SetState(gst.StateNull)
		runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
		t.Fatalf("%s: no EOS within 120 s", sh.name)
	}
	if msg.Type() == gst.MessageError {
		ge, _ := gstglue.ParseErrorMessage(msg)
		p.SetState(gst.StateNull)
		runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
		t.Fatalf("%s: pipeline error: %+v", sh.name, ge)
	}
	for _, k := range sinks {
		res.sinks = append(res.sinks, k.Stats())
	}
	srcEl, _ := p.GetElementByName("src")
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
	if sh.hold {
		res.beforeRelease = tensor.ReadStats()
		mu.Lock()
		res.heldAfterNull = len(held)
		for _, f := range held {
			if f.Bytes() == nil {
				res.problems = append(res.problems, "a frame held across NULL became unreadable")
			}
			f.Release()
		}
		mu.Unlock()
	}
	res.delta = statsDelta(before, tensor.ReadStats())
	st, err := gstglue.GetStructureProperty(srcEl, "stats")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Free()
	res.src = map[string]uint64{}
	for _, key := range []string{"frames", "brackets-opened", "brackets-closed", "brackets-ended-here",
		"reader-end-events", "other-end-events", "brackets-open"} {
		v, err := st.GetValue(key)
		if err != nil {
			t.Fatalf("tensorsrc stats lack %s: %s", key, st)
		}
		res.src[key] = v.(uint64)
	}
	return res
}

// feedApp pushes frames frames into a pattern=app source, byte i of
// frame n being n+i, 30 a second of stream time, then ends the stream.
func feedApp(src *tensorsrc.Source, frames int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for n := range frames {
		sl, err := src.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("frame %d: %w", n, err)
		}
		for i, b := 0, sl.Bytes(); i < len(b); i++ {
			b[i] = byte(n + i)
		}
		if err := src.Push(sl, time.Duration(n)*time.Second/30); err != nil {
			return fmt.Errorf("frame %d: %w", n, err)
		}
	}
	return src.EndOfStream()
}

func statsDelta(a, b tensor.Stats) tensor.Stats {
	return tensor.Stats{
		SyncStart: b.SyncStart - a.SyncStart, SyncEnd: b.SyncEnd - a.SyncEnd,
		SyncNotTTY: b.SyncNotTTY - a.SyncNotTTY, SyncErrors: b.SyncErrors - a.SyncErrors,
		UnbalancedSyncs: b.UnbalancedSyncs - a.UnbalancedSyncs,
		BracketsOpened:  b.BracketsOpened - a.BracketsOpened, BracketsJoined: b.BracketsJoined - a.BracketsJoined,
		BracketsWidened: b.BracketsWidened - a.BracketsWidened, BracketsClosed: b.BracketsClosed - a.BracketsClosed,
	}
}

// dmaHeapPool reports whether the pool tensorpinsink proposes is on the
// DMA heap here (whatever tensorsrc's backend): its memory then brackets
// the converter's writes (gstglue's bracket allocator).
func dmaHeapPool() bool { return tensor.DeviceUsable(tensor.DMAHeapPath) == nil }

// checkShape asserts what every backend must show.
func checkShape(t *testing.T, sh shape, r shapeResult, frames int) {
	t.Helper()
	n := uint64(frames)
	if len(r.problems) > 0 {
		t.Fatalf("%d problem(s), first: %s", len(r.problems), r.problems[0])
	}
	for i, s := range r.sinks {
		if r.delivered[i] != frames || s.Frames != n {
			t.Errorf("sink %d: %d frames delivered (stats %d), want %d", i, r.delivered[i], s.Frames, frames)
		}
		joined := sh.joined || sh.poolJoined && dmaHeapPool()
		if joined && s.BracketsJoined != n {
			t.Errorf("sink %d: %d frames joined the source's (or the pool writer's) bracket, want %d (stats %+v)", i, s.BracketsJoined, frames, s)
		}
		if !joined && s.BracketsJoined != 0 {
			t.Errorf("sink %d: %d frames joined a bracket, want 0 (stats %+v)", i, s.BracketsJoined, s)
		}
		wantExpired := uint64(0)
		if sh.expired {
			wantExpired = n
		}
		wantMatched := n
		if sh.sinkOpens { // nothing announced (close), or not this buffer (a copy)
			wantMatched = 0
		}
		if s.BeginsExpired != wantExpired || s.BeginsMatched != wantMatched {
			t.Errorf("sink %d: begins matched %d, expired %d; want %d matched, %d expired", i, s.BeginsMatched, s.BeginsExpired,
				wantMatched, wantExpired)
		}
	}
	if r.src["frames"] != n || r.src["brackets-opened"] != n || r.src["brackets-closed"] != n || r.src["brackets-open"] != 0 {
		t.Errorf("tensorsrc stats %v: want %d frames, brackets opened and closed", r.src, frames)
	}
	if r.src["other-end-events"] != 0 {
		t.Errorf("tensorsrc got %d end events about no frame of its own", r.src["other-end-events"])
	}
	// The source is the last one out of its own bracket: every reader
	// holds the memory it waits for (with handoff=close, nobody joins).
	if r.src["brackets-ended-here"] != n {
		t.Errorf("tensorsrc ended %d brackets itself, want %d", r.src["brackets-ended-here"], frames)
	}
	// Every bracket opened was closed, and the bookkeeping balanced.
	opened := n
	if sh.sinkOpens {
		opened += n * uint64(sh.sinks) // the sinks' own brackets too
	}
	if sh.poolWriteCloses && dmaHeapPool() {
		opened += n // the converter's write brackets on the pool's buffers
	}
	if r.delta.BracketsOpened != opened || r.delta.BracketsClosed != opened || r.delta.UnbalancedSyncs != 0 {
		t.Errorf("shared brackets: %d opened, %d closed, %d unbalanced; want %d, %d, 0",
			r.delta.BracketsOpened, r.delta.BracketsClosed, r.delta.UnbalancedSyncs, opened, opened)
	}
	if sh.hold {
		if r.heldAfterNull != frames {
			t.Errorf("%d frames held across NULL, want %d", r.heldAfterNull, frames)
		}
	}
}

// eachShape runs every shape on backend (60 frames, 6 for the held case)
// through checkShape, then extra with the run's figures and the counters
// read before it.
func eachShape(t *testing.T, backend string, extra func(t *testing.T, sh shape, r shapeResult, frames int, before tensor.Stats)) {
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			frames := 60
			if sh.hold {
				frames = 6
			}
			before := tensor.ReadStats()
			r := runShape(t, sh, backend, frames)
			checkShape(t, sh, r, frames)
			extra(t, sh, r, frames, before)
		})
	}
}

// The shapes with memfd standing in for dma-bufs: no ioctl is issued
// (memfd has no sync ioctl), so this checks the bookkeeping; the real
// ioctl counts come from TestDMAHeapBracketShapes in the QEMU guest.
func TestBracketShapesMemfd(t *testing.T) {
	eachShape(t, "memfd", func(t *testing.T, sh shape, r shapeResult, frames int, before tensor.Stats) {
		if sh.hold {
			// Stop left every bracket open: the frames are still held.
			if c := r.beforeRelease.BracketsClosed - before.BracketsClosed; c != 0 {
				t.Errorf("%d brackets closed by NULL while the application held the frames, want 0", c)
			}
		}
	})
}

// The shapes on real dma-heap buffers, counting DMA_BUF_IOCTL_SYNC calls
// (tensor's counters count only calls the kernel accepted; an fd answering
// ENOTTY would show up in SyncNotTTY).
func TestDMAHeapBracketShapes(t *testing.T) {
	needReal(t, tensor.DMAHeapPath, openable(tensor.DMAHeapPath))
	eachShape(t, "dma-heap", func(t *testing.T, sh shape, r shapeResult, frames int, before tensor.Stats) {
		d := r.delta
		if d.SyncNotTTY != 0 || d.SyncErrors != 0 {
			t.Fatalf("%d ENOTTY, %d errors: not real dma-bufs?", d.SyncNotTTY, d.SyncErrors)
		}
		per := sh.syncsPerFrame / 2
		if d.SyncStart != uint64(per*frames) || d.SyncEnd != uint64(per*frames) {
			t.Errorf("%d START + %d END DMA_BUF_IOCTL_SYNC for %d frames, want %d each (%d per frame)",
				d.SyncStart, d.SyncEnd, frames, per*frames, sh.syncsPerFrame)
		}
		if sh.hold {
			if e := r.beforeRelease.SyncEnd - before.SyncEnd; e != 0 {
				t.Errorf("%d END ioctls by NULL while the application held the frames, want 0", e)
			}
		}
		t.Logf("%s: %d frames, %d START + %d END sync ioctls (%.1f per frame)", sh.name, frames, d.SyncStart, d.SyncEnd,
			float64(d.SyncStart+d.SyncEnd)/float64(frames))
		// For scripts/vmtest/bench and the report (scripts/benchreport/guest.go).
		logShapeCounts(t, sh.name, frames, d.SyncStart, d.SyncEnd, sh.syncsPerFrame,
			strings.ReplaceAll(fmt.Sprintf(sh.desc, "backend=dma-heap"), shapeCaps, "video/x-raw,format=RGBA,64x48"))
	})
}

// logShapeCounts prints one machine-readable line of a shape's real
// DMA_BUF_IOCTL_SYNC counts, which scripts/vmtest/bench collects for the
// performance report (scripts/benchreport/guest.go): shape, frames, START
// and END calls, the SYNC calls per frame the design allows, the test's
// name (which scripts/vmtest/guest-bench matches to strace's counts), and
// the pipeline last.
func logShapeCounts(t *testing.T, name string, frames int, start, end uint64, target int, pipeline string) {
	t.Helper()
	logShapeCountsForeign(t, name, frames, start, end, target, 0, pipeline)
}

// logShapeCountsForeign is logShapeCounts for a shape where GStreamer
// also syncs, foreign times a frame, a buffer the project does not own
// (a converter mapping a V4L2 camera's dma-buf): strace counts those,
// package tensor does not, and the report expects them.
func logShapeCountsForeign(t *testing.T, name string, frames int, start, end uint64, target, foreign int, pipeline string) {
	t.Helper()
	t.Logf("tensorpin-shape: shape=%s frames=%d start=%d end=%d target=%d foreign=%d test=%s pipeline=%s",
		name, frames, start, end, target, foreign, t.Name(), pipeline)
}
