package pinread_test

import (
	"testing"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pinread"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

func TestMain(m *testing.M) { gsttest.Main(m, func() bool { return true }) }

type countHooks struct{ before, after int }

func (h *countHooks) BeforeInsert() { h.before++ }
func (h *countHooks) AfterInsert()  { h.after++ }

var keys = gstglue.NewQdataKeyPool("pinread-test")

// memfdBuffer returns a buffer of one fd memory over fd (a memfd standing
// in for a dma-buf), and the memory, whose last reference the buffer
// holds.
func memfdBuffer(t *testing.T, fd, size int) *gst.Buffer {
	t.Helper()
	mem, err := gstglue.NewFdMemory(fd, size, func() {})
	if err != nil {
		t.Fatal(err)
	}
	buf := gst.NewEmptyBuffer()
	if err := gstglue.AppendMemory(buf, mem); err != nil {
		t.Fatal(err)
	}
	return buf
}

// A memory is imported once: the first read maps it (the hooks run
// around that insert), the same GstMemory read again is found by its
// qdata, and a new GstMemory over the same fd by the fd's identity —
// the same entry each time, no second map.
func TestEntryForMemoryImportsOnce(t *testing.T) {
	fd, err := unix.MemfdCreate("pinread", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, 4096); err != nil {
		t.Fatal(err)
	}
	cache := pincache.New(4)
	defer cache.Close()
	q := keys.Take()
	defer keys.Give(q)
	h := &countHooks{}
	r := pinread.Reader{Cache: cache, Qkey: q, Noun: "buffer", Hooks: h}
	var v gstglue.BufferView
	read := func(buf *gst.Buffer) (*pincache.Entry, bool) {
		t.Helper()
		gstglue.ReadBufferView(gstglue.BorrowBuffer(buf), q, &v)
		e, isNew, err := r.EntryForMemory(&v, 0)
		if err != nil {
			t.Fatal(err)
		}
		e.Release()
		return e, isNew
	}
	a := memfdBuffer(t, fd, 4096)
	defer gstglue.ReleaseBuffer(a)
	e1, new1 := read(a)
	e2, new2 := read(a)
	b := memfdBuffer(t, fd, 4096)
	defer gstglue.ReleaseBuffer(b)
	e3, new3 := read(b)
	if !new1 || new2 || new3 {
		t.Errorf("new: %v %v %v; want the first read only", new1, new2, new3)
	}
	if e1 != e2 || e1 != e3 {
		t.Errorf("entries %p %p %p; want one", e1, e2, e3)
	}
	if h.before != 1 || h.after != 1 {
		t.Errorf("hooks ran %d/%d times; want once around the one insert", h.before, h.after)
	}
	if e1.Tag() == 0 {
		t.Error("the entry has no qdata value")
	}
}

// The element's own copy memory is one tensor, made again only when a
// larger buffer needs it.
func TestOwnEntryGrowsOnlyWhenNeeded(t *testing.T) {
	cache := pincache.New(4)
	defer cache.Close()
	q := keys.Take()
	defer keys.Give(q)
	r := pinread.Reader{Cache: cache, Qkey: q, Noun: "buffer"}
	var own *tensor.Tensor
	defer func() {
		if own != nil {
			own.Close()
		}
	}()
	sizes := []struct {
		size    int
		newWant bool
	}{{100, true}, {50, false}, {100, false}, {5000, true}}
	var first *tensor.Tensor
	for i, c := range sizes {
		e, isNew, err := r.OwnEntry(&own, c.size, "pinread-copy")
		if err != nil {
			t.Fatal(err)
		}
		if isNew != c.newWant || own.Capacity() < c.size {
			t.Errorf("step %d (%d bytes): new %v, capacity %d; want new %v", i, c.size, isNew, own.Capacity(), c.newWant)
		}
		if i == 0 {
			first = own
		}
		if i == 2 && own != first {
			t.Error("the copy memory was made again for a buffer it holds")
		}
		e.Release()
	}
}

// ReadProposal says the reader takes GstVideoMeta whatever it proposes,
// and returns the query's format and a pool memory only when the
// element proposes pools and the query has caps a layout reads. (A
// query without caps go-gst cannot make.)
func TestReadProposal(t *testing.T) {
	caps := gst.NewCapsFromString("video/x-raw,format=RGBA,width=64,height=48,framerate=30/1")
	for _, c := range []struct {
		name    string
		caps    *gst.Caps
		propose bool
		ok      bool
	}{
		{"proposing, video caps", caps, true, true},
		{"not proposing", caps, false, false},
		{"caps no layout reads", gst.NewCapsFromString("audio/x-raw,format=S16LE,rate=48000,channels=2"), true, false},
	} {
		q := gst.NewAllocationQuery(c.caps, true)
		p, ok := pinread.ReadProposal(q, c.propose)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
		}
		if has, _ := q.FindAllocationMeta(gstglue.VideoMetaAPIType()); !has {
			t.Errorf("%s: the query does not say the reader takes GstVideoMeta", c.name)
		}
		if ok && (p.Format.Width != 64 || p.Format.Height != 48 || p.Format.FrameSize != 64*48*4) {
			t.Errorf("%s: format %+v, want 64x48 RGBA", c.name, p.Format)
		}
	}
}
