package gstc

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"
	"golang.org/x/sys/unix"
)

// TestMain initialises GStreamer once, registers the test element, warms
// up the process-wide GStreamer state that opens fds once and keeps them
// (system clock, task pool), and then checks that the tests left no fds
// and no Go handles behind.
func TestMain(m *testing.M) {
	gst.Init(nil)
	if !gst.RegisterElement(nil, "gstctestsrc", gst.RankNone, &testSrc{}, base.ExtendsPushSrc) {
		fmt.Fprintln(os.Stderr, "cannot register gstctestsrc")
		os.Exit(1)
	}
	warmUp()
	baseFds := fdCount()

	code := m.Run()

	if code == 0 {
		if !settle(func() bool { return fdCount() <= baseFds }) {
			fmt.Fprintf(os.Stderr, "fd leak: %d open fds, %d at start\n%s", fdCount(), baseFds, fdList())
			code = 1
		}
		if !settle(func() bool { return liveHandles() == 0 }) {
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
	drainFinalizers()    // let the warm-up's wrappers be collected
}

// fdCount is the number of open fds of this process.
func fdCount() int {
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

// settle runs GCs (so go-gst finalizers drop their references) until cond
// holds or about two seconds have passed.
func settle(cond func() bool) bool {
	for i := 0; i < 40; i++ {
		if cond() {
			return true
		}
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
	return cond()
}

// drainFinalizers runs a few GCs so pending go-gst finalizers (and any
// release they trigger) have run.
func drainFinalizers() {
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
}

// checkFds fails t if the test changed the number of open fds once
// finalizers have run.
func checkFds(t *testing.T) {
	t.Helper()
	before := fdCount()
	t.Cleanup(func() {
		if !settle(func() bool { return fdCount() <= before }) {
			t.Errorf("fd leak: %d open fds, %d before the test\n%s", fdCount(), before, fdList())
		}
	})
}

// newMemfd returns a memfd holding data; the test closes it.
func newMemfd(t *testing.T, data []byte) int {
	t.Helper()
	fd, err := unix.MemfdCreate("gstc-test", unix.MFD_CLOEXEC)
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

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + 3)
	}
	return b
}

// fdOpen reports whether fd is still open (fcntl F_GETFD succeeds).
func fdOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}
