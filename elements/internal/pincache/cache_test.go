package pincache_test

import (
	"os"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

func TestMain(m *testing.M) { pintest.Main(m) }

// pool makes n memfds (stand-ins for the dma-bufs of a buffer pool), each
// filled with its index.
func pool(t testing.TB, n, size int) ([]int, []pincache.Key) {
	fds := make([]int, n)
	keys := make([]pincache.Key, n)
	for i := range fds {
		fd, err := unix.MemfdCreate("pool", unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		buf := make([]byte, size)
		for j := range buf {
			buf[j] = byte(i)
		}
		unix.Pwrite(fd, buf, 0)
		var st unix.Stat_t
		unix.Fstat(fd, &st)
		fds[i] = fd
		keys[i] = pincache.Key{ID: tensor.Identity{Dev: st.Dev, Ino: st.Ino}, Size: size}
	}
	return fds, keys
}

// get is what the sink does per frame: look up, else insert.
func get(t testing.TB, c *pincache.Cache, fd int, k pincache.Key) *pincache.Entry {
	if e := c.Lookup(k); e != nil {
		return e
	}
	e, err := c.Insert(fd, k)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestPoolCostsOneMmapPerBuffer(t *testing.T) {
	fds, keys := pool(t, 4, 4096)
	c := pincache.New(8)
	defer c.Close()
	before := tensor.ReadStats()
	addr := map[int]uintptr{}
	for frame := 0; frame < 1000; frame++ {
		i := frame % 4
		e := get(t, c, fds[i], keys[i])
		if a, ok := addr[i]; ok && a != e.Pin().Addr() {
			t.Fatalf("frame %d: buffer %d pinned at %#x, earlier at %#x", frame, i, e.Pin().Addr(), a)
		}
		addr[i] = e.Pin().Addr()
		if e.Pin().Bytes()[100] != byte(i) {
			t.Fatalf("buffer %d reads %d", i, e.Pin().Bytes()[100])
		}
		e.Release()
	}
	if d := tensor.ReadStats().Mmaps - before.Mmaps; d != 4 {
		t.Errorf("1000 frames over a pool of 4 cost %d mmaps, want 4", d)
	}
	if s := c.ReadStats(); s.Hits != 996 || s.Misses != 4 || s.Entries != 4 {
		t.Errorf("stats %+v, want 996 hits, 4 misses, 4 entries", s)
	}
}

func TestBoundedEvictionReleasesMappings(t *testing.T) {
	fds, keys := pool(t, 3, 4096)
	c := pincache.New(2)
	before := tensor.ReadStats()
	slots := map[int]int{}
	for i := range 3 {
		e := get(t, c, fds[i], keys[i])
		slots[i] = e.Slot()
		e.Release()
	}
	if s := c.ReadStats(); s.Entries != 2 || s.Evictions != 1 {
		t.Fatalf("stats %+v, want 2 entries and 1 eviction", s)
	}
	if d := tensor.ReadStats().Munmaps - before.Munmaps; d != 1 {
		t.Fatalf("eviction unmapped %d regions, want 1", d)
	}
	if slots[2] != slots[0] {
		t.Errorf("the evicted entry's slot %d was not reused (new slot %d)", slots[0], slots[2])
	}
	c.Close()
	if d := tensor.ReadStats().Munmaps - before.Munmaps; d != 3 {
		t.Fatalf("Close left %d mappings", 3-d)
	}
	if _, err := c.Insert(fds[0], keys[0]); err == nil {
		t.Fatal("Insert after Close succeeded")
	}
}

func TestEntryHeldByAFrameOutlivesEviction(t *testing.T) {
	fds, keys := pool(t, 2, 4096)
	c := pincache.New(1)
	defer c.Close()
	held := get(t, c, fds[0], keys[0])
	other := get(t, c, fds[1], keys[1]) // evicts held from the cache
	other.Release()
	if held.Live() {
		t.Fatal("evicted entry still live")
	}
	if c.Hit(held) {
		t.Fatal("Hit on an evicted entry succeeded")
	}
	if err := held.Tensor().SyncForCPU(tensor.AccessRead); err != nil {
		t.Fatalf("a frame's entry was closed under it: %v", err)
	}
	held.Tensor().SyncForDevice(tensor.AccessRead)
	if held.Pin().Bytes()[0] != 0 {
		t.Fatal("held entry lost its bytes")
	}
	held.Release()
}

func TestHitFastPathDoesNotAllocate(t *testing.T) {
	fds, keys := pool(t, 1, 4096)
	c := pincache.New(4)
	defer c.Close()
	e := get(t, c, fds[0], keys[0])
	e.Release()
	if n := testing.AllocsPerRun(100, func() {
		if !c.Hit(e) {
			t.Fatal("miss")
		}
		e.Release()
	}); n != 0 {
		t.Errorf("Hit+Release allocates %.1f times", n)
	}
	if n := testing.AllocsPerRun(100, func() { c.Lookup(keys[0]).Release() }); n != 0 {
		t.Errorf("Lookup+Release allocates %.1f times", n)
	}
}

func TestConcurrentInsertOfOneKeyKeepsOneEntry(t *testing.T) {
	fds, keys := pool(t, 1, 4096)
	c := pincache.New(4)
	defer c.Close()
	var wg sync.WaitGroup
	entries := make([]*pincache.Entry, 8)
	for g := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := c.Insert(fds[0], keys[0])
			if err != nil {
				t.Error(err)
				return
			}
			entries[g] = e
		}()
	}
	wg.Wait()
	for _, e := range entries[1:] {
		if e != entries[0] {
			t.Fatal("two entries for one key")
		}
	}
	for _, e := range entries {
		e.Release()
	}
	if s := c.ReadStats(); s.Entries != 1 {
		t.Fatalf("%d entries", s.Entries)
	}
}

func TestInsertRejectsMismatchedIdentity(t *testing.T) {
	fds, keys := pool(t, 2, 4096)
	c := pincache.New(4)
	defer c.Close()
	if _, err := c.Insert(fds[0], keys[1]); err == nil {
		t.Fatal("inserting fd 0 under fd 1's key succeeded")
	}
	if _, err := c.Insert(fds[0], pincache.Key{ID: keys[0].ID, Size: 8192}); err == nil {
		t.Fatal("a region larger than the file was accepted")
	}
}

// An application binds a runtime tensor per slot (PinSink.OnSlot): a slot
// number must name one address for as long as a frame holds its entry, so an
// evicted entry still held keeps its slot until its last reference goes.
func TestEvictedEntryHeldByAFrameKeepsItsSlot(t *testing.T) {
	fds, keys := pool(t, 3, 4096)
	c := pincache.New(1)
	defer c.Close()
	held := get(t, c, fds[0], keys[0])
	slot := held.Slot()
	e1 := get(t, c, fds[1], keys[1]) // evicts held
	if e1.Slot() == slot {
		t.Fatalf("entry at %#x got slot %d while the evicted entry at %#x still holds it",
			e1.Pin().Addr(), slot, held.Pin().Addr())
	}
	e1.Release()
	e2 := get(t, c, fds[2], keys[2]) // evicts e1, which nothing holds
	if e2.Slot() == slot {
		t.Fatalf("slot %d handed out again while a frame holds its entry", slot)
	}
	e2.Release()
	held.Release()
	again := get(t, c, fds[0], keys[0]) // evicts e2; held's slot is free now
	defer again.Release()
	if again.Slot() != slot {
		t.Errorf("after the held entry was released, a new entry got slot %d, want its freed slot %d", again.Slot(), slot)
	}
}

// A clone of an entry's pin keeps the address past the entry's life, and
// with it the slot: the application may still have a runtime bound there.
func TestPinCloneKeepsTheSlot(t *testing.T) {
	fds, keys := pool(t, 2, 4096)
	c := pincache.New(1)
	defer c.Close()
	e0 := get(t, c, fds[0], keys[0])
	slot := e0.Slot()
	clone, err := e0.Pin().Clone()
	if err != nil {
		t.Fatal(err)
	}
	e0.Release()
	e1 := get(t, c, fds[1], keys[1]) // evicts e0; only the clone is left
	if e1.Slot() == slot {
		t.Fatalf("slot %d handed to a new entry while a clone of the evicted entry's pin lives", slot)
	}
	if clone.Bytes()[0] != 0 {
		t.Fatal("the clone lost its bytes")
	}
	e1.Release()
	clone.Release()
	e2 := get(t, c, fds[0], keys[0]) // evicts e1; the clone's slot is free now
	defer e2.Release()
	if e2.Slot() != slot {
		t.Errorf("after the last clone was released, a new entry got slot %d, want the freed slot %d", e2.Slot(), slot)
	}
}

// Streaming threads and application goroutines holding entries across
// evictions: no two addresses held at the same time ever share a slot.
func TestHeldSlotsNameOneAddress(t *testing.T) {
	fds, keys := pool(t, 6, 4096)
	c := pincache.New(2)
	defer c.Close()
	var mu sync.Mutex
	type holding struct {
		addr uintptr
		n    int
	}
	held := map[int]*holding{}
	hold := func(e *pincache.Entry) bool {
		mu.Lock()
		defer mu.Unlock()
		h := held[e.Slot()]
		if h == nil {
			h = &holding{addr: e.Pin().Addr()}
			held[e.Slot()] = h
		} else if h.addr != e.Pin().Addr() {
			t.Errorf("slot %d names %#x and %#x at once", e.Slot(), h.addr, e.Pin().Addr())
			return false
		}
		h.n++
		return true
	}
	// Unregister before Release: the slot may be reused right after it.
	drop := func(e *pincache.Entry) {
		mu.Lock()
		h := held[e.Slot()]
		if h.n--; h.n == 0 {
			delete(held, e.Slot())
		}
		mu.Unlock()
		e.Release()
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev *pincache.Entry // held while the next is fetched
			for i := range 500 {
				k := (g + i*5) % len(keys)
				e := get(t, c, fds[k], keys[k])
				ok := hold(e)
				if prev != nil {
					drop(prev)
				}
				if !ok {
					e.Release()
					return
				}
				prev = e
			}
			drop(prev)
		}()
	}
	wg.Wait()
}

