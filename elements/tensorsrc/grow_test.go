package tensorsrc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// holder is downstream holding buffers: a probe on a sink's pad keeps a
// copy of each buffer (sharing its memory: the slot stays downstream).
// While starving it drops the buffer too, so the sink never gets one and
// never prerolls — a sink waiting for its preroll while every slot is
// held elsewhere (a tee's other branch). Otherwise the buffer goes on and
// the holder keeps the last keep copies.
type holder struct {
	mu     sync.Mutex
	starve bool
	keep   int
	held   []*gst.Buffer
	seen   []tensor.Identity // every buffer's tensor, in order
}

func holdAt(t *testing.T, p *gst.Pipeline, sink string) *holder {
	t.Helper()
	h := &holder{starve: true}
	el, err := p.GetElementByName(sink)
	if err != nil {
		t.Fatal(err)
	}
	pad := el.GetStaticPad("sink")
	defer gstglue.ReleasePad(pad)
	pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		buf := info.GetBuffer()
		var st unix.Stat_t
		if err := unix.Fstat(gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0).FD(), &st); err != nil {
			t.Error(err)
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.seen = append(h.seen, tensor.Identity{Dev: st.Dev, Ino: st.Ino})
		h.held = append(h.held, buf.Copy())
		if h.starve {
			return gst.PadProbeDrop
		}
		for len(h.held) > h.keep {
			gstglue.UnrefBuffer(h.held[0])
			h.held = h.held[1:]
		}
		return gst.PadProbeOK
	})
	t.Cleanup(func() { h.pass(0) })
	return h
}

// pass ends the starving: the copies held beyond keep go back to the
// ring, and from now on the holder keeps the last keep buffers.
func (h *holder) pass(keep int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.starve, h.keep = false, keep
	for len(h.held) > keep {
		gstglue.UnrefBuffer(h.held[0])
		h.held = h.held[1:]
	}
}

func (h *holder) counts() (seen, held int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.seen), len(h.held)
}

func (h *holder) seenSince(i int) []tensor.Identity {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.seen[i:])
}

// ringSlots returns the running source's slots' tensors and the
// addresses of their pins, in slot order (test hook).
func (e *element) ringSlots() (ids []tensor.Identity, addrs []uintptr) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st == nil || e.st.ring == nil {
		return nil, nil
	}
	for i, sl := range e.st.ring.slots {
		if sl.idx != i {
			panic(fmt.Sprintf("ring slot %d has index %d", i, sl.idx))
		}
		ids = append(ids, sl.id)
		addrs = append(addrs, sl.pin.Addr())
	}
	return ids, addrs
}

// createWaits reports whether src's create waits for a free slot.
func createWaits(src *gst.Element) bool {
	return frameengine.WakeOf(gstglue.RawElementOf(src.Unsafe())).Waiters() > 0
}

// settledWithin waits (10 s at most) for p's state change to complete.
// gst_element_get_state also answers FAILURE when its wait wakes before
// the pending state is reached (a broadcast on the state condition, a
// newer state change: gstelement.c, "interrupted"); a FAILURE with no
// error on the bus is waited again.
func settledWithin(t *testing.T, p *gst.Pipeline, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ret, _ := p.GetState(gst.VoidPending, gst.ClockTime(max(time.Until(deadline), 0)))
		if ret == gst.StateChangeSuccess {
			return
		}
		m := p.GetPipelineBus().PopFiltered(gst.MessageError)
		if ret != gst.StateChangeFailure || m != nil || time.Now().After(deadline) {
			if m != nil {
				ge, _ := gstglue.ParseErrorMessage(m)
				t.Fatalf("%s: state change %v: error %+v", what, ret, ge)
			}
			t.Fatalf("%s: state change %v after 10 s", what, ret)
		}
		time.Sleep(time.Millisecond) // a FAILURE returns at once: not a busy loop
	}
}

