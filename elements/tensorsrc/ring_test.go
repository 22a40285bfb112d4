package tensorsrc

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

const frameRGB = 320 * 240 * 3

// A ring of 4 tensors serves 1000 frames: every frame carries the counter
// pattern, the whole run costs 4 mmaps (one per slot, at allocation), a
// slot's GstMemory is the same object every time it comes back, and every
// bracket is opened once and closed once — by the source, since fakesink
// sends no end events. fakesink frees each buffer before the next create,
// so the slot freed last — the same one every time — serves every frame
// (the ring used to go round-robin through all 4).
func TestRingCounter(t *testing.T) {
	const frames, pool = 1000, 4
	p, src := parse(t, "tensorsrc name=src num-buffers=1000 pool-size=4 ! fakesink name=sink enable-last-sample=false")
	rec := &recorder{pattern: patternCounter, check: frameRGB}
	rec.attach(t, p, "sink")
	before := tensor.ReadStats()
	if ge := play(t, p); ge != nil {
		t.Fatalf("pipeline error: %s", ge.Message)
	}
	el := goElement(t, src)
	if n := el.openBrackets(); n != 0 {
		t.Errorf("%d brackets open at EOS", n)
	}
	st := stats(t, src)
	stop(t, p)
	after := tensor.ReadStats()

	items := rec.snapshot()
	bufs := buffers(items)
	if len(bufs) != frames {
		t.Fatalf("got %d buffers before EOS, want %d", len(bufs), frames)
	}
	if last := items[len(items)-1]; last.kind != "eos" {
		t.Errorf("last item %q, want eos", last.kind)
	}
	checkAnnounced(t, items)
	t.Logf("first items at the sink: %s", kinds(items, 6))

	memOf := map[tensor.Identity]gstglue.RawMemory{}
	var order []tensor.Identity
	bad, moved := 0, 0
	for i, b := range bufs {
		if !b.fd || b.off != uint64(i) || b.size < frameRGB {
			t.Fatalf("buffer %d: fd memory %v, offset %d, size %d", i, b.fd, b.off, b.size)
		}
		if !b.content {
			bad++
		}
		if m, ok := memOf[b.id]; !ok {
			memOf[b.id] = b.mem
			order = append(order, b.id)
		} else if m != b.mem {
			t.Errorf("buffer %d: slot %v wrapped in a new GstMemory", i, b.id)
		}
		if b.id != order[0] && moved == 0 {
			t.Errorf("buffer %d: slot %v, want %v: the previous frame's slot, freed last", i, b.id, order[0])
		}
		if b.id != order[0] {
			moved++
		}
		if !b.hasMeta || b.meta.Strides[0] != 960 || b.meta.Format != "RGB" {
			t.Errorf("buffer %d: video meta %v %+v", i, b.hasMeta, b.meta)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d frames did not match the counter pattern", bad, frames)
	}
	if len(order) != 1 {
		t.Errorf("%d distinct tensors, want 1 (each frame freed before the next)", len(order))
	}
	if d := after.Mmaps - before.Mmaps; d != pool {
		t.Errorf("%d mmaps for the run, want %d (one per slot, none per frame)", d, pool)
	}
	if after.Munmaps-before.Munmaps != pool {
		t.Errorf("%d munmaps after stop, want %d", after.Munmaps-before.Munmaps, pool)
	}
	// Two bracket halves per frame: real ioctls on a dma-buf, counted
	// no-ops on memfd.
	halves := (after.SyncStart - before.SyncStart) + (after.SyncEnd - before.SyncEnd) + (after.NoopSyncs - before.NoopSyncs)
	if halves != 2*frames || after.UnbalancedSyncs != before.UnbalancedSyncs {
		t.Errorf("%d bracket halves (%d unbalanced), want %d", halves, after.UnbalancedSyncs-before.UnbalancedSyncs, 2*frames)
	}
	t.Logf("stats: %v", st)
	wantStat(t, st, "frames", frames)
	wantStat(t, st, "mmaps", pool)
	wantStat(t, st, "brackets-opened", frames)
	wantStat(t, st, "brackets-closed", frames)
	wantStat(t, st, "brackets-ended-here", frames)
	wantStat(t, st, "brackets-open", 0)
	wantStat(t, st, "pool-size", pool)
}

// End events are counted by run: those about a frame in flight as
// reader ends, the others (a frame not sent yet, another dma-buf) as
// other ends; a second run of the same element starts from zero.
func TestEndEventsCountedPerRun(t *testing.T) {
	p, src := parse(t, "tensorsrc name=src num-buffers=100 pool-size=2 ! fakesink name=sink enable-last-sample=false")
	rec := &recorder{sendEnd: true, stray: true}
	rec.attach(t, p, "sink")
	for run := 1; run <= 2; run++ {
		if ge := play(t, p); ge != nil {
			t.Fatalf("run %d: pipeline error: %s", run, ge.Message)
		}
		st := stats(t, src)
		stop(t, p)
		wantStat(t, st, "frames", 100)
		wantStat(t, st, "reader-end-events", 100)
		wantStat(t, st, "other-end-events", 200)
		after := stats(t, src)
		wantStat(t, after, "reader-end-events", 100)
		wantStat(t, after, "other-end-events", 200)
	}
}

// A downstream reader that reports each frame done (an end event upstream
// before it drops the buffer, as tensorpinsink does) is counted, but does
// not end the bracket: the source ends it when the memory comes back,
// after every holder — so START and END both happen here.
func TestEndEventsFromDownstream(t *testing.T) {
	for name, between := range map[string]string{"direct": "", "queue": "queue ! "} {
		desc := "tensorsrc name=src num-buffers=200 pool-size=3 ! " + between + "fakesink name=sink enable-last-sample=false"
		t.Run(name, func(t *testing.T) {
			p, src := parse(t, desc)
			rec := &recorder{sendEnd: true}
			rec.attach(t, p, "sink")
			before := tensor.ReadStats()
			if ge := play(t, p); ge != nil {
				t.Fatalf("pipeline error: %s", ge.Message)
			}
			st := stats(t, src)
			stop(t, p)
			after := tensor.ReadStats()
			checkAnnounced(t, rec.snapshot())
			wantStat(t, st, "frames", 200)
			wantStat(t, st, "reader-end-events", 200)
			wantStat(t, st, "other-end-events", 0)
			wantStat(t, st, "brackets-closed", 200)
			wantStat(t, st, "brackets-ended-here", 200)
			wantStat(t, st, "brackets-open", 0)
			halves := (after.SyncStart - before.SyncStart) + (after.SyncEnd - before.SyncEnd) + (after.NoopSyncs - before.NoopSyncs)
			if halves != 400 {
				t.Errorf("%d bracket halves on the source's tensors, want 400 (START and END per frame)", halves)
			}
		})
	}
}

// The built-in patterns write what they promise (none: the zeros of a
// fresh slot, untouched).
func TestPatterns(t *testing.T) {
	for _, pat := range []struct {
		name string
		p    pattern
	}{{"gradient", patternGradient}, {"black", patternBlack}, {"counter", patternCounter}, {"none", patternNone}} {
		t.Run(pat.name, func(t *testing.T) {
			p, _ := parse(t, "tensorsrc name=src num-buffers=20 pool-size=2 pattern="+pat.name+
				" ! video/x-raw,format=GRAY8,width=100,height=30 ! fakesink name=sink enable-last-sample=false")
			rec := &recorder{pattern: pat.p, check: 100 * 30}
			rec.attach(t, p, "sink")
			if ge := play(t, p); ge != nil {
				t.Fatalf("pipeline error: %s", ge.Message)
			}
			stop(t, p)
			bufs := buffers(rec.snapshot())
			if len(bufs) != 20 {
				t.Fatalf("%d buffers, want 20", len(bufs))
			}
			for _, b := range bufs {
				if !b.content {
					t.Fatalf("frame %d does not hold the %s pattern", b.off, pat.name)
				}
			}
		})
	}
}

// The dma-buf read path of the tests (mmap: a dma-buf has no read).
func TestMmapRead(t *testing.T) {
	fd, err := unix.MemfdCreate("mmapread", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	want := make([]byte, 10000)
	fill(want, patternCounter, 5)
	if _, err := unix.Pwrite(fd, want, 0); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 5000)
	if err := mmapRead(fd, got, 4100); err != nil || !bytes.Equal(got, want[4100:9100]) {
		t.Fatalf("mmapRead: %v", err)
	}
}

func TestFill(t *testing.T) {
	b := make([]byte, 1000)
	fill(b, patternCounter, 3)
	for i, v := range b {
		if v != byte(3*7+i) {
			t.Fatalf("counter byte %d = %d", i, v)
		}
	}
	fill(b[:5], patternGradient, 9)
	if string(b[:5]) != "\x00\x01\x02\x03\x04" {
		t.Fatalf("gradient %v", b[:5])
	}
}

func TestFrameTimes(t *testing.T) {
	for _, c := range []struct {
		n        uint64
		fn, fd   int
		pts, dur uint64
	}{
		{0, 30, 1, 0, 33333333},
		{1, 30, 1, 33333333, 33333333},
		{2, 30, 1, 66666666, 33333334},
		{3, 30000, 1001, 100100000, 33366666},
		{5, 0, 1, gstglue.ClockTimeNone, gstglue.ClockTimeNone},
	} {
		pts, dur := frameTimes(c.n, c.fn, c.fd)
		if pts != c.pts || dur != c.dur {
			t.Errorf("frame %d at %d/%d: pts %d dur %d, want %d %d", c.n, c.fn, c.fd, pts, dur, c.pts, c.dur)
		}
	}
}

// A copy of a buffer made downstream shares the slot's memory (as
// gst_buffer_make_writable does behind a tee): the slot stays busy until
// the copy is gone, even though the buffer itself was freed.
func TestSharedMemoryKeepsSlot(t *testing.T) {
	p, src := parse(t, "tensorsrc name=src num-buffers=6 pool-size=2 ! fakesink name=sink enable-last-sample=false")
	sink, _ := p.GetElementByName("sink")
	var mu sync.Mutex
	var copies []*gst.Buffer
	sink.GetStaticPad("sink").AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		mu.Lock()
		defer mu.Unlock()
		if len(copies) < 2 {
			copies = append(copies, info.GetBuffer().Copy())
		}
		return gst.PadProbeOK
	})
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	// No queue: frame 1's push returns after fakesink freed the buffer,
	// so when frame 2's create waits for a slot both buffers are gone and
	// only the copies hold the slots' memory. A slot freed with its buffer
	// would be taken instead: no wait (the wait below times out) and more
	// frames.
	waitForSlotWaiter(t, src)
	if n := statU(t, src, "frames"); n != 2 {
		t.Fatalf("%d frames while copies hold both slots' memory", n)
	}
	mu.Lock()
	for _, c := range copies {
		gstglue.UnrefBuffer(c)
	}
	mu.Unlock()
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(5*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil || msg.Type() != gst.MessageEOS {
		t.Fatalf("no EOS after the copies were dropped: %v", msg)
	}
	st := stats(t, src)
	stop(t, p)
	wantStat(t, st, "frames", 6)
	wantStat(t, st, "brackets-open", 0)
}

