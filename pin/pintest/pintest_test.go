package pintest_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
)

// No TestMain with pintest.Main: these tests leak on purpose, and a
// quarantined mapping stays for the life of the process.

// awaitNet runs the garbage collector until the pin safety net has found
// more leaks than before. The deadline only turns a hang into a failure.
func awaitNet(t *testing.T, before uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for pin.ReadStats().Leaks == before {
		if time.Now().After(deadline) {
			t.Fatal("the safety net never found the dropped pin")
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// A pin dropped without Release is a leak even though the GC found it:
// Leaks must say so, and the mapping the net quarantined is not returned.
func TestForgottenPinReleaseIsALeak(t *testing.T) {
	fd := pintest.Memfd(t, 4096) // before Take: the fd is the test's own
	base := pintest.Take()
	before := pin.ReadStats().Leaks
	func() {
		m, err := pin.Map(fd, 0, 4096, pin.ProtRead)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := m.Pin(0, 4096)
		m.Close()
		_ = p.Len() // p is dropped without Release
	}()
	awaitNet(t, before)
	leaks := base.Leaks()
	for _, want := range []string{"safety net", "mmap", "quarantined", "mappings: "} {
		if !strings.Contains(leaks, want) {
			t.Errorf("Leaks() = %q: does not mention %q", leaks, want)
		}
	}
}

// The net releases a NewKeepalive owner (a tensor storage closing its fd), so
// fds and mappings are back to the snapshot; the leak must still be reported.
func TestLeakFreedByTheNetIsStillALeak(t *testing.T) {
	base := pintest.Take()
	before := pin.ReadStats().Leaks
	func() {
		fd, err := unix.MemfdCreate("storage", unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		k := pin.NewKeepalive("storage of fd", func() { unix.Close(fd) })
		k.Acquire() // a tensor view never closed
		k.Release()
	}()
	awaitNet(t, before)
	if leaks := base.Leaks(); !strings.Contains(leaks, "storage of fd (released by the GC)") {
		t.Errorf("Leaks() = %q, want the leaked storage reported", leaks)
	}
}

// A leak a test provokes and catches with its own handler is expected: it
// does not fail the run.
func TestLeakCaughtByATestHandlerIsNotReported(t *testing.T) {
	base := pintest.Take()
	caught := make(chan pin.LeakReport, 1)
	restore := pin.InstallLeakHandler(func(r pin.LeakReport) { caught <- r })
	defer restore()
	func() {
		k := pin.NewKeepalive("expected", func() {})
		k.Acquire()
		k.Release()
	}()
	deadline := time.After(10 * time.Second)
wait:
	for {
		runtime.GC()
		select {
		case <-caught:
			break wait
		case <-deadline:
			t.Fatal("the safety net never found the keepalive")
		case <-time.After(10 * time.Millisecond):
		}
	}
	restore() // before Leaks: the recorder sees reports again
	if leaks := base.Leaks(); leaks != "" {
		t.Errorf("Leaks() = %q after an expected leak", leaks)
	}
}
