package pin_test

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
)

func TestMain(m *testing.M) { pintest.Main(m) }

// memfd is the stand-in for a dma-buf: see pintest.Memfd.
func memfd(t testing.TB, size int) int { return pintest.Memfd(t, size) }

func TestPinAddressIsMappingBasePlusOffset(t *testing.T) {
	fd := memfd(t, 8192)
	m, err := pin.Map(fd, 0, 8192, pin.ProtReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	p, err := m.Pin(100, 500)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if want := uintptr(m.Base()) + 100; p.Addr() != want {
		t.Fatalf("pin address %#x, want base+100 = %#x", p.Addr(), want)
	}
	if p.Len() != 500 {
		t.Fatalf("Len = %d, want 500", p.Len())
	}
	if got := p.Bytes()[0]; got != 100 {
		t.Fatalf("first pinned byte = %d, want 100 (byte 100 of the file)", got)
	}
}

func TestPinOutlivesMappingClose(t *testing.T) {
	before := pin.ReadStats()
	fd := memfd(t, 4096)
	m, err := pin.Map(fd, 0, 4096, pin.ProtRead)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Pin(0, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	unix.Close(fd) // the mapping keeps the file, not the fd
	if got := p.Bytes()[250]; got != 250 {
		t.Fatalf("byte 250 after mapping and fd closed = %d, want 250", got)
	}
	if s := pin.ReadStats(); s.Unmaps != before.Unmaps {
		t.Fatalf("unmapped while a pin was alive (unmaps %d -> %d)", before.Unmaps, s.Unmaps)
	}
	if _, err := m.Pin(0, 1); !errors.Is(err, pin.ErrClosed) || !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Pin on a closed mapping: %v, want ErrClosed", err)
	}
	p.Release()
	p.Release() // idempotent
	if s := pin.ReadStats(); s.Unmaps != before.Unmaps+1 || s.Maps != before.Maps+1 {
		t.Fatalf("maps/unmaps %d/%d -> %d/%d, want one of each", before.Maps, before.Unmaps, s.Maps, s.Unmaps)
	}
	if p.Valid() || p.Bytes() != nil || p.Addr() != 0 {
		t.Fatal("a released handle still exposes its window")
	}
}

func TestCloneSharesWindowAndKeepsItAlive(t *testing.T) {
	fd := memfd(t, 4096)
	m, err := pin.Map(fd, 0, 4096, pin.ProtRead)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.Pin(64, 64)
	m.Close()
	c, err := p.Clone()
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr() != p.Addr() || c.Len() != p.Len() {
		t.Fatalf("clone %v differs from %v", &c, &p)
	}
	p.Release()
	if c.Bytes()[0] != 64 {
		t.Fatal("clone's bytes changed after the original was released")
	}
	if _, err := p.Clone(); !errors.Is(err, pin.ErrReleased) {
		t.Fatalf("Clone of released handle: %v, want ErrReleased", err)
	}
	c.Release()
}

func TestNarrowOnlyShrinks(t *testing.T) {
	fd := memfd(t, 4096)
	m, _ := pin.Map(fd, 0, 4096, pin.ProtRead)
	defer m.Close()
	p, _ := m.Pin(0, 1000)
	defer p.Release()
	q, err := p.Narrow(10, 990)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	if q.Addr() != p.Addr()+10 || q.Len() != 990 {
		t.Fatalf("narrowed to %v", &q)
	}
	for _, w := range [][2]int{{0, 1001}, {10, 991}, {-1, 5}, {1001, 0}, {5, -1}} {
		if _, err := p.Narrow(w[0], w[1]); !errors.Is(err, pin.ErrOutOfBounds) {
			t.Errorf("Narrow(%d, %d) = %v, want ErrOutOfBounds", w[0], w[1], err)
		}
	}
	if _, err := m.Pin(4000, 97); !errors.Is(err, pin.ErrOutOfBounds) {
		t.Errorf("Pin past the mapping: %v, want ErrOutOfBounds", err)
	}
}

func TestAlignment(t *testing.T) {
	// A mapping is page aligned, so offsets into it give known alignments.
	fd := memfd(t, 8192)
	m, _ := pin.Map(fd, 0, 8192, pin.ProtRead)
	defer m.Close()
	page := uintptr(unix.Getpagesize())
	for off, want := range map[int]uintptr{0: 0, 64: 64, 65: 1, 2: 2, 4096: 4096, 192: 64} {
		p, _ := m.Pin(off, 1)
		got := p.Alignment()
		if off == 0 || off == 4096 {
			if got < page || got%page != 0 {
				t.Errorf("offset %d: alignment %d, want a multiple of the page size", off, got)
			}
		} else if got != want {
			t.Errorf("offset %d: alignment %d, want %d", off, got, want)
		}
		p.Release()
	}
	var zero pin.HostPin
	if zero.Alignment() != 0 {
		t.Error("alignment of a nil address must be 0")
	}
}

func TestConcurrentCloneRelease(t *testing.T) {
	fd := memfd(t, 4096)
	m, _ := pin.Map(fd, 0, 4096, pin.ProtRead)
	root, _ := m.Pin(0, 4096)
	m.Close()
	before := pin.ReadStats()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				c, err := root.Clone()
				if err != nil {
					t.Error(err)
					return
				}
				if c.Bytes()[7] != 7 {
					t.Error("clone reads wrong bytes")
				}
				c.Release()
			}
		}()
	}
	wg.Wait()
	if s := pin.ReadStats(); s.Unmaps != before.Unmaps || s.LivePins != before.LivePins {
		t.Fatalf("after balanced clones: unmaps %d -> %d, live pins %d -> %d", before.Unmaps, s.Unmaps, before.LivePins, s.LivePins)
	}
	if root.Keepalive().Refs() != 1 {
		t.Fatalf("refs = %d, want 1 (the root pin)", root.Keepalive().Refs())
	}
	root.Release()
	if s := pin.ReadStats(); s.Unmaps != before.Unmaps+1 {
		t.Fatal("last release did not unmap")
	}
}

