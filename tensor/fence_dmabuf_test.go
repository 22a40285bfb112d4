package tensor_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/fencetest"
)

// The real-fence tests (TestDMABufFence*): vgem buffers exported as
// dma-bufs with write fences that only the test (or vgem's 10 s timeout)
// signals. They run in the QEMU lane, which loads vgem; elsewhere they skip,
// or fail under TENSORPIN_REQUIRE_DMABUF=1.

// vgemBuffer returns the vgem device and a fresh 4 KiB buffer of it,
// imported as a tensor, with its first bytes written (inside a bracket).
func vgemBuffer(t *testing.T) (*fencetest.Device, *fencetest.Buffer, *tensor.Tensor) {
	t.Helper()
	dev, err := fencetest.Open()
	if err != nil {
		if os.Getenv("TENSORPIN_REQUIRE_DMABUF") == "1" {
			t.Fatalf("TENSORPIN_REQUIRE_DMABUF=1 but %v", err)
		}
		t.Skipf("%v — the QEMU lane (make test-dmabuf) loads vgem for the real-fence tests", err)
	}
	t.Cleanup(func() { dev.Close() })
	buf, err := dev.NewBuffer(4096)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(buf.Close)
	tn := mustImport(t, buf.FD, u8(4096))
	if tn.Backend() != tensor.BackendDMABuf {
		t.Fatalf("a vgem export imports as %v", tn.Backend())
	}
	g, err := tn.Map(tensor.AccessWrite)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := g.Writable()
	for i := range w {
		w[i] = byte(i * 3)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return dev, buf, tn
}

// signalAfter signals fence after d, from another goroutine (the device
// finishing its work); the returned channel gives SignalFence's error.
func signalAfter(dev *fencetest.Device, fence uint32, d time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() {
		time.Sleep(d)
		done <- dev.SignalFence(fence)
	}()
	return done
}

func statsDelta(before tensor.Stats) (starts, ends, waits, timeouts uint64) {
	s := tensor.ReadStats()
	return s.SyncStart - before.SyncStart, s.SyncEnd - before.SyncEnd, s.FenceWaits - before.FenceWaits, s.FenceTimeouts - before.FenceTimeouts
}

// A read whose writer's fence signals 200 ms later waits for it (in poll,
// not in START), then reads what was written: one START, one END.
func TestDMABufFenceReadWaitsForTheWriter(t *testing.T) {
	dev, buf, tn := vgemBuffer(t)
	fence, err := buf.AttachWriteFence()
	if err != nil {
		t.Fatal(err)
	}
	before := tensor.ReadStats()
	signalled := signalAfter(dev, fence, 200*time.Millisecond)
	joined, waited, err := tn.BeginCPUAccessTimeout(tensor.AccessRead, 5*time.Second)
	if err != nil || joined {
		t.Fatalf("joined %v err %v", joined, err)
	}
	if err := <-signalled; err != nil {
		t.Fatal(err)
	}
	p, err := tn.PinHost()
	if err != nil {
		t.Fatal(err)
	}
	b := p.Bytes()
	for _, i := range []int{1, 100, 4095} {
		if b[i] != byte(i*3) {
			t.Errorf("byte %d = %d after the wait, want %d", i, b[i], byte(i*3))
		}
	}
	p.Release()
	if err := tn.SyncForDevice(tensor.AccessRead); err != nil {
		t.Fatal(err)
	}
	starts, ends, waits, timeouts := statsDelta(before)
	t.Logf("waited %v for a fence signalled after 200ms; starts %d ends %d waits %d", waited, starts, ends, waits)
	if waited < 150*time.Millisecond {
		t.Errorf("waited %v, want about 200ms (≥ 150ms)", waited)
	}
	if starts != 1 || ends != 1 || waits != 1 || timeouts != 0 {
		t.Errorf("starts %d ends %d waits %d timeouts %d, want 1 1 1 0", starts, ends, waits, timeouts)
	}
}

// A fence that never signals: ErrFenceTimeout after the 100 ms limit, long
// before vgem's own 10 s, and no bracket anywhere; once signalled, the
// buffer opens without a wait.
func TestDMABufFenceNeverSignalledTimesOut(t *testing.T) {
	dev, buf, tn := vgemBuffer(t)
	fence, err := buf.AttachWriteFence()
	if err != nil {
		t.Fatal(err)
	}
	before := tensor.ReadStats()
	start := time.Now()
	_, waited, err := tn.BeginCPUAccessTimeout(tensor.AccessRead, 100*time.Millisecond)
	elapsed := time.Since(start)
	t.Logf("gave up after %v (call took %v): %v", waited, elapsed, err)
	if !errors.Is(err, tensor.ErrFenceTimeout) {
		t.Fatalf("err %v, want ErrFenceTimeout", err)
	}
	if waited < 100*time.Millisecond || elapsed >= 5*time.Second {
		t.Errorf("waited %v (call %v), want ≥ 100ms and well under vgem's 10s", waited, elapsed)
	}
	if tn.OpenSyncs() != 0 {
		t.Error("a bracket is counted open on the tensor")
	}
	if _, open := tensor.OpenBracket(tn.Identity()); open {
		t.Error("the buffer's bracket is open")
	}
	if starts, ends, waits, timeouts := statsDelta(before); starts != 0 || ends != 0 || waits != 1 || timeouts != 1 {
		t.Errorf("starts %d ends %d waits %d timeouts %d, want 0 0 1 1", starts, ends, waits, timeouts)
	}
	if err := dev.SignalFence(fence); err != nil {
		t.Fatal(err)
	}
	if _, waited, err := tn.BeginCPUAccessTimeout(tensor.AccessRead, 100*time.Millisecond); err != nil || waited != 0 {
		t.Fatalf("after the signal: waited %v err %v", waited, err)
	}
	tn.SyncForDevice(tensor.AccessRead)
}

// An already signalled fence costs one poll and no wait.
func TestDMABufFenceAlreadySignalledCostsNoWait(t *testing.T) {
	dev, buf, tn := vgemBuffer(t)
	fence, err := buf.AttachWriteFence()
	if err != nil {
		t.Fatal(err)
	}
	if err := dev.SignalFence(fence); err != nil {
		t.Fatal(err)
	}
	before := tensor.ReadStats()
	for _, a := range []tensor.Access{tensor.AccessRead, tensor.AccessReadWrite} {
		if _, waited, err := tn.BeginCPUAccessTimeout(a, time.Second); err != nil || waited != 0 {
			t.Fatalf("%v: waited %v err %v", a, waited, err)
		}
		tn.SyncForDevice(a)
	}
	if starts, ends, waits, _ := statsDelta(before); starts != 2 || ends != 2 || waits != 0 {
		t.Errorf("starts %d ends %d waits %d, want 2 2 0", starts, ends, waits)
	}
}

// The vgem buffer's write fence moved onto a dma-heap buffer (EXPORT from
// one dma-buf, IMPORT into the other): the heap buffer's read waits for
// it too — how an application makes a device's write on one buffer
// fence another (tensorsrc's SetWriteFence).
func TestDMABufFenceMovedOntoDMAHeapBuffer(t *testing.T) {
	heap := requireDMABuf(t, tensor.SourceDMAHeap)
	dev, buf, tn := vgemBuffer(t)
	fence, err := buf.AttachWriteFence()
	if err != nil {
		t.Fatal(err)
	}
	sf, err := tn.ExportSyncFile(tensor.AccessRead)
	if err != nil {
		t.Fatal(err)
	}
	err = heap.ImportSyncFile(tensor.AccessWrite, sf)
	unix.Close(sf) // the heap buffer holds the fence itself now
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := heap.BeginCPUAccessTimeout(tensor.AccessRead, 50*time.Millisecond); !errors.Is(err, tensor.ErrFenceTimeout) {
		t.Fatalf("heap read before the signal: %v, want ErrFenceTimeout", err)
	}
	signalled := signalAfter(dev, fence, 200*time.Millisecond)
	before := tensor.ReadStats()
	_, waited, err := heap.BeginCPUAccessTimeout(tensor.AccessRead, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-signalled; err != nil {
		t.Fatal(err)
	}
	heap.SyncForDevice(tensor.AccessRead)
	starts, ends, waits, _ := statsDelta(before)
	t.Logf("heap buffer waited %v for the vgem fence signalled after 200ms", waited)
	if waited < 150*time.Millisecond || starts != 1 || ends != 1 || waits != 1 {
		t.Errorf("waited %v starts %d ends %d waits %d, want ≥ 150ms 1 1 1", waited, starts, ends, waits)
	}
}