// closed reports whether view v was closed: its pin released and its
// lent tensor unusable.
func closed(t *testing.T, v *pincache.PlaneView) bool {
	a, err := v.Tensor.Alias(v.Tensor.Layout())
	if err != nil {
		if v.Pin.Valid() {
			t.Error("a closed view kept its pin")
		}
		return true
	}
	a.Close()
	return false
}

// viewsFor is what the sink does per frame and entry: the entry's views
// for layout gen, made once.
func viewsFor(t testing.TB, e *pincache.Entry, gen uint64, made *[]*pincache.PlaneView) *pincache.ViewSet {
	for _, vs := range e.ViewSets() {
		if vs.Gen == gen {
			e.UseViews(vs)
			return vs
		}
	}
	v, err := e.NewPlaneView(tensor.Layout{DType: tensor.U8, Shape: []int{int(gen%16) + 1}})
	if err != nil {
		t.Fatal(err)
	}
	if made != nil {
		*made = append(*made, v)
	}
	return e.AddViews(gen, []*pincache.PlaneView{v})
}

// A layout that flips every frame (a GstVideoMeta alternating between two
// strides) makes two view sets for good: no view per frame, no allocation
// per frame, nothing accumulated.
func TestFlippingLayoutReusesItsViews(t *testing.T) {
	fds, keys := pool(t, 1, 4096)
	c := pincache.New(4)
	defer c.Close()
	var made []*pincache.PlaneView
	frame := 0
	step := func() {
		e := get(t, c, fds[0], keys[0])
		viewsFor(t, e, uint64(1+frame%2), &made).Release()
		frame++
		e.Release()
	}
	for range 10 {
		step()
	}
	if n := testing.AllocsPerRun(soak(1000, 100000), step); n != 0 {
		t.Errorf("%v allocations per frame with a flipping layout, want 0", n)
	}
	if len(made) != 2 {
		t.Errorf("%d views made over %d frames of two layouts, want 2", len(made), frame)
	}
}

