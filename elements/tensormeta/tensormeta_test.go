package tensormeta

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

func TestMain(m *testing.M) {
	gst.Init(nil)
	m.Run()
}

// metaBuffer returns a video buffer with a GstTensorPinMeta over tensors
// (borrowed: the meta takes a reference), and the function that frees it.
func metaBuffer(t *testing.T, tensors *gst.Buffer) (*gst.Buffer, func()) {
	t.Helper()
	caps := gst.NewCapsFromString("other/tensors,num_tensors=(int)1,dimensions=(string)3:1,types=(string)float32,names=(string)scores")
	defer gstglue.ReleaseCaps(caps)
	video := gst.NewBufferWithSize(16)
	Add(gstglue.BorrowBuffer(video), gstglue.RawBuffer(gstglue.LeaseBuffer(gstglue.BorrowBuffer(tensors))), caps,
		Transform{ScaleX: 1, ScaleY: 1}, 5)
	return video, func() { gstglue.ReleaseBuffer(video) }
}

// A Meta's copies share the one reference Read took: the first Release
// of any copy drops it, the others (and a Release again) do nothing —
// from any goroutine.
func TestReleaseOfCopiesDropsTheReferenceOnce(t *testing.T) {
	tensors := gst.NewBufferWithSize(12)
	defer gstglue.ReleaseBuffer(tensors)
	// Two references of the test's own beyond the wrapper's, so that a
	// reference dropped twice is a count, not a freed buffer.
	extra := []gstglue.Lease{gstglue.LeaseBuffer(gstglue.BorrowBuffer(tensors)), gstglue.LeaseBuffer(gstglue.BorrowBuffer(tensors))}
	defer func() {
		for _, l := range extra {
			l.Release()
		}
	}()
	video, free := metaBuffer(t, tensors)
	defer free()
	refs := func() int { return bufferRefCount(gstglue.BorrowBuffer(tensors)) }
	base := refs()

	m, ok := Read(video)
	if !ok || m.Tensors == nil || m.Run != 5 {
		t.Fatalf("Read: %+v %v", m, ok)
	}
	if refs() <= base {
		t.Fatal("Read took no reference of the tensors")
	}
	m2 := m
	m.Release()
	m2.Release()
	m.Release()
	if got := refs(); got != base {
		t.Fatalf("two copies released: the tensors' refcount is %d, %d before Read", got, base)
	}
	if m.Tensors != nil || m2.Tensors != nil {
		t.Error("Release left Tensors set")
	}

	m, _ = Read(video)
	var wg sync.WaitGroup
	for range 8 {
		c := m
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Release()
		}()
	}
	wg.Wait()
	if got := refs(); got != base {
		t.Fatalf("eight copies released at once: refcount %d, %d before Read", got, base)
	}
}

// A Meta never released gives its reference back once no copy of it is
// reachable (the safety net); one released is not released again by it.
func TestUnreleasedMetaIsReleasedWhenUnreachable(t *testing.T) {
	tensors := gst.NewBufferWithSize(12)
	defer gstglue.ReleaseBuffer(tensors)
	extra := gstglue.LeaseBuffer(gstglue.BorrowBuffer(tensors))
	defer extra.Release()
	video, free := metaBuffer(t, tensors)
	defer free()
	refs := func() int { return bufferRefCount(gstglue.BorrowBuffer(tensors)) }
	base := refs()

	func() {
		m, ok := Read(video)
		if !ok {
			t.Fatal("no meta")
		}
		runtime.KeepAlive(m)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for refs() != base && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := refs(); got != base {
		t.Fatalf("a Meta dropped unreleased: refcount %d, %d before Read", got, base)
	}

	m, _ := Read(video)
	m.Release()
	m = Meta{}
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := refs(); got != base {
		t.Fatalf("released, then collected: refcount %d, want %d", got, base)
	}
}

// bufferRefCount returns b's reference count (for tests of the readers'
// references).
func bufferRefCount(b gstglue.RawBuffer) int { return b.RefCount() }

// Several results on one buffer: each add takes the next index, Read
// gives the latest (the tensorinfer just before the reader), ReadFrom the
// latest of one producer; region rows and their transforms come back as
// they were added; a copy of the buffer keeps every result and its index.
func TestResultsChainOnOneBuffer(t *testing.T) {
	video := gst.NewBufferWithSize(16)
	defer gstglue.ReleaseBuffer(video)
	raw := gstglue.BorrowBuffer(video)
	regions := []Region{{ID: 7, Transform: Transform{ScaleX: 0.5, ScaleY: 2, OffsetX: -3, OffsetY: 4}}, {ID: 9, Transform: Transform{ScaleX: 1, ScaleY: 1}}}
	AddResult(raw, gstglue.RawBuffer{}, nil, Raw{Producer: "det", Run: 1})
	AddResult(raw, gstglue.RawBuffer{}, nil, Raw{Producer: "rec", Run: 2, Regions: regions})
	AddResult(raw, gstglue.RawBuffer{}, nil, Raw{Producer: "rec", Run: 3})
	check := func(what string, buf gstglue.RawBuffer) {
		t.Helper()
		var r Reader
		defer r.Close()
		m, ok := r.Read(buf)
		if !ok || m.Producer != "rec" || m.Index != 2 || m.Run != 3 {
			t.Errorf("%s: Read = %+v %v; want rec's run 3 at index 2", what, m, ok)
		}
		m, ok = r.ReadFrom(buf, "det")
		if !ok || m.Producer != "det" || m.Index != 0 || m.Run != 1 || m.Regions != nil {
			t.Errorf("%s: ReadFrom(det) = %+v %v", what, m, ok)
		}
		if _, ok := r.ReadFrom(buf, "other"); ok {
			t.Errorf("%s: ReadFrom of a producer with no result found one", what)
		}
	}
	check("the buffer", raw)
	cp := video.Copy()
	defer gstglue.ReleaseBuffer(cp)
	check("a copy", gstglue.BorrowBuffer(cp))
	// The region rows of run 2 (not the latest of rec: found by walking).
	var r Reader
	defer r.Close()
	AddResult(raw, gstglue.RawBuffer{}, nil, Raw{Producer: "cls", Run: 4, Regions: regions[:1]})
	m, ok := r.Read(raw)
	if !ok || m.Index != 3 || len(m.Regions) != 1 || m.Regions[0] != regions[0] {
		t.Fatalf("Read = %+v %v; want cls's one region %+v", m, ok, regions[0])
	}
}
