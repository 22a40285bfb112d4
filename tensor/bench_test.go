package tensor_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// BenchmarkPinHost: a pin on a storage that is already mapped (the per-frame
// case after the first frame) — no mmap, no allocation.
func BenchmarkPinHost(b *testing.B) {
	tn, err := tensor.Alloc(u8(480, 640, 3), tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil {
		b.Fatal(err)
	}
	defer tn.Close()
	first, _ := tn.PinHost()
	defer first.Release()
	before := tensor.ReadStats()
	b.ReportAllocs()
	for b.Loop() {
		p, _ := tn.PinHost()
		p.Release()
	}
	if d := tensor.ReadStats().Mmaps - before.Mmaps; d != 0 {
		b.Fatalf("%d mmaps while pinning a mapped storage", d)
	}
}

// BenchmarkSyncBracketMemfd: SyncForCPU + SyncForDevice on a memfd tensor
// (SHM: bracket accounting, no ioctl needed).
func BenchmarkSyncBracketMemfd(b *testing.B) {
	tn, _ := tensor.Alloc(u8(480, 640, 3), tensor.AllocOptions{Source: tensor.SourceMemfd})
	defer tn.Close()
	b.ReportAllocs()
	for b.Loop() {
		tn.SyncForCPU(tensor.AccessRead)
		tn.SyncForDevice(tensor.AccessRead)
	}
}

func TestPerFrameTensorOperationsDoNotAllocate(t *testing.T) {
	tn, _ := tensor.Alloc(u8(480, 640, 3), tensor.AllocOptions{Source: tensor.SourceMemfd})
	defer tn.Close()
	first, _ := tn.PinHost()
	defer first.Release()
	if n := testing.AllocsPerRun(100, func() {
		p, _ := tn.PinHost()
		p.Release()
	}); n != 0 {
		t.Errorf("PinHost+Release allocates %.1f times", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		tn.SyncForCPU(tensor.AccessReadWrite)
		tn.SyncForDevice(tensor.AccessReadWrite)
	}); n != 0 {
		t.Errorf("a sync bracket allocates %.1f times", n)
	}
}
