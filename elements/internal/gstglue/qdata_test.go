package gstglue

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-gst/go-gst/gst"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
	"golang.org/x/sys/unix"
)

var testKey = NewQdataKey("gstc-test-pin")

func TestQdataLifecycle(t *testing.T) {
	cgotest.CheckFds(t)
	fd := cgotest.NewMemfd(t, cgotest.Pattern(4096))
	defer unix.Close(fd)
	mem, err := wrapFd(true, fd, 4096, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := BorrowMemory(mem)

	var mu sync.Mutex
	var releasedVals []any
	rel := func(v any) { mu.Lock(); releasedVals = append(releasedVals, v); mu.Unlock() }
	released := func() []any { mu.Lock(); defer mu.Unlock(); return append([]any(nil), releasedVals...) }

	if _, ok := testKey.Get(m); ok {
		t.Fatal("hit on fresh memory")
	}
	testKey.Set(m, "pin-1", rel)
	if v, ok := testKey.Get(m); !ok || v != "pin-1" {
		t.Fatalf("Get = %v, %v", v, ok)
	}
	// Replacing releases the old value, once, and keeps the new one.
	testKey.Set(m, "pin-2", rel)
	if v, _ := testKey.Get(m); v != "pin-2" {
		t.Fatalf("after replace Get = %v", v)
	}
	if r := released(); len(r) != 1 || r[0] != "pin-1" {
		t.Fatalf("released after replace: %v", r)
	}
	// remove releases now; a second remove does nothing.
	testKey.remove(m)
	testKey.remove(m)
	if _, ok := testKey.Get(m); ok {
		t.Fatal("hit after remove")
	}
	if r := released(); len(r) != 2 || r[1] != "pin-2" {
		t.Fatalf("released after remove: %v", r)
	}
	// Freeing the memory releases the current value exactly once.
	testKey.Set(m, "pin-3", rel)
	other := NewQdataKey("gstc-test-other")
	other.Set(m, 42, rel)
	unrefMemory(mem)
	cgotest.DrainFinalizers()
	r := released()
	if len(r) != 4 {
		t.Fatalf("released %v, want pin-1, pin-2, then pin-3 and 42 once each", r)
	}
	got := map[any]int{}
	for _, v := range r[2:] {
		got[v]++
	}
	if got["pin-3"] != 1 || got[42] != 1 {
		t.Fatalf("released on free: %v", r[2:])
	}
}

// Keys made from the same name share the slot: a key looked up again by
// name sees what another key of that name set.
func TestQdataKeyByName(t *testing.T) {
	buf := gst.NewBufferWithSize(64)
	defer UnrefBuffer(buf)
	m := PeekMemory(BorrowBuffer(buf), 0)
	NewQdataKey("gstc-test-string").Set(m, "x", nil)
	mem := m.ref() // another wrapper of the same GstMemory
	defer unrefMemory(mem)
	if v, ok := NewQdataKey("gstc-test-string").Get(BorrowMemory(mem)); !ok || v != "x" {
		t.Fatalf("Get by name = %v, %v", v, ok)
	}
	if _, ok := NewQdataKey("gstc-test-absent").Get(m); ok {
		t.Fatal("hit on absent key")
	}
	NewQdataKey("gstc-test-string").remove(m)
}

// The pin cache's hit path: peek the memory of a buffer, look up its
// entry. Neither may allocate.
func TestQdataHitPathAllocs(t *testing.T) {
	buf := gst.NewBufferWithSize(64)
	defer UnrefBuffer(buf)
	b := BorrowBuffer(buf)
	testKey.Set(PeekMemory(b, 0), &struct{ addr uintptr }{1}, nil)
	mem := PeekMemory(b, 0).ref()
	defer unrefMemory(mem)
	var sink any
	cases := map[string]func(){
		"PeekMemory+QdataKey.Get": func() { sink, _ = testKey.Get(PeekMemory(b, 0)) },
		"QdataKey.Get":            func() { sink, _ = testKey.Get(BorrowMemory(mem)) },
		"NewQdataKey+Get":         func() { sink, _ = NewQdataKey("gstc-test-pin").Get(BorrowMemory(mem)) },
		"miss":                    func() { sink, _ = NewQdataKey("gstc-test-miss").Get(BorrowMemory(mem)) },
	}
	for name, f := range cases {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
	_ = sink
}

// Gets racing Sets and removes on the same memory never panic and only
// ever see a value that was set.
func TestQdataConcurrent(t *testing.T) {
	buf := gst.NewBufferWithSize(64)
	defer UnrefBuffer(buf)
	var releases atomic.Int64
	rel := func(any) { releases.Add(1) }
	var wg sync.WaitGroup
	const n = 2000
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				m := PeekMemory(BorrowBuffer(buf), 0)
				switch i % 3 {
				case 0:
					testKey.Set(m, fmt.Sprint(w, i), rel)
				case 1:
					if v, ok := testKey.Get(m); ok {
						if _, isStr := v.(string); !isStr {
							panic(fmt.Sprintf("unexpected value %v", v))
						}
					}
				case 2:
					testKey.remove(m)
				}
			}
		}(w)
	}
	wg.Wait()
	testKey.remove(PeekMemory(BorrowBuffer(buf), 0))
	sets := int64(4 * ((n + 2) / 3))
	if got := releases.Load(); got != sets {
		t.Fatalf("%d releases for %d sets", got, sets)
	}
}

