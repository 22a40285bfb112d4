package tensor_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

func TestAllocHeapIsAlignedAndPinned(t *testing.T) {
	tn, err := tensor.Alloc(tensor.Layout{DType: tensor.F32, Shape: []int{3, 5}}, tensor.AllocOptions{Source: tensor.SourceHeap})
	if err != nil {
		t.Fatal(err)
	}
	if tn.Backend() != tensor.BackendHeap || tn.FD() != -1 {
		t.Fatalf("heap tensor: backend %v fd %d", tn.Backend(), tn.FD())
	}
	p, err := tn.PinHost()
	if err != nil {
		t.Fatal(err)
	}
	if p.Alignment() < 64 {
		t.Errorf("heap pin alignment %d, want ≥ 64", p.Alignment())
	}
	g, _ := tn.Map(tensor.AccessWrite)
	w, _ := g.Writable()
	copy(w, "heap bytes")
	g.Close()
	tn.Close()
	if got := string(p.Bytes()[:10]); got != "heap bytes" {
		t.Errorf("heap pin after Close reads %q", got)
	}
	p.Release()
	other, _ := tensor.Alloc(u8(1), tensor.AllocOptions{Source: tensor.SourceHeap})
	defer other.Close()
	if other.Identity() == tn.Identity() {
		t.Error("two heap tensors share an identity")
	}
}

func TestAllocMemfdIsSHMPageRounded(t *testing.T) {
	tn, err := tensor.Alloc(u8(5000), tensor.AllocOptions{Source: tensor.SourceMemfd, Name: "labelled"})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	if tn.Backend() != tensor.BackendSHM || tn.Capacity() != 8192 {
		t.Errorf("memfd tensor: %v, capacity %d; want shm, 8192", tn.Backend(), tn.Capacity())
	}
	if err := tn.SetName("x"); !errors.Is(err, tensor.ErrNotSupported) {
		t.Errorf("SetName on shm: %v, want ErrNotSupported", err)
	}
}

func TestAllocEnvironmentForcesBackend(t *testing.T) {
	t.Setenv(tensor.BackendEnv, "heap")
	tn, err := tensor.Alloc(u8(16), tensor.AllocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tn.Backend() != tensor.BackendHeap {
		t.Errorf("%s=heap gave %v", tensor.BackendEnv, tn.Backend())
	}
	tn.Close()
	t.Setenv(tensor.BackendEnv, "gpu")
	if _, err := tensor.Alloc(u8(16), tensor.AllocOptions{}); !errors.Is(err, tensor.ErrNotSupported) || !strings.Contains(err.Error(), "gpu") {
		t.Errorf("unknown %s: %v", tensor.BackendEnv, err)
	}
	// An explicit source wins over the environment.
	tn, err = tensor.Alloc(u8(16), tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil || tn.Backend() != tensor.BackendSHM {
		t.Fatalf("explicit memfd under %s=gpu: %v %v", tensor.BackendEnv, tn, err)
	}
	tn.Close()
}

func TestAllocAutoFallsBack(t *testing.T) {
	old := tensor.DMAHeapPath
	tensor.DMAHeapPath = "/nonexistent/dma_heap/system"
	defer func() { tensor.DMAHeapPath = old }()
	tn, err := tensor.Alloc(u8(16), tensor.AllocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	if tn.Backend() != tensor.BackendSHM {
		t.Errorf("auto without a dma-heap gave %v, want shm (memfd)", tn.Backend())
	}
	if _, err := tensor.Alloc(u8(16), tensor.AllocOptions{Source: tensor.SourceDMAHeap}); !errors.Is(err, tensor.ErrNotSupported) {
		t.Errorf("forced dma-heap without one: %v, want ErrNotSupported", err)
	}
}

func TestGuardRefusesWritesThroughReadAccess(t *testing.T) {
	tn, _ := tensor.Alloc(u8(4, 4), tensor.AllocOptions{Source: tensor.SourceMemfd})
	defer tn.Close()
	g, err := tn.Map(tensor.AccessRead)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Writable(); !errors.Is(err, tensor.ErrAccess) {
		t.Errorf("Writable on a read guard: %v, want ErrAccess", err)
	}
	if tn.OpenSyncs() != 1 {
		t.Errorf("open brackets %d with a guard open, want 1", tn.OpenSyncs())
	}
	g.Close()
	g.Close()
	if tn.OpenSyncs() != 0 {
		t.Errorf("open brackets %d after guard Close, want 0", tn.OpenSyncs())
	}
	if _, err := tn.Map(tensor.AccessNone); !errors.Is(err, tensor.ErrAccess) {
		t.Errorf("Map(none): %v", err)
	}
	if _, err := tn.SyncForDevice(tensor.AccessRead), tn.SyncForDevice(tensor.AccessRead); !errors.Is(err, tensor.ErrUnbalancedSync) {
		t.Errorf("SyncForDevice on shm with no bracket: %v, want ErrUnbalancedSync", err)
	}
}

// Real dma-bufs: skipped here (no dma-heap or udmabuf on this kernel),
// required in the QEMU lane.
func TestDMAHeapTensor(t *testing.T) { testRealDMABuf(t, tensor.SourceDMAHeap) }
func TestUdmabufTensor(t *testing.T) { testRealDMABuf(t, tensor.SourceUdmabuf) }

func testRealDMABuf(t *testing.T, src tensor.Source) {
	tn := requireDMABuf(t, src)
	if tn.Backend() != tensor.BackendDMABuf {
		t.Fatalf("%v tensor classified as %v", src, tn.Backend())
	}
	before := tensor.ReadStats()
	g, err := tn.Map(tensor.AccessWrite)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := g.Writable()
	copy(w, "dma-buf")
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	s := tensor.ReadStats()
	if s.SyncStart-before.SyncStart != 1 || s.SyncEnd-before.SyncEnd != 1 || tn.Coherent() {
		t.Errorf("a guard on a real dma-buf made %d START and %d END ioctls (coherent=%v), want 1 and 1",
			s.SyncStart-before.SyncStart, s.SyncEnd-before.SyncEnd, tn.Coherent())
	}
	if err := tn.SetName("tensorpin-renamed"); err != nil {
		t.Errorf("DMA_BUF_SET_NAME: %v", err)
	}
	p, _ := tn.PinHost()
	dup, err := tensor.ImportFD(tn.FD(), u8(64, 64))
	if err != nil {
		t.Fatal(err)
	}
	if dup.Backend() != tensor.BackendDMABuf || dup.Identity() != tn.Identity() {
		t.Errorf("re-import: %v %v, want dmabuf with identity %v", dup.Backend(), dup.Identity(), tn.Identity())
	}
	dup.Close()
	tn.Close()
	if string(p.Bytes()[:7]) != "dma-buf" {
		t.Error("pin on a closed dma-buf tensor lost its bytes")
	}
	p.Release()
}
