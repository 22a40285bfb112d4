package gstc

import (
	"testing"

	"github.com/go-gst/go-gst/gst"
)

func TestLeaseKeepsBufferAndInfoReadsIt(t *testing.T) {
	buf := gst.NewBufferFromBytes([]byte("0123456789"))
	buf.SetPresentationTimestamp(gst.ClockTime(42))
	l := LeaseBuffer(buf)
	if rc := buf.Ref(); rc == nil {
		t.Fatal("ref")
	} else {
		rc.Unref()
	}
	info := ReadBufferInfo(buf)
	if info.NMemory != 1 || info.Size != 10 || info.PTS != 42 || info.Duration != ClockTimeNone || info.HasVideoMeta {
		t.Fatalf("info %+v", info)
	}
	dst := make([]byte, 4)
	if n := ExtractBuffer(buf, dst); n != 4 || string(dst) != "0123" {
		t.Fatalf("extract %d %q", n, dst)
	}
	if n := testing.AllocsPerRun(50, func() { ReadBufferInfo(buf) }); n != 0 {
		t.Errorf("ReadBufferInfo allocates %.0f times", n)
	}
	if n := testing.AllocsPerRun(50, func() { LeaseBuffer(buf).Release() }); n != 0 {
		t.Errorf("LeaseBuffer+Release allocates %.0f times", n)
	}
	l.Release()
}
