package gstglue

import (
	"testing"

	"github.com/go-gst/go-gst/gst"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
	"golang.org/x/sys/unix"
)

// One read of a buffer of two memories — fd memory (memfd standing in for
// a dma-buf) carrying a qdata value, then system memory — gives each
// memory's pointer, offset, size, fd and qdata, the timestamps and the
// offset, and places buffer bytes in the right memory as
// gst_buffer_find_memory does; without allocating.
func TestBufferViewReadsEveryMemoryInOneCall(t *testing.T) {
	fd := cgotest.NewMemfd(t, cgotest.Pattern(4096))
	defer unix.Close(fd)
	mem, err := wrapFd(false, fd, 4096, 0, func() {})
	if err != nil {
		t.Fatal(err)
	}
	buf := gst.NewEmptyBuffer()
	if err := AppendMemory(buf, mem); err != nil {
		t.Fatal(err)
	}
	sys := gst.NewBufferWithSize(100)
	if err := AppendMemory(buf, sys.PeekMemory(0).Ref()); err != nil {
		t.Fatal(err)
	}
	UnrefBuffer(sys)
	defer UnrefBuffer(buf)
	buf.SetPresentationTimestamp(gst.ClockTime(7))
	buf.SetDuration(gst.ClockTime(3))
	b := BorrowBuffer(buf)
	SetBufferOffset(b, 99)
	value := &struct{ n int }{5}
	testKey.Set(PeekMemory(b, 0), value, nil)

	var v BufferView
	ReadBufferView(b, testKey, &v)
	if v.NMemory() != 2 || v.Memories() != 2 || v.Size() != 4196 || v.PTS() != 7 || v.Duration() != 3 || v.Offset() != 99 {
		t.Fatalf("%d memories (%d read), %d bytes, pts %d, duration %d, offset %d", v.NMemory(), v.Memories(), v.Size(), v.PTS(), v.Duration(), v.Offset())
	}
	if v.Memory(0) != PeekMemory(b, 0) || v.MemFD(0) != fd || v.MemSize(0) != 4096 || v.MemOffset(0) != 0 {
		t.Errorf("memory 0: fd %d (want %d), size %d, offset %d", v.MemFD(0), fd, v.MemSize(0), v.MemOffset(0))
	}
	if v.MemFD(1) != -1 || v.MemSize(1) != 100 {
		t.Errorf("memory 1 (system): fd %d, size %d", v.MemFD(1), v.MemSize(1))
	}
	if got, ok := v.MemQdata(0); !ok || got != value {
		t.Errorf("memory 0's qdata: %v %v, want the value set", got, ok)
	}
	if _, ok := v.MemQdata(1); ok {
		t.Error("memory 1 has qdata it was never given")
	}
	for _, c := range []struct{ off, idx, skip int }{{0, 0, 0}, {4095, 0, 4095}, {4096, 1, 0}, {4195, 1, 99}} {
		if idx, skip, ok := v.FindMemory(c.off); !ok || idx != c.idx || skip != c.skip {
			t.Errorf("byte %d: memory %d at %d (ok %v), want memory %d at %d", c.off, idx, skip, ok, c.idx, c.skip)
		}
	}
	if _, _, ok := v.FindMemory(4196); ok {
		t.Error("a byte past the end was found")
	}
	if n := testing.AllocsPerRun(100, func() {
		ReadBufferView(b, testKey, &v)
		v.MemQdata(0)
	}); n != 0 {
		t.Errorf("reading the view allocates %v times", n)
	}
	testKey.remove(PeekMemory(b, 0))
}
