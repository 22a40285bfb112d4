package gstglue

import (
	"sync"
	"testing"
)

// A deleted handle's place is reused by the next handle, and the old
// handle then finds nothing (not the new value) and is not taken twice;
// lookups allocate nothing.
func TestHandleReuseKeepsOldHandlesDead(t *testing.T) {
	live := LiveHandles()
	var ran int
	a := newHandle(releaseFunc(func() { ran++ }))
	if r, ok := takeHandle(a); !ok {
		t.Fatal("take of a live handle failed")
	} else {
		r.release()
	}
	b := newHandle(releaseFunc(func() {}))
	if a&handlePlaceMask != b&handlePlaceMask || a == b {
		t.Fatalf("handles %#x and %#x: want the same place, another generation", a, b)
	}
	if _, ok := lookupHandle(a); ok {
		t.Error("the deleted handle finds the value that reused its place")
	}
	if _, ok := takeHandle(a); ok {
		t.Error("the deleted handle was taken again")
	}
	if _, ok := lookupHandle(b); !ok {
		t.Error("the new handle finds nothing")
	}
	if n := testing.AllocsPerRun(100, func() { lookupHandle(b) }); n != 0 {
		t.Errorf("lookup: %v allocations, want 0", n)
	}
	takeHandle(b)
	if ran != 1 || LiveHandles() != live {
		t.Errorf("release ran %d times, %d handles live (want 1 and %d)", ran, LiveHandles(), live)
	}
}

// Lookups race takes and new handles on the same places (run with
// -race): a lookup finds its handle's value or nothing.
func TestHandleLookupsRaceTakes(t *testing.T) {
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var cur sync.Map // goroutine-published handles, as C would hand them out
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 2000; i++ {
			v := releaseFunc(func() {})
			h := newHandle(v)
			cur.Store(0, h)
			takeHandle(h)
		}
		close(stop)
	}()
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if h, ok := cur.Load(0); ok {
					if r, ok := lookupHandle(h.(uintptr)); ok && r == nil {
						t.Error("a lookup found a nil value")
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
