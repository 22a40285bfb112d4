package integration_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// tensorsrc with a ring of 32 (a camera's pool) into tensorpinsink at the
// default cache-size of 16: the sink learns the ring in its first cycles,
// so the stream costs at most one extra mmap per buffer it evicted while
// learning and each slot is announced once (one OnSlot per slot) — not an
// mmap, a munmap and a new slot per frame. The ring hands out the slot
// freed last, so to cycle through all 32 — as a camera's queue does — the
// frames must be in flight: a queue holds up to 32 before a sink slowed
// by its handler, and once the ring is all downstream each slot freed is
// the only one free.
func TestRingOf32IntoTheDefaultCacheIsLearnt(t *testing.T) {
	const pool = 32
	frames := soakScale(20*pool, 100000)
	var mu sync.Mutex
	newSlots := 0
	before := tensor.ReadStats()
	_, s := play(t, fmt.Sprintf("tensorsrc num-buffers=%d pool-size=%d ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=3:8:8:1,types=uint8 ! queue max-size-buffers=%d ! tensorpinsink name=sink sync=false", frames, pool, pool),
		func(f tensorpinsink.Frame) {
			time.Sleep(200 * time.Microsecond) // slower than the source
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