// A downstream gst_buffer_resize on a frame shrinks the slot's memory in
// place (the buffer held the only reference). When that slot comes round
// again its frame must be whole: the ring restores the memory's region.
func TestResizedMemoryComesBackWhole(t *testing.T) {
	const frames, size = 6, 16 * 16
	p, src := parse(t, "tensorsrc name=src num-buffers=6 pool-size=2 ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=16:16:1,types=uint8 ! fakesink name=sink enable-last-sample=false")
	pad := src.GetStaticPad("src")
	defer gstglue.ReleasePad(pad)
	pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		if b := info.GetBuffer(); b.Offset() == 0 {
			b.Resize(0, size/2) // frame 0 only
		}
		return gst.PadProbeOK
	})
	var mu sync.Mutex
	var sizes []int64
	sinkEl, _ := p.GetElementByName("sink")
	sinkPad := sinkEl.GetStaticPad("sink")
	defer gstglue.ReleasePad(sinkPad)
	sinkPad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		mu.Lock()
		sizes = append(sizes, info.GetBuffer().GetSize())
		mu.Unlock()
		return gst.PadProbeOK
	})
	if ge := play(t, p); ge != nil {
		t.Fatalf("pipeline error: %s", ge.Message)
	}
	stop(t, p)
	mu.Lock()
	defer mu.Unlock()
	if len(sizes) != frames || sizes[0] != size/2 {
		t.Fatalf("sizes %v: want %d frames, the first resized to %d", sizes, frames, size/2)
	}
	for i, s := range sizes[1:] {
		if s != size {
			t.Errorf("frame %d has %d bytes, want %d: a resize of frame 0 stuck to its slot's memory", i+1, s, size)
		}
	}
}

