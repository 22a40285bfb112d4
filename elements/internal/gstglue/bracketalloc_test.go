package gstglue

import (
	"os"
	"sync"
	"testing"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// bracketMemfd returns a memfd of n bytes standing in for a dma-buf: the
// kernel answers its DMA_BUF_IOCTL_SYNC with ENOTTY, so no cache is
// maintained, but the process's bracket table — what these tests check —
// does exactly what it does for a real dma-buf (the QEMU lane counts the
// real ioctls).
func bracketMemfd(t *testing.T, n int) (int, tensor.Identity) {
	t.Helper()
	fd, err := unix.MemfdCreate("bracket-alloc-test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Ftruncate(fd, int64(n)); err != nil {
		t.Fatal(err)
	}
	id, err := tensor.IdentityOf(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fd, id
}

func bracketOpen(id tensor.Identity) bool {
	_, open := tensor.OpenBracket(id)
	return open
}

// A GStreamer map of the project's DMA-BUF memory (tensorsrc's ring
// memory, wrapFd) brackets through the process's table: with no bracket
// open it opens one and its unmap closes it, as GStreamer's own map
// would; inside a bracket a tensor has open (tensorsrc's frame) it joins
// — no START, no END — and the bracket stays open after the unmap.
func TestBracketAllocatorMapsJoinTheProcessBracket(t *testing.T) {
	fd, id := bracketMemfd(t, 4096)
	mem, err := wrapFd(true, fd, 4096, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := BorrowMemory(mem)
	defer unrefMemory(mem)
	if !m.IsDmabuf() {
		t.Fatal("the bracket allocator's memory is not dmabuf memory to GStreamer")
	}

	before := tensor.ReadStats()
	mp, err := mapMemory(m, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bracketOpen(id) {
		t.Fatal("no bracket open during a map")
	}
	mp.unmap()
	if bracketOpen(id) {
		t.Fatal("bracket still open after the unmap")
	}
	after := tensor.ReadStats()
	if after.FileBracketEnters-before.FileBracketEnters != 1 || after.BracketsOpened-before.BracketsOpened != 1 ||
		after.BracketsClosed-before.BracketsClosed != 1 {
		t.Fatalf("one map: %d enters, %d opened, %d closed; want 1 each", after.FileBracketEnters-before.FileBracketEnters,
			after.BracketsOpened-before.BracketsOpened, after.BracketsClosed-before.BracketsClosed)
	}

	tn, err := tensor.ImportFD(fd, tensor.Layout{DType: tensor.U8, Shape: []int{4096}})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	if err := tn.SyncForCPU(tensor.AccessReadWrite); err != nil { // the producer's bracket
		t.Fatal(err)
	}
	before = tensor.ReadStats()
	for _, write := range []bool{false, true} {
		mp, err := mapMemory(m, write)
		if err != nil {
			t.Fatal(err)
		}
		mp.unmap()
	}
	after = tensor.ReadStats()
	if joined := after.BracketsJoined - before.BracketsJoined; joined != 2 || after.BracketsOpened != before.BracketsOpened ||
		after.BracketsClosed != before.BracketsClosed {
		t.Fatalf("maps inside the producer's bracket: %d joined, %d opened, %d closed; want 2 joins and nothing opened or closed",
			joined, after.BracketsOpened-before.BracketsOpened, after.BracketsClosed-before.BracketsClosed)
	}
	if !bracketOpen(id) {
		t.Fatal("a joined map's unmap closed the producer's bracket")
	}
	if err := tn.SyncForDevice(tensor.AccessReadWrite); err != nil {
		t.Fatal(err)
	}
	if bracketOpen(id) {
		t.Fatal("bracket open after the producer's END")
	}
}

// The dma-heap pool's memory with handoff=adopt: a producer's write
// map leaves its bracket open after the unmap; a reader joins it and
// leaves; the pool's release (settle) closes it — one START and one END
// for the frame. Settling twice is harmless, and a memory freed with its
// bracket still open closes it at its free.
func TestBracketAllocatorAdoptsWriteBrackets(t *testing.T) {
	fd, id := bracketMemfd(t, 4096)
	mem, err := wrapFdAdopting(fd, 4096)
	if err != nil {
		t.Fatal(err)
	}
	m := BorrowMemory(mem)
	before := tensor.ReadStats()
	mp, err := mapMemory(m, true) // the producer writes
	if err != nil {
		t.Fatal(err)
	}
	mp.unmap()
	if !bracketOpen(id) {
		t.Fatal("the producer's write bracket closed at its unmap")
	}
	mp, err = mapMemory(m, false) // a converter reads
	if err != nil {
		t.Fatal(err)
	}
	mp.unmap()
	if !bracketOpen(id) {
		t.Fatal("a reader's unmap closed the adopted bracket")
	}
	settleMemory(m) // the buffer is back in its pool
	if bracketOpen(id) {
		t.Fatal("bracket open after the pool's release")
	}
	settleMemory(m)
	after := tensor.ReadStats()
	if o, c, j := after.BracketsOpened-before.BracketsOpened, after.BracketsClosed-before.BracketsClosed,
		after.BracketsJoined-before.BracketsJoined; o != 1 || c != 1 || j != 1 || after.UnbalancedSyncs != before.UnbalancedSyncs {
		t.Fatalf("a frame: %d opened, %d closed, %d joined, %d unbalanced; want 1, 1, 1, 0", o, c, j, after.UnbalancedSyncs-before.UnbalancedSyncs)
	}

	mp, err = mapMemory(m, true)
	if err != nil {
		t.Fatal(err)
	}
	mp.unmap()
	if !bracketOpen(id) {
		t.Fatal("second frame: write bracket not adopted")
	}
	unrefMemory(mem) // freed with its bracket open
	if bracketOpen(id) {
		t.Fatal("a freed memory left its bracket open")
	}
}

// firstMapsAtOnce maps each of 32 fresh memories of the bracket
// allocator (adopt: the dma-heap pool's, with write maps, settled after;
// else wrapFd's, with read maps) from 8 goroutines at once — tee branches
// mapping a new buffer — with every first map held until all 8 found no
// record, the window a race needs opened for each memory. Each memory
// gets one record, none is freed before its memory, and the brackets
// balance: every map entered one, each memory's bracket opened and closed
// once, nothing left open. On memfd no SYNC ioctl is issued; on a
// dma-heap buffer each bracket is one START and one END.
func firstMapsAtOnce(t *testing.T, src tensor.Source, adopt bool) {
	const mems, threads, size = 32, 8, 4096
	var ms []RawMemory
	var ids []tensor.Identity
	var owned []*gst.Memory
	release := func() {
		for _, mem := range owned {
			unrefMemory(mem)
		}
		owned = nil
	}
	defer release()
	for range mems {
		tn, err := tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{size}}, tensor.AllocOptions{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tn.Close() }) // after the memory's release
		var mem *gst.Memory
		if adopt {
			mem, err = wrapFdAdopting(tn.FD(), size)
		} else {
			mem, err = wrapFd(true, tn.FD(), size, 0, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		owned = append(owned, mem)
		ms = append(ms, BorrowMemory(mem))
		ids = append(ids, tn.Identity())
	}

	before := tensor.ReadStats()
	made0, freed0 := bracketRecords()
	holdBracketMisses(threads)
	defer holdBracketMisses(0)
	var wg sync.WaitGroup
	errs := make(chan error, threads)
	for range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, m := range ms {
				mp, err := mapMemory(m, adopt)
				if err != nil {
					errs <- err
					return
				}
				mp.unmap()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err) // a failed map would also have stalled the others' barrier
	}
	holdBracketMisses(0)
	if adopt {
		for _, m := range ms {
			settleMemory(m)
		}
	}
	made, freed := bracketRecords()
	if made-made0 != mems || freed != freed0 {
		t.Errorf("%d threads' first maps of %d fresh memories made %d records and freed %d; want one each, none freed",
			threads, mems, made-made0, freed-freed0)
	}
	after := tensor.ReadStats()
	enters := after.FileBracketEnters - before.FileBracketEnters
	opened, closed := after.BracketsOpened-before.BracketsOpened, after.BracketsClosed-before.BracketsClosed
	if enters != mems*threads || opened != closed || opened < mems || after.UnbalancedSyncs != before.UnbalancedSyncs {
		t.Errorf("%d maps entered %d brackets, opened %d, closed %d, %d unbalanced; want %d entered, as many closed as opened (at least %d), none unbalanced",
			mems*threads, enters, opened, closed, after.UnbalancedSyncs-before.UnbalancedSyncs, mems*threads, mems)
	}
	if s, e := after.SyncStart-before.SyncStart, after.SyncEnd-before.SyncEnd; s != e || (src == tensor.SourceDMAHeap && s != opened) {
		t.Errorf("%d START, %d END for %d brackets opened; want as many ENDs as STARTs, one each per bracket on a dma-buf", s, e, opened)
	}
	for i, id := range ids {
		if bracketOpen(id) {
			t.Errorf("memory %d: bracket still open after every unmap", i)
		}
	}
	release()
	if _, f := bracketRecords(); f-freed != mems {
		t.Errorf("freeing the %d memories freed %d records, want one each", mems, f-freed)
	}
	t.Logf("%d memories × %d threads: %d records, %d brackets opened, %d closed, %d START, %d END", mems, threads,
		made-made0, opened, closed, after.SyncStart-before.SyncStart, after.SyncEnd-before.SyncEnd)
}

// Threads mapping a fresh memory of the bracket allocator at once (tee
// branches) make one record for it, and the brackets balance. memfd
// stands in for the dma-buf here (the records and the bracket table do
// what they do for a dma-buf); TestDMAHeapBracketAllocatorFirstMapsAtOnce
// is the same on real dma-heap buffers, in the QEMU lane.
func TestBracketAllocatorFirstMapsAtOnce(t *testing.T) {
	cgotest.CheckFds(t)
	t.Run("close", func(t *testing.T) { firstMapsAtOnce(t, tensor.SourceMemfd, false) })
	t.Run("adopt", func(t *testing.T) { firstMapsAtOnce(t, tensor.SourceMemfd, true) })
}

// TestBracketAllocatorFirstMapsAtOnce on /dev/dma_heap/system buffers:
// skips where there is none, fails under TENSORPIN_REQUIRE_DMABUF=1 (the
// QEMU lane, scripts/vmtest/lane).
func TestDMAHeapBracketAllocatorFirstMapsAtOnce(t *testing.T) {
	tn, err := tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{4096}}, tensor.AllocOptions{Source: tensor.SourceDMAHeap})
	if err != nil {
		if os.Getenv("TENSORPIN_REQUIRE_DMABUF") == "1" {
			t.Fatalf("TENSORPIN_REQUIRE_DMABUF=1 but no dma-heap buffer: %v", err)
		}
		t.Skipf("no dma-heap buffer here (%v); memfd stands in in TestBracketAllocatorFirstMapsAtOnce — the QEMU lane runs this", err)
	}
	tn.Close()
	cgotest.CheckFds(t)
	t.Run("close", func(t *testing.T) { firstMapsAtOnce(t, tensor.SourceDMAHeap, false) })
	t.Run("adopt", func(t *testing.T) { firstMapsAtOnce(t, tensor.SourceDMAHeap, true) })
}
