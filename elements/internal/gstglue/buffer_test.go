package gstglue

import (
	"testing"

	"github.com/go-gst/go-gst/gst"
)

func TestLeaseKeepsBufferAndInfoReadsIt(t *testing.T) {
	buf := gst.NewBufferFromBytes([]byte("0123456789"))
	buf.SetPresentationTimestamp(gst.ClockTime(42))
	b := BorrowBuffer(buf)
	if !buf.IsWritable() {
		t.Fatal("a fresh buffer is not writable")
	}
	l := LeaseBuffer(b)
	// The lease is a second reference: the buffer is shared now.
	if buf.IsWritable() {
		t.Error("leased buffer still writable: the lease holds no reference")
	}
	var v BufferView
	ReadBufferView(b, QdataKey{}, &v)
	if _, meta := v.VideoMeta(); v.NMemory() != 1 || v.Size() != 10 || v.PTS() != 42 || v.Duration() != ClockTimeNone || meta ||
		v.MemSize(0) != 10 || v.MemFD(0) != -1 || v.Offset() != OffsetNone {
		t.Fatalf("view: %d memories, %d bytes, pts %d, duration %d, meta %v, fd %d, offset %d",
			v.NMemory(), v.Size(), v.PTS(), v.Duration(), meta, v.MemFD(0), v.Offset())
	}
	dst := make([]byte, 4)
	if n := ExtractBuffer(b, dst); n != 4 || string(dst) != "0123" {
		t.Fatalf("extract %d %q", n, dst)
	}
	if n := testing.AllocsPerRun(50, func() { ReadBufferView(b, testKey, &v) }); n != 0 {
		t.Errorf("ReadBufferView allocates %.0f times", n)
	}
	if n := testing.AllocsPerRun(50, func() { LeaseBuffer(b).Release() }); n != 0 {
		t.Errorf("LeaseBuffer+Release allocates %.0f times", n)
	}
	l.Release()
	if !buf.IsWritable() {
		t.Error("buffer still shared after the lease's Release")
	}
	UnrefBuffer(buf)
}

func TestPeekMemoryOutOfRange(t *testing.T) {
	buf := gst.NewBufferWithSize(16)
	defer UnrefBuffer(buf)
	b := BorrowBuffer(buf)
	if !PeekMemory(b, 1).IsNil() || !PeekMemory(b, -1).IsNil() {
		t.Error("out-of-range PeekMemory returned memory")
	}
	m := PeekMemory(b, 0)
	if m.IsNil() || m.IsFd() || m.FD() != -1 {
		t.Errorf("system memory: nil=%v fd=%v FD=%d", m.IsNil(), m.IsFd(), m.FD())
	}
	if n := testing.AllocsPerRun(100, func() { _ = PeekMemory(b, 0).IsFd() }); n != 0 {
		t.Errorf("PeekMemory+IsFd allocates %v times", n)
	}
}