// Downstream's ALLOCATION answer: its pools and allocators are declined
// in the query (tensorsrc pushes its own ring, and GstBaseSrc makes no
// default pool), and its min-buffers raises the ring — a downstream that
// holds 6 buffers at once gets a ring of 6 from pool-size=2, allocated
// once (6 mmaps, not 2 then 6).
func TestAllocationAnswerRaisesTheRing(t *testing.T) {
	p, src := parse(t, "tensorsrc name=src num-buffers=30 pool-size=2 ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=16:16:1,types=uint8 ! fakesink name=sink enable-last-sample=false")
	sinkEl, _ := p.GetElementByName("sink")
	pad := sinkEl.GetStaticPad("sink")
	defer gstglue.ReleasePad(pad)
	pad.AddProbe(gst.PadProbeTypeQueryDownstream, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		q := info.GetQuery()
		if q == nil || q.Type() != gst.QueryAllocation {
			return gst.PadProbeOK
		}
		q.AddAllocationPool(gst.NewBufferPool(), 256, 6, 0)
		return gst.PadProbeUnhandled // go-gst names GST_PAD_PROBE_HANDLED so
	})
	before := tensor.ReadStats()
	if ge := play(t, p); ge != nil {
		t.Fatalf("pipeline error: %s", ge.Message)
	}
	st := stats(t, src)
	pool := base.ToGstBaseSrc(src.Object).GetBufferPool()
	stop(t, p)
	if pool != nil {
		t.Error("GstBaseSrc has a buffer pool: downstream's pool was not declined, or a default one was made")
	}
	wantStat(t, st, "ring-size", 6)
	wantStat(t, st, "downstream-min-buffers", 6)
	wantStat(t, st, "mmaps", 6)
	wantStat(t, st, "frames", 30)
	if d := tensor.ReadStats().Mmaps - before.Mmaps; d != 6 {
		t.Errorf("%d mmaps, want 6: one ring of 6, allocated once", d)
	}
}

