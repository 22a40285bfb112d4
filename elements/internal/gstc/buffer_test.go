package gstc

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
	info := ReadBufferInfo(b)
	if info.NMemory != 1 || info.Size != 10 || info.PTS != 42 || info.Duration != ClockTimeNone || info.HasVideoMeta {
		t.Fatalf("info %+v", info)
	}
	dst := make([]byte, 4)
	if n := ExtractBuffer(b, dst); n != 4 || string(dst) != "0123" {
		t.Fatalf("extract %d %q", n, dst)
	}
	if n := testing.AllocsPerRun(50, func() { ReadBufferInfo(b) }); n != 0 {
		t.Errorf("ReadBufferInfo allocates %.0f times", n)
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
