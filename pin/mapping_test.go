package pin_test

import (
	"runtime"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

// heapInUse is the live Go heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A long stream maps and unmaps (cache evictions, caps changes, tensors
// coming and going) without bound; what a closed mapping leaves behind in the
// Go heap must not add up. golang.org/x/sys/unix's Mmap records every mapping
// in a table, keyed by address, that only its own Munmap clears: tens of
// bytes per address ever mapped. The mappings here are alive together so that
// each gets an address of its own, as in a process whose other mappings come
// and go.
func TestClosedMappingsRetainNoHeap(t *testing.T) {
	const n = 30_000 // alive at once: well under vm.max_map_count (65530)
	fd := memfd(t, 4096)
	before := pin.ReadStats()
	live := make([]*pin.Mapping, 0, n)
	batch := func(count int) {
		for range count {
			m, err := pin.Map(fd, 0, 4096, pin.ProtRead)
			if err != nil {
				t.Fatal(err)
			}
			live = append(live, m)
		}
		for i, m := range live {
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			live[i] = nil
		}
		live = live[:0]
	}
	batch(100) // warm up whatever is allocated once
	base := heapInUse()
	batch(n)
	after := heapInUse()
	if s := pin.ReadStats(); s.Maps-before.Maps != n+100 || s.Unmaps-before.Unmaps != n+100 {
		t.Fatalf("%d map+close cycles counted %d maps and %d unmaps", n+100, s.Maps-before.Maps, s.Unmaps-before.Unmaps)
	}
	// 256 KiB is well below one table entry per address (about 1 MB here)
	// and well above the heap's drift between two collections.
	if after > base && after-base > 256<<10 {
		t.Fatalf("%d closed mappings retain %d bytes of Go heap (%.1f per mapping)", n, after-base, float64(after-base)/n)
	}
}
