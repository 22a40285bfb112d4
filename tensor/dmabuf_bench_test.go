package tensor_test

// The cost of one CPU-access bracket (SyncForCPU + SyncForDevice: one
// DMA_BUF_IOCTL_SYNC START and one END) on a real dma-buf, as a function
// of its size. This machine's kernel has no dma-heap or udmabuf, so the
// benchmarks skip here (fail under TENSORPIN_REQUIRE_DMABUF=1) and run in
// the QEMU guest: `scripts/vmtest/bench`, which `make bench-report` reads
// (scripts/benchreport/guest.go). Under TCG absolute times mean little;
// the ratios between sizes are what the report states.

import (
	"fmt"
	"os"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// bracketSizes are the buffer sizes of the bracket benchmarks: small, a
// megabyte, one 1080p and one 4K RGBA frame.
var bracketSizes = []struct {
	name  string
	bytes int
}{
	{"64KiB", 64 << 10},
	{"1MiB", 1 << 20},
	{"1080p-RGBA", 1920 * 1080 * 4},
	{"4K-RGBA", 3840 * 2160 * 4},
}

// BenchmarkDMAHeapSyncBracket: one START+END pair on a /dev/dma_heap/system
// buffer of each size.
func BenchmarkDMAHeapSyncBracket(b *testing.B) { benchSyncBracket(b, tensor.SourceDMAHeap) }

// BenchmarkUdmabufSyncBracket: the same on a udmabuf (a sealed memfd
// exported through /dev/udmabuf).
func BenchmarkUdmabufSyncBracket(b *testing.B) { benchSyncBracket(b, tensor.SourceUdmabuf) }

func benchSyncBracket(b *testing.B, src tensor.Source) {
	// One small allocation first: skip (or fail) once, not per size.
	probe, err := tensor.Alloc(u8(64, 64), tensor.AllocOptions{Source: src, Name: "tensorpin-bench"})
	if err != nil {
		if os.Getenv("TENSORPIN_REQUIRE_DMABUF") == "1" {
			b.Fatalf("TENSORPIN_REQUIRE_DMABUF=1 but no dma-buf from %v: %v", src, err)
		}
		b.Skipf("no real dma-buf here from %v (%v): this benchmark runs in the QEMU guest (scripts/vmtest/bench)", src, err)
	}
	probe.Close()
	for _, sz := range bracketSizes {
		b.Run(sz.name, func(b *testing.B) {
			tn, err := tensor.Alloc(u8(sz.bytes), tensor.AllocOptions{Source: src, Name: "tensorpin-bench"})
			if err != nil {
				b.Fatalf("%v: %d bytes: %v", src, sz.bytes, err)
			}
			defer tn.Close()
			if tn.Backend() != tensor.BackendDMABuf {
				b.Fatalf("%v tensor classified as %v", src, tn.Backend())
			}
			// A first bracket outside the timing: udmabuf builds its
			// scatter list on the first START.
			if err := bracketOnce(tn); err != nil {
				b.Fatal(err)
			}
			before := tensor.ReadStats()
			for b.Loop() {
				if err := bracketOnce(tn); err != nil {
					b.Fatal(err)
				}
			}
			d := tensor.ReadStats()
			start, end := d.SyncStart-before.SyncStart, d.SyncEnd-before.SyncEnd
			if d.SyncNotTTY != before.SyncNotTTY || d.SyncErrors != before.SyncErrors {
				b.Fatalf("%d ENOTTY, %d errors: not a real dma-buf?", d.SyncNotTTY-before.SyncNotTTY, d.SyncErrors-before.SyncErrors)
			}
			if n := uint64(b.N); start != n || end != n {
				b.Fatalf("%d START + %d END ioctls for %d brackets, want %d each", start, end, b.N, b.N)
			}
			b.ReportMetric(float64(start+end)/float64(b.N), "syncs/op")
			b.ReportMetric(float64(sz.bytes), "bytes")
		})
	}
}

func bracketOnce(tn *tensor.Tensor) error {
	if err := tn.SyncForCPU(tensor.AccessReadWrite); err != nil {
		return fmt.Errorf("SyncForCPU: %w", err)
	}
	if err := tn.SyncForDevice(tensor.AccessReadWrite); err != nil {
		return fmt.Errorf("SyncForDevice: %w", err)
	}
	return nil
}