// Through a pipeline: copies made downstream hold frames 0 and 1's slots
// until EOS; every later frame is freed before the next create, so all
// of them use one slot — never a held one — and the ring's fourth slot is
// never written.
func TestRingReusesTheSlotFreedLastAroundHeldSlots(t *testing.T) {
	const frames = 20
	p, src := parse(t, "tensorsrc name=src num-buffers=20 pool-size=4 ! fakesink name=sink enable-last-sample=false")
	sink, _ := p.GetElementByName("sink")
	pad := sink.GetStaticPad("sink")
	defer gstglue.ReleasePad(pad)
	var mu sync.Mutex
	var copies []*gst.Buffer
	var ids []tensor.Identity
	pad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		mu.Lock()
		defer mu.Unlock()
		buf := info.GetBuffer()
		var st unix.Stat_t
		if err := unix.Fstat(gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0).FD(), &st); err != nil {
			t.Error(err)
		}
		ids = append(ids, tensor.Identity{Dev: st.Dev, Ino: st.Ino})
		if len(copies) < 2 {
			copies = append(copies, buf.Copy()) // shares the slot's memory
		}
		return gst.PadProbeOK
	})
	ge := play(t, p)
	st := stats(t, src)
	stop(t, p)
	mu.Lock()
	defer mu.Unlock()
	for _, c := range copies {
		gstglue.UnrefBuffer(c)
	}
	if ge != nil {
		t.Fatalf("pipeline error: %s", ge.Message)
	}
	if len(ids) != frames {
		t.Fatalf("%d frames, want %d", len(ids), frames)
	}
	if ids[0] == ids[1] {
		t.Fatalf("frames 0 and 1 share slot %v while a copy holds frame 0", ids[0])
	}
	for i, id := range ids[2:] {
		if id == ids[0] || id == ids[1] {
			t.Errorf("frame %d: slot %v, held by a copy of frame 0 or 1", i+2, id)
		} else if id != ids[2] {
			t.Errorf("frame %d: slot %v, want %v, the slot freed last", i+2, id, ids[2])
		}
	}
	wantStat(t, st, "frames", frames)
	wantStat(t, st, "waits-for-free-slot", 0)
}