// A layout that changes every frame to one never seen before keeps at most
// MaxViewSets sets: older ones are closed as soon as no frame uses them;
// a set a frame still holds is closed when that frame lets it go.
func TestChangingLayoutKeepsBoundedViews(t *testing.T) {
	fds, keys := pool(t, 1, 4096)
	c := pincache.New(4)
	defer c.Close()
	var made []*pincache.PlaneView
	e := get(t, c, fds[0], keys[0])
	held := viewsFor(t, e, 1, &made) // a frame keeps layout 1's views
	e.Release()
	frames := soak(1000, 100000)
	for gen := 2; gen < frames; gen++ {
		e := get(t, c, fds[0], keys[0])
		viewsFor(t, e, uint64(gen), &made).Release()
		e.Release()
		if len(e.ViewSets()) > pincache.MaxViewSets {
			t.Fatalf("%d view sets kept", len(e.ViewSets()))
		}
	}
	open := 0
	for _, v := range made {
		if !closed(t, v) {
			open++
		}
	}
	if open != pincache.MaxViewSets+1 {
		t.Errorf("%d views open after %d layouts, want %d (the kept sets and the held one)", open, frames, pincache.MaxViewSets+1)
	}
	if closed(t, held.Views[0]) {
		t.Fatal("a view a frame still holds was closed")
	}
	held.Release()
	if !closed(t, held.Views[0]) {
		t.Error("the held view outlived its last frame")
	}
}

