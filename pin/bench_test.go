package pin_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

func BenchmarkPinOnExistingMapping(b *testing.B) {
	fd := memfd(b, 1<<20)
	m, err := pin.Map(fd, 0, 1<<20, pin.ProtRead)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	b.ReportAllocs()
	before := pin.ReadStats()
	for b.Loop() {
		p, _ := m.Pin(4096, 65536)
		p.Release()
	}
	if s := pin.ReadStats(); s.Maps != before.Maps {
		b.Fatalf("pinning an existing mapping mapped %d times", s.Maps-before.Maps)
	}
}

func BenchmarkCloneRelease(b *testing.B) {
	fd := memfd(b, 4096)
	m, _ := pin.Map(fd, 0, 4096, pin.ProtRead)
	root, _ := m.Pin(0, 4096)
	m.Close()
	defer root.Release()
	b.ReportAllocs()
	for b.Loop() {
		c, _ := root.Clone()
		c.Release()
	}
}

func TestPerFrameOperationsDoNotAllocate(t *testing.T) {
	fd := memfd(t, 4096)
	m, _ := pin.Map(fd, 0, 4096, pin.ProtRead)
	defer m.Close()
	root, _ := m.Pin(0, 4096)
	defer root.Release()
	if n := testing.AllocsPerRun(100, func() {
		c, _ := root.Clone()
		c.Release()
	}); n != 0 {
		t.Errorf("Clone+Release allocates %.1f times", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		p, _ := m.Pin(0, 100)
		p.Release()
	}); n != 0 {
		t.Errorf("Pin+Release on a mapping allocates %.1f times", n)
	}
}