func TestKeepaliveReleaseRunsOnceAndRefusesRevival(t *testing.T) {
	runs := 0
	k := pin.NewKeepalive("counter", func() { runs++ })
	if err := k.Acquire(); err != nil {
		t.Fatal(err)
	}
	k.Release()
	if runs != 0 {
		t.Fatal("released with a reference left")
	}
	k.Release()
	if runs != 1 {
		t.Fatalf("release ran %d times, want 1", runs)
	}
	if err := k.Release(); !errors.Is(err, pin.ErrReleased) {
		t.Fatalf("over-release: %v, want ErrReleased", err)
	}
	if err := k.Acquire(); !errors.Is(err, pin.ErrReleased) {
		t.Fatalf("revive: %v, want ErrReleased", err)
	}
	if runs != 1 {
		t.Fatal("release ran again")
	}
}

// awaitLeak runs the garbage collector until the safety net reports a leak.
// The deadline only turns a hang into a failure.
func awaitLeak(t *testing.T, reports <-chan pin.LeakReport) pin.LeakReport {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		runtime.GC()
		select {
		case r := <-reports:
			return r
		case <-deadline:
			t.Fatal("an owner dropped with references held was never reported")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// procMem reads n bytes at addr through /proc/self/mem: an address that is
// no longer mapped is an error (EIO) here, where a direct read would kill the
// test binary with SIGSEGV.
func procMem(t *testing.T, addr uintptr, n int) ([]byte, error) {
	t.Helper()
	f, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Skipf("cannot read /proc/self/mem: %v", err)
	}
	defer f.Close()
	buf := make([]byte, n)
	_, err = f.ReadAt(buf, int64(addr))
	return buf, err
}

// A pin dropped without Release may have handed its address to a C runtime
// (TFLite, ONNX Runtime) that still reads it; the safety net reports the leak
// but must leave the memory mapped.
func TestLeakedPinMemoryStaysMapped(t *testing.T) {
	reports := make(chan pin.LeakReport, 4)
	defer pin.InstallLeakHandler(func(r pin.LeakReport) { reports <- r })()
	// A regular file, not a memfd: the mapping stays for the rest of the
	// process, and pintest.Main counts memfd mappings as leaks.
	f, err := os.CreateTemp(t.TempDir(), "leak")
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 4096)
	for i := range want {
		want[i] = byte(i % 251)
	}
	if _, err := f.Write(want); err != nil {
		t.Fatal(err)
	}
	before := pin.ReadStats()
	var addr uintptr // what the C runtime was given: Go cannot see it
	func() {
		m, err := pin.Map(int(f.Fd()), 0, 4096, pin.ProtRead)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := m.Pin(0, 4096)
		m.Close()
		addr = p.Addr() // p is dropped without Release
	}()
	f.Close()
	r := awaitLeak(t, reports)
	s := pin.ReadStats()
	if !r.Quarantined || r.Bytes != 4096 || s.Leaks != before.Leaks+1 ||
		s.Quarantined != before.Quarantined+1 || s.QuarantinedBytes != before.QuarantinedBytes+4096 {
		t.Errorf("report %+v, stats %+v -> %+v: want one leak, quarantined with its 4096 bytes", r, before, s)
	}
	if s.Unmaps != before.Unmaps {
		t.Errorf("the safety net unmapped a leaked pin's memory (unmaps %d -> %d)", before.Unmaps, s.Unmaps)
	}
	got, err := procMem(t, addr, 4096)
	if err != nil {
		t.Fatalf("the leaked pin's address %#x is no longer readable: %v", addr, err)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("byte %d of the leaked pin's memory is %d, want %d", i, got[i], want[i])
		}
	}
}

