package gstglue

import (
	"bytes"
	"sync/atomic"
	"testing"

	"github.com/go-gst/go-gst/gst"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
	"golang.org/x/sys/unix"
)

func TestFdMemoryRoundTrip(t *testing.T) {
	for _, dmabuf := range []bool{false, true} {
		name := "fd"
		if dmabuf {
			name = "dmabuf" // memfd stands in for a dma-buf on this host
		}
		t.Run(name, func(t *testing.T) {
			cgotest.CheckFds(t)
			const size = 3*4096 + 123
			data := cgotest.Pattern(size)
			fd := cgotest.NewMemfd(t, data)
			defer unix.Close(fd)

			var released atomic.Int32
			mem, err := wrapFd(dmabuf, fd, size, 0, func() { released.Add(1) })
			if err != nil {
				t.Fatal(err)
			}
			m := BorrowMemory(mem)
			if !m.IsFd() {
				t.Error("not recognised as fd memory")
			}
			if m.IsDmabuf() != dmabuf {
				t.Errorf("IsDmabuf = %v, want %v", m.IsDmabuf(), dmabuf)
			}
			if got := m.FD(); got != fd {
				t.Errorf("FD = %d, want %d (the same fd, not a dup)", got, fd)
			}
			if m.Offset() != 0 || m.Size() != size || m.maxSize() != size {
				t.Errorf("offset/size/maxsize = %d/%d/%d", m.Offset(), m.Size(), m.maxSize())
			}

			// gst_memory_map goes through the allocator's mmap of our fd.
			mp, err := mapMemory(m, true)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mp.bytes(), data) {
				t.Error("mapped bytes differ from bytes written through the fd")
			}
			mp.bytes()[5] = 0xAB // MAP_SHARED: visible through the fd
			mp.unmap()
			mp.unmap() // idempotent
			one := make([]byte, 1)
			if _, err := unix.Pread(fd, one, 5); err != nil || one[0] != 0xAB {
				t.Errorf("write through the mapping not seen through the fd: %x %v", one, err)
			}
			data[5] = 0xAB

			// Hand the memory to a buffer and read it as another element
			// would, through go-gst's Buffer.Map.
			buf := gst.NewEmptyBuffer()
			if err := AppendMemory(buf, mem); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Map(gst.MapRead).Bytes(), data) {
				t.Error("buffer map differs")
			}
			buf.Unmap()

			// A second buffer sharing the memory and a direct reference:
			// release must wait for the last of the three.
			buf2 := buf.Copy()
			extra := PeekMemory(BorrowBuffer(buf), 0).ref()
			UnrefBuffer(buf)
			UnrefBuffer(buf2)
			if n := released.Load(); n != 0 {
				t.Fatalf("released %d times while a reference is still held", n)
			}
			unrefMemory(extra)
			if n := released.Load(); n != 1 {
				t.Fatalf("released %d times after the last unref, want 1", n)
			}
			if !cgotest.FdOpen(fd) {
				t.Fatal("GStreamer closed our fd")
			}
			cgotest.DrainFinalizers()
			if n := released.Load(); n != 1 {
				t.Fatalf("released %d times after GC, want exactly 1", n)
			}
		})
	}
}

// Without unrefMemory/AppendMemory the go-gst finalizer drops the last
// reference: release still runs, once, but only after a GC.
func TestFdMemoryReleasedByFinalizer(t *testing.T) {
	cgotest.CheckFds(t)
	fd := cgotest.NewMemfd(t, cgotest.Pattern(4096))
	defer unix.Close(fd)
	var released atomic.Int32
	func() {
		mem, err := NewFdMemory(fd, 4096, func() { released.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		_ = mem
	}()
	if !cgotest.Settle(func() bool { return released.Load() == 1 }) {
		t.Fatalf("released %d times after GC, want 1", released.Load())
	}
	cgotest.DrainFinalizers()
	if released.Load() != 1 || !cgotest.FdOpen(fd) {
		t.Fatalf("released %d times, fd open %v", released.Load(), cgotest.FdOpen(fd))
	}
}

func TestWrapFdErrors(t *testing.T) {
	cgotest.CheckFds(t)
	fd := cgotest.NewMemfd(t, cgotest.Pattern(4096))
	const closed = 999999 // beyond any fd this process opens
	defer unix.Close(fd)
	var released atomic.Int32
	rel := func() { released.Add(1) }
	cases := []struct {
		name     string
		fd, size int
	}{
		{"negative fd", -1, 4096},
		{"closed fd", closed, 16},
		{"zero size", fd, 0},
		{"past end of file", fd, 4097},
	}
	for _, c := range cases {
		if mem, err := wrapFd(true, c.fd, c.size, 0, rel); err == nil {
			t.Errorf("%s: got memory %v, want error", c.name, mem)
		}
	}
	cgotest.DrainFinalizers()
	if released.Load() != 0 {
		t.Errorf("release ran %d times for memory never created", released.Load())
	}
	if !cgotest.FdOpen(fd) {
		t.Error("fd closed by a failed wrap")
	}
}

// KeepMapped: a second map reuses the first mmap (same address).
func TestFdMemoryKeepMapped(t *testing.T) {
	cgotest.CheckFds(t)
	fd := cgotest.NewMemfd(t, cgotest.Pattern(8192))
	defer unix.Close(fd)
	mem, err := wrapFd(false, fd, 8192, keepMapped, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unrefMemory(mem)
	a, err := mapMemory(BorrowMemory(mem), true)
	if err != nil {
		t.Fatal(err)
	}
	p1 := &a.bytes()[0]
	a.unmap()
	b, err := mapMemory(BorrowMemory(mem), false)
	if err != nil {
		t.Fatal(err)
	}
	if &b.bytes()[0] != p1 {
		t.Error("KeepMapped memory was mapped again")
	}
	b.unmap()
}
