package gstc

import (
	"testing"

	"golang.org/x/sys/unix"

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