// A sink that waits for its preroll while every slot is held downstream
// (in PAUSED nothing frees one) gets a frame: the ring grows, one tensor
// at a time, to exactly max-pool-size, then waits as before. Each tensor
// added is allocated and pinned once and kept: frames after the preroll
// cycle through the same five tensors, at the same pinned addresses,
// with no new mapping; the stats count the growth, and in PLAYING the
// ring does not grow however long create waits. Before max-pool-size the
// source waited with its two tensors held and the sink never prerolled.
func TestRingGrowsToMaxPoolSizeWhenAPrerollWaits(t *testing.T) {
	const pool, maxPool = 2, 5
	before := tensor.ReadStats()
	p, src := parse(t, fmt.Sprintf("tensorsrc name=src pool-size=%d max-pool-size=%d ! %s ! fakesink name=sink sync=false enable-last-sample=false",
		pool, maxPool, seekCaps))
	h := holdAt(t, p, "sink")
	el := goElement(t, src)
	if err := p.SetState(gst.StatePaused); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the ring grown to max-pool-size and create waiting", func() bool {
		return statU(t, src, "ring-size") == maxPool && createWaits(src)
	})
	// Frames 0 and 1 took the pool's tensors; frames 2, 3 and 4 each
	// waited and grew the ring; frame 5 waits at the bound.
	st := stats(t, src)
	wantStat(t, st, "frames", maxPool)
	wantStat(t, st, "pool-grown", maxPool-pool)
	wantStat(t, st, "ring-size", maxPool)
	wantStat(t, st, "mmaps", maxPool)
	wantStat(t, st, "pool-size", pool)
	wantStat(t, st, "max-pool-size", maxPool)
	wantStat(t, st, "waits-for-free-slot", maxPool-pool+1)
	ids, addrs := el.ringSlots()
	if seen, held := h.counts(); seen != maxPool || held != maxPool {
		t.Fatalf("downstream saw %d frames and holds %d, want %d and %d", seen, held, maxPool, maxPool)
	}
	if got := h.seenSince(0); !sameSet(got, ids) {
		t.Fatalf("frames held downstream are of tensors %v, the ring's are %v", got, ids)
	}
	// At the bound it only waits: no frame, no tensor more.
	time.Sleep(2 * growAfterFirst << (maxPool - pool))
	if n, r := statU(t, src, "frames"), statU(t, src, "ring-size"); n != maxPool || r != maxPool {
		t.Fatalf("at the bound: %d frames, ring of %d; want %d and %d", n, r, maxPool, maxPool)
	}

	// The sink prerolls once the frames are back; PLAYING with the last
	// four frames held makes every frame wait for one of the five.
	h.pass(maxPool - 1)
	settledWithin(t, p, "the preroll after the frames came back")
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	settledWithin(t, p, "PLAYING")
	waitFor(t, "60 frames after the growth", func() bool { seen, _ := h.counts(); return seen >= maxPool+60 })
	ids2, addrs2 := el.ringSlots()
	st = stats(t, src)
	stop(t, p)
	h.pass(0)
	if !slices.Equal(ids, ids2) || !slices.Equal(addrs, addrs2) {
		t.Errorf("the ring's tensors or pins moved: %v at %#x, then %v at %#x", ids, addrs, ids2, addrs2)
	}
	after := h.seenSince(maxPool)
	if !sameSet(after, ids) {
		t.Errorf("frames after the growth used tensors %v, want every one of the ring's %v and no other", distinct(after), ids)
	}
	wantStat(t, st, "ring-size", maxPool)
	wantStat(t, st, "pool-grown", maxPool-pool)
	wantStat(t, st, "mmaps", maxPool)
	p, src = nil, nil
	runtime.GC()
	if a := tensor.ReadStats(); a.Mmaps-before.Mmaps != maxPool || a.Munmaps-before.Munmaps != maxPool {
		t.Errorf("%d mmaps and %d munmaps for the run, want %d of each (one per tensor, grown ones too)",
			a.Mmaps-before.Mmaps, a.Munmaps-before.Munmaps, maxPool)
	}
}

