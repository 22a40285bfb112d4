package tensorpinsink_test

// Growth: what the sink costs per frame once it has seen a producer's
// buffers must be nothing — no Go allocation, no mmap, no eviction, no new
// slot — whatever the producer does that it may legitimately do: flip its
// GstVideoMeta every frame, wrap its dma-bufs in new GstMemory every frame,
// cycle through more buffers than cache-size. `make test` runs a short
// slice; TENSORPIN_SOAK=full (make soak) runs 100k frames.

import (
	"os"
	"runtime"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// soakFrames returns full when TENSORPIN_SOAK=full, else short.
func soakFrames(short, full int) int {
	if os.Getenv("TENSORPIN_SOAK") == "full" {
		return full
	}
	return short
}

// harness makes a tensorpinsink (props set), driven directly: started,
// with caps, each frame released by its handler, which counts new slots.
func harness(t *testing.T, caps string, props map[string]any) (*tensorpinsink.Harness, *tensorpinsink.Sink, *int) {
	t.Helper()
	e, err := gst.NewElement("tensorpinsink")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range props {
		if err := e.SetProperty(k, v); err != nil {
			t.Fatal(err)
		}
	}
	k, _ := tensorpinsink.FromElement(e)
	newSlots := new(int)
	k.OnFrame(func(f tensorpinsink.Frame) {
		if f.NewSlot() {
			*newSlots++
		}
		f.Release()
	})
	h := tensorpinsink.NewHarness(e)
	if !h.Start() || !h.SetCaps(gst.NewCapsFromString(caps)) {
		t.Fatal("start or caps refused")
	}
	t.Cleanup(func() { h.Stop(); runtime.KeepAlive(e) })
	return h, k, newSlots
}

// fdBuffer is a buffer of one fd memory over fd (size bytes), with a
// GstVideoMeta when meta is not nil.
func fdBuffer(t *testing.T, fd, size int, meta *gstglue.VideoMetaLayout) *gst.Buffer {
	t.Helper()
	mem, err := gstglue.NewFdMemory(fd, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := gst.NewEmptyBuffer()
	gstglue.AppendMemory(buf, mem)
	if meta != nil {
		if err := gstglue.AddVideoMeta(gstglue.BorrowBuffer(buf), meta); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { gstglue.UnrefBuffer(buf) })
	return buf
}

// renderAll renders frames buffers (bufs round-robin from frame start)
// and returns the Go allocations made meanwhile.
func renderAll(t *testing.T, h *tensorpinsink.Harness, bufs []*gst.Buffer, start, frames int) uint64 {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i := start; i < start+frames; i++ {
		if ret := h.Render(bufs[i%len(bufs)]); ret != gst.FlowOK {
			t.Fatalf("frame %d: %v", i, ret)
		}
	}
	runtime.ReadMemStats(&m1)
	return m1.Mallocs - m0.Mallocs
}

// perFrame fails if allocs over frames reach one per hundred frames (the
// runtime's own odd allocation is not the sink's).
func perFrame(t *testing.T, what string, allocs uint64, frames int) {
	t.Helper()
	t.Logf("%s: %d Go allocations over %d frames", what, allocs, frames)
	if allocs*100 >= uint64(frames) {
		t.Errorf("%s: %d Go allocations over %d frames (%.2f a frame), want none per frame", what, allocs, frames,
			float64(allocs)/float64(frames))
	}
}

// A producer whose GstVideoMeta flips between two layouts every frame
// (here: stride 16 and stride 32, over two pool buffers) costs, once both
// layouts were seen, no Go allocation, no mmap and no new slot per frame:
// the sink recognises each layout and each buffer's views of it again.
func TestVideoMetaFlippingEveryFrameGrowsNothing(t *testing.T) {
	const size = 32*3 + 16
	h, k, newSlots := harness(t, "video/x-raw,format=GRAY8,width=16,height=4,framerate=30/1", nil)
	metaA, err := gstglue.PrepareVideoMeta("GRAY8", 16, 4, []int{16}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	metaB, err := gstglue.PrepareVideoMeta("GRAY8", 16, 4, []int{32}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	fds := memfdPool(t, 2, size)
	bufs := []*gst.Buffer{fdBuffer(t, fds[0], size, metaA), fdBuffer(t, fds[0], size, metaB),
		fdBuffer(t, fds[1], size, metaA), fdBuffer(t, fds[1], size, metaB)}
	renderAll(t, h, bufs, 0, 2*len(bufs))
	before, s0 := tensor.ReadStats(), k.Stats()
	frames := soakFrames(2000, 100000)
	allocs := renderAll(t, h, bufs, 0, frames)
	s1 := k.Stats()
	if d := tensor.ReadStats().Mmaps - before.Mmaps; d != 0 || s1.Mmaps != 2 || *newSlots != 2 {
		t.Errorf("%d mmaps over %d frames (%d in all), %d new slots: want 2 mmaps and 2 slots for the whole run", d, frames, s1.Mmaps, *newSlots)
	}
	if s1.Frames-s0.Frames != uint64(frames) {
		t.Fatalf("%d frames delivered of %d", s1.Frames-s0.Frames, frames)
	}
	perFrame(t, "meta flipping every frame", allocs, frames)
}

// A producer that wraps its dma-bufs in a new GstMemory every frame (the
// memory carries no qdata yet; the sink finds the buffer by its fd's
// identity) costs an fstat per frame and no Go allocation: the memory gets
// the entry's qdata value, made once per entry.
func TestNewMemoryEveryFrameCostsNoAllocation(t *testing.T) {
	const size = 256
	h, k, newSlots := harness(t, tensorCaps, nil)
	fds := memfdPool(t, 2, size)
	frames := soakFrames(2000, 20000)
	bufs := make([]*gst.Buffer, frames+4)
	for i := range bufs {
		bufs[i] = fdBuffer(t, fds[i%2], size, nil)
	}
	renderAll(t, h, bufs[:4], 0, 4)
	allocs := renderAll(t, h, bufs[4:], 0, frames)
	if s := k.Stats(); s.Mmaps != 2 || *newSlots != 2 || s.CacheHits != uint64(frames+2) {
		t.Errorf("stats %+v, %d new slots: want 2 mmaps, 2 slots, every later frame a hit", s, *newSlots)
	}
	perFrame(t, "new GstMemory every frame", allocs, frames)
}

// A producer with 32 buffers (a camera's pool) and the default cache-size
// of 16 used to evict one buffer per frame for ever — an mmap, a munmap
// and a new slot (an OnSlot call) per frame. The sink learns the pool in
// its first cycles, says so once (a warning; stats cache-capacity), and
// after that costs nothing per frame.
func TestPoolOf32BuffersIsLearntNotEvictedEveryFrame(t *testing.T) {
	const n, size = 32, 256
	h, k, newSlots := harness(t, tensorCaps, nil)
	fds := memfdPool(t, n, size)
	bufs := make([]*gst.Buffer, n)
	for i := range bufs {
		bufs[i] = fdBuffer(t, fds[i], size, nil)
	}
	renderAll(t, h, bufs, 0, 2*n)
	before, s0, slots0 := tensor.ReadStats(), k.Stats(), *newSlots
	frames := soakFrames(100*n, 100000)
	allocs := renderAll(t, h, bufs, 0, frames)
	after, s1 := tensor.ReadStats(), k.Stats()
	if d := after.Mmaps - before.Mmaps; d != 0 {
		t.Errorf("%d mmaps over %d frames of a 32-buffer pool after the first two cycles, want 0", d, frames)
	}
	if d := after.Munmaps - before.Munmaps; d != 0 || s1.CacheEvictions != s0.CacheEvictions {
		t.Errorf("%d munmaps, %d evictions over %d frames, want 0", d, s1.CacheEvictions-s0.CacheEvictions, frames)
	}
	if *newSlots != slots0 || *newSlots > 2*n {
		t.Errorf("%d new slots over %d frames (%d in the first cycles), want none after learning", *newSlots-slots0, frames, slots0)
	}
	if s1.CacheCapacity != n {
		t.Errorf("cache-capacity %d, want %d (learnt)", s1.CacheCapacity, n)
	}
	perFrame(t, "32-buffer pool", allocs, frames)
}

// max-leases of 20 (above the default cache-size of 16): the cache holds
// every leased frame's buffer and the pool proposed upstream (21).
func TestCacheHoldsMaxLeasesAndTheProposedPool(t *testing.T) {
	_, k, _ := harness(t, tensorCaps, map[string]any{"max-leases": uint(20)})
	if s := k.Stats(); s.CacheCapacity != 21 {
		t.Fatalf("cache-capacity %d with max-leases=20, want 21", s.CacheCapacity)
	}
}

// Sinks made, run and stopped one after another do not intern a qdata key
// (a GQuark, kept by GLib for good) each: a run borrows one and gives it
// back.
func TestSinkRunsReuseTheirQdataKeys(t *testing.T) {
	run := func() {
		h, _, _ := harness(t, tensorCaps, nil)
		fds := memfdPool(t, 1, 256)
		renderAll(t, h, []*gst.Buffer{fdBuffer(t, fds[0], 256, nil)}, 0, 2)
		h.Stop()
	}
	run()
	keys := gstglue.QdataKeys()
	for range 20 {
		run()
	}
	if d := gstglue.QdataKeys() - keys; d != 0 {
		t.Fatalf("20 sink runs interned %d more qdata keys, want 0", d)
	}
}