func BenchmarkQdataHit(b *testing.B) {
	buf := gst.NewBufferWithSize(64)
	defer UnrefBuffer(buf)
	testKey.Set(PeekMemory(BorrowBuffer(buf), 0), 1, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok := testKey.Get(PeekMemory(BorrowBuffer(buf), 0)); !ok {
			b.Fatal("miss")
		}
	}
}

// A panicking release callback is contained: it cannot unwind into
// GStreamer's C frames.
func TestReleasePanicContained(t *testing.T) {
	buf := gst.NewBufferWithSize(8)
	defer UnrefBuffer(buf)
	testKey.Set(PeekMemory(BorrowBuffer(buf), 0), 1, func(any) { panic("release panics") })
	testKey.remove(PeekMemory(BorrowBuffer(buf), 0)) // prints "gstc: panic in release callback"
	if _, ok := testKey.Get(PeekMemory(BorrowBuffer(buf), 0)); ok {
		t.Error("entry survived")
	}
}

// A value registered once (QdataValue) is attached to memory after memory
// with no allocation — the sink's identity path, for producers that wrap
// their dma-bufs in new GstMemory every frame — and a memory outliving the
// value finds nothing once it is freed. No handle is left behind.
func TestSharedQdataValueAttachesWithoutAllocating(t *testing.T) {
	bufs := make([]*gst.Buffer, 101)
	for i := range bufs {
		bufs[i] = gst.NewBufferWithSize(64)
	}
	handles := LiveHandles()
	type entry struct{ n int }
	e := &entry{7}
	v := NewQdataValue(e)
	i := 0
	if n := testing.AllocsPerRun(100, func() {
		testKey.SetShared(PeekMemory(BorrowBuffer(bufs[i]), 0), v)
		i++
	}); n != 0 {
		t.Errorf("SetShared: %v allocations per memory, want 0", n)
	}
	for _, b := range bufs {
		if got, ok := testKey.Get(PeekMemory(BorrowBuffer(b), 0)); !ok || got != e {
			t.Fatalf("Get = %v, %v, want the shared value", got, ok)
		}
	}
	// Replacing a per-memory value releases it; the shared one has no
	// release of its own.
	released := 0
	testKey.Set(PeekMemory(BorrowBuffer(bufs[0]), 0), 1, func(any) { released++ })
	testKey.SetShared(PeekMemory(BorrowBuffer(bufs[0]), 0), v)
	if released != 1 {
		t.Fatalf("the replaced value was released %d times, want 1", released)
	}
	v.Free()
	v.Free()
	if _, ok := testKey.Get(PeekMemory(BorrowBuffer(bufs[1]), 0)); ok {
		t.Fatal("a freed shared value is still found")
	}
	for _, b := range bufs {
		UnrefBuffer(b)
	}
	if d := LiveHandles() - handles; d != 0 {
		t.Fatalf("%d handles left", d)
	}
}
