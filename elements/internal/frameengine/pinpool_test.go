package frameengine

import (
	"errors"
	"testing"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// proposedPool answers an ALLOCATION query for 4 KiB other/tensors
// buffers with ProposePinnedPool and returns the pool, not yet active.
func proposedPool(t *testing.T, mem PoolMemory) *gst.BufferPool {
	t.Helper()
	caps := gst.NewCapsFromString("other/tensors,format=static,num_tensors=1,dimensions=4096,types=uint8,framerate=0/1")
	q := gst.NewAllocationQuery(caps, true)
	if err := ProposePinnedPool(q, false, 4096, 2, mem, true); err != nil {
		t.Fatal(err)
	}
	if q.GetNumAllocationPools() != 1 {
		t.Fatalf("%d pools proposed", q.GetNumAllocationPools())
	}
	pool, size, min, _ := q.ParseAllocationPoolAt(0)
	if size != 4096 || min != 2 {
		t.Fatalf("pool of %d-byte buffers, min %d", size, min)
	}
	t.Cleanup(func() { pool.SetActive(false) })
	return pool
}

// The pool's memfd memory comes from the project's one allocator
// (tensor.AllocFD): a memfd sealed against shrinking and growing, which
// the C allocator alone did not check.
func TestProposedPoolMemfdIsTheSealedAllocatorsMemory(t *testing.T) {
	pool := proposedPool(t, PoolMemfd)
	if !pool.SetActive(true) {
		t.Fatal("the proposed pool does not activate")
	}
	buf, flow := pool.AcquireBuffer(nil)
	if flow != gst.FlowOK {
		t.Fatalf("acquire: %v", flow)
	}
	defer gstglue.UnrefBuffer(buf)
	m := gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0)
	if !m.IsFd() || m.IsDmabuf() {
		t.Fatalf("pool memory: fd %v, dmabuf %v", m.IsFd(), m.IsDmabuf())
	}
	seals, err := unix.FcntlInt(uintptr(m.FD()), unix.F_GET_SEALS, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := unix.F_SEAL_SHRINK | unix.F_SEAL_GROW; seals&want != want {
		t.Errorf("seals %#x, want shrink and grow sealed", seals)
	}
}

// The dma-heap pool takes the configured heap (tensor.DMAHeapPath), not a
// path of its own, and goes through the allocator's fault seam: a heap
// that fails makes the acquisition fail, cleanly.
func TestProposedPoolDMAHeapHonoursThePathAndTheSeam(t *testing.T) {
	prev := tensor.DMAHeapPath
	tensor.DMAHeapPath = "/dev/null" // opens; its ioctl would be ENOTTY
	defer func() { tensor.DMAHeapPath = prev }()
	plan, restore := faultinject.Install(faultinject.Always(faultinject.HeapAlloc, unix.EIO))
	defer restore()
	pool := proposedPool(t, PoolDMAHeap)
	// Activation allocates the pool's min-buffers: it must fail.
	if pool.SetActive(true) {
		t.Fatal("a pool activated over a failing heap")
	}
	if plan.Calls(faultinject.HeapAlloc) == 0 {
		t.Error("the pool's heap allocation did not go through tensor's allocator (no call reached its seam)")
	}
	tensor.DMAHeapPath = "/nonexistent/dma_heap"
	if _, _, err := tensor.AllocFD(4096, tensor.SourceDMAHeap, ""); !errors.Is(err, tensor.ErrNotSupported) {
		t.Errorf("AllocFD from a missing heap: %v, want ErrNotSupported", err)
	}
}