// Where waiting for a free slot ends by itself, or nothing waits for a
// frame, the ring does not grow, however long create waits: with
// max-pool-size at pool-size (the old back-pressure: the preroll waits
// until the held frames come back); in PLAYING with the application
// holding every frame (it releases them when it wants); in PAUSED once
// every sink has prerolled (a queue in front of a prerolled sink filling
// up is no stall).
func TestRingDoesNotGrowWhereWaitingEnds(t *testing.T) {
	for _, c := range []struct {
		name, desc string
		state      gst.State
		frames     uint64 // made when create waits (at most; exactly with starve)
		starve     bool   // the holder starves the sink
		hold       int    // the holder keeps the last hold frames the sink got
	}{
		{"max-pool-size=pool-size", "tensorsrc name=src pool-size=2 max-pool-size=2 ! " + seekCaps + " ! fakesink name=sink sync=false",
			gst.StatePaused, 2, true, 0},
		// The frames are held by a probe, not pulled from an appsink:
		// GStreamer 1.22.0's appsink keeps the last pulled buffer after
		// its stop, until it is finalized (fixed upstream by "appsink:
		// Clear local sample storage when flushing"), which would keep
		// a slot of this ring past the test.
		{"playing", "tensorsrc name=src pool-size=2 ! " + seekCaps + " ! fakesink name=sink sync=false enable-last-sample=false",
			gst.StatePlaying, 2, false, 2},
		{"prerolled", "tensorsrc name=src pool-size=2 ! " + seekCaps + " ! queue ! fakesink name=sink sync=false enable-last-sample=false",
			gst.StatePaused, 2, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, src := parse(t, c.desc)
			defer func() { stop(t, p) }()
			var h *holder
			if c.starve || c.hold > 0 {
				h = holdAt(t, p, "sink")
				if !c.starve {
					h.pass(c.hold)
				}
			}
			if err := p.SetState(c.state); err != nil {
				t.Fatal(err)
			}
			if c.hold > 0 {
				waitFor(t, "the frames held", func() bool { _, held := h.counts(); return held == c.hold })
			}
			waitForSlotWaiter(t, src)
			if !c.starve {
				settledWithin(t, p, c.name)
			}
			// From here, several times the first growth's delay: a ring
			// that grew would have made a frame meanwhile. (Until the
			// pipeline settled, the state change of its start was a
			// preroll waiting: a start slower than the delay grows the
			// ring by design, so what it did is not checked.)
			st0 := stats(t, src)
			time.Sleep(5 * growAfterFirst)
			st := stats(t, src)
			for _, k := range []string{"frames", "ring-size", "pool-grown", "waits-for-free-slot"} {
				wantStat(t, st, k, st0[k])
			}
			// Still waiting: polled, as a ring that may grow leaves its
			// wait every growth delay to look for a waiting preroll and
			// enters it again (a single look can fall in that gap).
			waitForSlotWaiter(t, src)
			if g := st["pool-grown"].(uint64); g != 0 {
				t.Logf("the ring grew by %d while the start's state change was under way", g)
			}
			if c.starve {
				wantStat(t, st, "frames", c.frames)
				wantStat(t, st, "pool-grown", 0)
			}
			if c.starve {
				h.pass(0)
				settledWithin(t, p, "the preroll after the frames came back")
			}
		})
	}
}

// pattern=app: the application's Acquire waits for a free slot as
// create does, and the ring grows the same way for it — every slot
// downstream while the sink waits for its preroll — to max-pool-size;
// an Acquire at the bound waits until its context ends.
func TestAcquireGrowsTheRingWhenAPrerollWaits(t *testing.T) {
	const pool, maxPool = 2, 4
	p, srcEl := parse(t, fmt.Sprintf("tensorsrc name=src pattern=app pool-size=%d max-pool-size=%d ! "+
		"other/tensors,dimensions=(string)16:4:1:1,types=(string)uint8 ! fakesink name=sink sync=false", pool, maxPool))
	defer func() { stop(t, p) }()
	h := holdAt(t, p, "sink")
	src, err := FromElement(srcEl)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetState(gst.StatePaused); err != nil {
		t.Fatal(err)
	}
	var pins []uintptr
	for i := range maxPool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		sl, err := src.Acquire(ctx)
		cancel()
		if err != nil {
			t.Fatalf("Acquire %d with %d frames held downstream: %v (stats %v)", i, i, err, stats(t, srcEl))
		}
		if sl.Index() != i {
			t.Fatalf("Acquire %d: slot %d, want %d (the pool's, then the grown ones)", i, sl.Index(), i)
		}
		pins = append(pins, sl.Pin().Addr())
		if err := src.Push(sl, -1); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the pushed frames held downstream", func() bool { _, held := h.counts(); return held == maxPool })
	ctx, cancel := context.WithTimeout(context.Background(), 5*growAfterFirst<<(maxPool-pool))
	defer cancel()
	if sl, err := src.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire at the bound = slot %v, %v; want it to wait until its context ends", sl, err)
	}
	st := stats(t, srcEl)
	wantStat(t, st, "ring-size", maxPool)
	wantStat(t, st, "pool-grown", maxPool-pool)
	wantStat(t, st, "mmaps", maxPool)
	_, addrs := goElement(t, srcEl).ringSlots()
	if !slices.Equal(pins, addrs) {
		t.Errorf("pins of the acquired slots %#x, the ring's %#x", pins, addrs)
	}
	// The frames back, the application's next one prerolls the sink.
	h.pass(0)
	sl, err := src.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Push(sl, -1); err != nil {
		t.Fatal(err)
	}
	settledWithin(t, p, "the preroll after the frames came back")
}

