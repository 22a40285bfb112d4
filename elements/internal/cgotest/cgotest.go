// Package cgotest is what the tests of the cgo layer's two packages,
// gstglue and frameengine, share: their TestMain (GStreamer initialised,
// a run that fails if fds or Go handles were left behind) and the fd
// checks and memfds their tests use. It imports neither package, so that
// both can use it from their own (internal) tests.
package cgotest

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"
)

// Main initialises GStreamer once, calls register (nil: nothing to
// register; false: exit), warms up the process-wide GStreamer state that
// opens fds once and keeps them (system clock, task pool), runs the tests,
// and then fails the run if they left fds open or liveHandles (the
// package's count of Go values still referenced from C) above zero.
func Main(m *testing.M, register func() bool, liveHandles func() int) {
	gst.Init(nil)
	if register != nil && !register() {
		fmt.Fprintln(os.Stderr, "cgotest: cannot register the test elements")
		os.Exit(1)
	}
	warmUp()
	baseFds := FdCount()

	code := m.Run()

	if code == 0 {
		if !Settle(func() bool { return FdCount() <= baseFds }) {
			fmt.Fprintf(os.Stderr, "fd leak: %d open fds, %d at start\n%s", FdCount(), baseFds, fdList())
			code = 1
		}
		if !Settle(func() bool { return liveHandles() == 0 }) {
			fmt.Fprintf(os.Stderr, "handle leak: %d Go handles still referenced from C\n", liveHandles())
			code = 1
		}
	}
	os.Exit(code)
}

func warmUp() {
	p, err := gst.NewPipelineFromString("fakesrc num-buffers=1 ! fakesink")
	if err != nil {
		panic(err)
	}
	p.SetState(gst.StatePlaying)
	p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(5*time.Second), gst.MessageEOS|gst.MessageError)
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
	DrainFinalizers()    // let the warm-up's wrappers be collected
}

// FdCount is the number of open fds of this process.
func FdCount() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		panic(err)
	}
	return len(ents)
}

func fdList() string {
	ents, _ := os.ReadDir("/proc/self/fd")
	s := ""
	for _, e := range ents {
		t, _ := os.Readlink("/proc/self/fd/" + e.Name())
		s += e.Name() + " -> " + t + "\n"
	}
	return s
}

// Settle runs GCs (so go-gst finalizers drop their references) until cond
// holds or about two seconds have passed.
func Settle(cond func() bool) bool {
	for i := 0; i < 40; i++ {
		if cond() {
			return true
		}
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
	return cond()
}

// DrainFinalizers runs a few GCs so pending go-gst finalizers (and any
// release they trigger) have run.
func DrainFinalizers() {
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
}

// CheckFds fails t if the test changed the number of open fds once
// finalizers have run.
func CheckFds(t *testing.T) {
	t.Helper()
	before := FdCount()
	t.Cleanup(func() {
		if !Settle(func() bool { return FdCount() <= before }) {
			t.Errorf("fd leak: %d open fds, %d before the test\n%s", FdCount(), before, fdList())
		}
	})
}

// NewMemfd returns a memfd holding data; the test owns it and closes it.
func NewMemfd(t *testing.T, data []byte) int {
	t.Helper()
	fd, err := unix.MemfdCreate("cgotest", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Ftruncate(fd, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Pwrite(fd, data, 0); err != nil {
		t.Fatal(err)
	}
	return fd
}

// Pattern returns n bytes of a fixed, recognisable pattern.
func Pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	return b
}

// FdOpen reports whether fd is still open (fcntl F_GETFD succeeds).
func FdOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}
