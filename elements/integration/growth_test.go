package integration_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// tensorsrc with a ring of 32 (a camera's pool) into tensorpinsink at the
// default cache-size of 16: the sink learns the ring in its first cycles,
// so the stream costs at most one extra mmap per buffer it evicted while
// learning and each slot is announced once (one OnSlot per slot) — not an
// mmap, a munmap and a new slot per frame.
func TestRingOf32IntoTheDefaultCacheIsLearnt(t *testing.T) {
	const pool = 32
	frames := soakScale(20*pool, 100000)
	var mu sync.Mutex
	newSlots := 0
	before := tensor.ReadStats()
	_, s := play(t, fmt.Sprintf("tensorsrc num-buffers=%d pool-size=%d ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:1,types=uint8 ! tensorpinsink name=sink sync=false", frames, pool),
		func(f tensorpinsink.Frame) {
			if f.NewSlot() {
				mu.Lock()
				newSlots++
				mu.Unlock()
			}
			f.Release()
		})
	mmaps := tensor.ReadStats().Mmaps - before.Mmaps
	t.Logf("%d frames: %d sink mmaps (%d in all), %d new slots, %d evictions, cache-capacity %d",
		frames, s.Mmaps, mmaps, newSlots, s.CacheEvictions, s.CacheCapacity)
	if s.Frames != uint64(frames) {
		t.Fatalf("%d frames of %d", s.Frames, frames)
	}
	if s.Mmaps > pool+pool/2 || newSlots > pool+pool/2 || s.CacheCapacity != pool {
		t.Errorf("stats %+v, %d new slots: want at most %d mmaps and new slots over %d frames, cache-capacity %d",
			s, newSlots, pool+pool/2, frames, pool)
	}
}