// A grown ring is retired like any other at a renegotiation: the new
// layout gets a ring of pool-size, and every tensor of the old one —
// grown ones too — is unmapped and closed once it comes back.
func TestGrownRingIsRetiredAtARenegotiation(t *testing.T) {
	const pool, maxPool = 2, 4
	before := tensor.ReadStats()
	p, src := parse(t, fmt.Sprintf("tensorsrc name=src pool-size=%d max-pool-size=%d ! "+
		"capsfilter name=cf caps=video/x-raw,format=GRAY8,width=16,height=4,framerate=30/1 ! fakesink name=sink sync=false", pool, maxPool))
	defer func() { stop(t, p) }()
	h := holdAt(t, p, "sink")
	if err := p.SetState(gst.StatePaused); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the ring grown", func() bool { return statU(t, src, "ring-size") == maxPool && createWaits(src) })
	h.pass(0)
	settledWithin(t, p, "the preroll after the frames came back")
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	cf, _ := p.GetElementByName("cf")
	cf.SetProperty("caps", gst.NewCapsFromString("video/x-raw,format=GRAY8,width=32,height=4,framerate=30/1"))
	waitFor(t, "the new ring", func() bool { return statU(t, src, "mmaps") == maxPool+pool })
	mapped := func() int64 {
		now := tensor.ReadStats()
		return int64(now.Mmaps-before.Mmaps) - int64(now.Munmaps-before.Munmaps)
	}
	waitFor(t, "the grown ring's tensors unmapped", func() bool { return mapped() == pool })
	st := stats(t, src)
	wantStat(t, st, "ring-size", pool)
	wantStat(t, st, "pool-grown", maxPool-pool)
}

// A tensor the ring cannot grow by is a warning that says why (the
// allocation's error, the tensors held, the size and backend); the ring
// then grows no more and create waits as before, and the sink prerolls
// once the held frames come back.
func TestRingThatCannotGrowWarnsAndWaits(t *testing.T) {
	errNoRoom := errors.New("test: no room for another tensor")
	prev := allocTensor
	allocTensor = func(l tensor.Layout, o tensor.AllocOptions) (*tensor.Tensor, error) {
		if o.Name != "tensorsrc-0" && o.Name != "tensorsrc-1" {
			return nil, errNoRoom
		}
		return prev(l, o)
	}
	defer func() { allocTensor = prev }()
	p, src := parse(t, "tensorsrc name=src pool-size=2 max-pool-size=4 ! "+seekCaps+" ! fakesink name=sink sync=false")
	defer func() { stop(t, p) }()
	h := holdAt(t, p, "sink")
	if err := p.SetState(gst.StatePaused); err != nil {
		t.Fatal(err)
	}
	m := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(10*time.Second), gst.MessageWarning|gst.MessageError)
	if m == nil {
		t.Fatalf("no warning within 10 s (stats %v)", stats(t, src))
	}
	ge, ok := gstglue.ParseErrorMessage(m)
	if !ok || m.Type() != gst.MessageWarning || ge.Domain != gstglue.DomainResource ||
		ge.Code != int(gstglue.ResourceNoSpaceLeft) || !strings.Contains(ge.Message, errNoRoom.Error()) ||
		!strings.Contains(ge.Message, "ring's 2 tensors") {
		t.Fatalf("%v from %s: %+v; want a warning naming the allocation's error", m.Type(), m.Source(), ge)
	}
	waitFor(t, "create waiting after the failed growth", func() bool { return createWaits(src) })
	st := stats(t, src)
	wantStat(t, st, "frames", 2)
	wantStat(t, st, "ring-size", 2)
	wantStat(t, st, "pool-grown", 0)
	wantStat(t, st, "mmaps", 2)
	time.Sleep(5 * growAfterFirst) // no second try: a ring that cannot grow waits
	if m := p.GetPipelineBus().Pop(); m != nil && m.Type() == gst.MessageWarning {
		t.Errorf("a second warning: the ring tried to grow again")
	}
	h.pass(0)
	settledWithin(t, p, "the preroll after the frames came back")
}

func distinct(ids []tensor.Identity) []tensor.Identity {
	var out []tensor.Identity
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// sameSet reports whether a and b hold the same tensors (each any number
// of times).
func sameSet(a, b []tensor.Identity) bool {
	da, db := distinct(a), distinct(b)
	if len(da) != len(db) {
		return false
	}
	for _, id := range da {
		if !slices.Contains(db, id) {
			return false
		}
	}
	return true
}