// A producer cycling through more buffers than the cache holds (a camera
// with 32 buffers, cache size 16) would cost an mmap, a munmap and a new
// slot per frame for ever; with AutoGrow the cache learns the pool within
// two cycles and then costs nothing: no mmap, no eviction, no new slot.
func TestCacheLearnsAPoolLargerThanItsBound(t *testing.T) {
	const n = 32
	fds, keys := pool(t, n, 4096)
	c := pincache.New(16)
	c.AutoGrow(4096)
	defer c.Close()
	frame := 0
	step := func() {
		i := frame % n
		frame++
		get(t, c, fds[i], keys[i]).Release()
	}
	for range 2 * n {
		step()
	}
	before, s0 := tensor.ReadStats(), c.ReadStats()
	slots := map[int]bool{}
	frames := soak(100*n, 100000)
	for range frames {
		i := frame % n
		e := get(t, c, fds[i], keys[i])
		slots[e.Slot()] = true
		e.Release()
		frame++
	}
	after, s1 := tensor.ReadStats(), c.ReadStats()
	if d := after.Mmaps - before.Mmaps; d != 0 {
		t.Errorf("%d mmaps over %d frames after learning, want 0", d, frames)
	}
	if d := s1.Evictions - s0.Evictions; d != 0 {
		t.Errorf("%d evictions over %d frames after learning, want 0", d, frames)
	}
	if len(slots) != n || s1.Max != n || s1.Entries != n {
		t.Errorf("%d slots, stats %+v: want %d slots, bound and entries", len(slots), s1, n)
	}
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Errorf("%v allocations per frame once learnt", n)
	}
}

// Buffers that never come back (new memory every frame) do not grow the
// cache: it stays at its bound and evicts.
func TestCacheDoesNotGrowForBuffersThatNeverReturn(t *testing.T) {
	fds, keys := pool(t, 40, 4096)
	c := pincache.New(16)
	c.AutoGrow(4096)
	defer c.Close()
	for i := range fds {
		get(t, c, fds[i], keys[i]).Release()
	}
	if s := c.ReadStats(); s.Max != 16 || s.Grown != 0 || s.Evictions != 24 {
		t.Errorf("stats %+v: want bound 16, not grown, 24 evictions", s)
	}
}

// soak returns full when TENSORPIN_SOAK=full (make soak), else short.
func soak(short, full int) int {
	if os.Getenv("TENSORPIN_SOAK") == "full" {
		return full
	}
	return short
}

// Touch marks an entry most recently used without a hit or a reference:
// the next insert evicts the other one (a frame done without asking the
// cache — tensorinfer's steady frame — still keeps its entry).
func TestTouchKeepsAnEntryFromEviction(t *testing.T) {
	fds, keys := pool(t, 3, 4096)
	c := pincache.New(2)
	defer c.Close()
	a := get(t, c, fds[0], keys[0])
	a.Release()
	b := get(t, c, fds[1], keys[1])
	b.Release()
	hits := c.ReadStats().Hits
	c.Touch(a) // a, inserted first, is most recently used now
	if s := c.ReadStats(); s.Hits != hits {
		t.Errorf("Touch counted a hit: %d → %d", hits, s.Hits)
	}
	e := get(t, c, fds[2], keys[2])
	e.Release()
	if !a.Live() || b.Live() {
		t.Fatalf("after the touch of the first entry an insert evicted it (live %v) instead of the second (live %v)", a.Live(), b.Live())
	}
}