// An owner made with NewKeepalive (a tensor's storage: its release closes an
// fd and drops references) is released by the safety net, then reported.
func TestLeakedKeepaliveIsReleasedAndReported(t *testing.T) {
	reports := make(chan pin.LeakReport, 4)
	defer pin.InstallLeakHandler(func(r pin.LeakReport) { reports <- r })()
	var released atomic.Bool
	before := pin.ReadStats()
	func() {
		k := pin.NewKeepalive("storage", func() { released.Store(true) })
		k.Acquire() // a second reference, never released
		k.Release()
	}()
	r := awaitLeak(t, reports)
	if !released.Load() {
		t.Fatal("the report came before the owner was released")
	}
	s := pin.ReadStats()
	if r.What != "storage" || r.Quarantined || s.Leaks != before.Leaks+1 || s.Quarantined != before.Quarantined {
		t.Fatalf("report %+v, leaks %d -> %d, quarantined %d -> %d: want one released leak",
			r, before.Leaks, s.Leaks, before.Quarantined, s.Quarantined)
	}
}

func TestWithCPUMappingsExcludedBlocksMapping(t *testing.T) {
	fd := memfd(t, 4096)
	mapped := make(chan *pin.Mapping)
	pin.WithCPUMappingsExcluded(func() {
		go func() {
			m, err := pin.Map(fd, 0, 4096, pin.ProtRead)
			if err != nil {
				t.Error(err)
			}
			mapped <- m
		}()
		select {
		case <-mapped:
			t.Error("a mapping was created inside WithCPUMappingsExcluded")
		case <-time.After(50 * time.Millisecond):
		}
	})
	m := <-mapped
	if m != nil {
		m.Close()
	}
}

func TestNewRejectsNonsense(t *testing.T) {
	k := pin.NewKeepalive("x", func() {})
	defer k.Release()
	if _, err := pin.New(nil, 5, k); !errors.Is(err, pin.ErrInvalid) {
		t.Errorf("nil address with length: %v", err)
	}
	if _, err := pin.Map(-1, 0, 4096, pin.ProtRead); err == nil {
		t.Error("mapping fd -1 succeeded")
	}
	if _, err := pin.Map(0, 1, 4096, pin.ProtRead); !errors.Is(err, pin.ErrInvalid) {
		t.Errorf("unaligned offset: %v", err)
	}
}
