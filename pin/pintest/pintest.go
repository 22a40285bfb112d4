// Package pintest holds test helpers shared by the project's packages: a
// snapshot of the process's open fds and fd-backed mappings that tests take
// before they run and compare after, so a leaked fd or mmap fails the run.
package pintest

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Snapshot is the set of open fds and the number of fd-backed mappings
// (memfd, dma-buf, shm, device files) of this process at one moment.
type Snapshot struct {
	fds      map[int]string
	mappings int
}

// runtimeFD reports fds the Go runtime and GLib open lazily and keep for the
// process's life (netpoll's epoll and eventfd, GLib's wakeup eventfds); they
// are not leaks of the code under test.
func runtimeFD(target string) bool {
	return strings.Contains(target, "eventpoll") || strings.Contains(target, "[eventfd]") ||
		strings.HasPrefix(target, "pipe:") || strings.Contains(target, "[timerfd]")
}

// Take records the current fds and fd-backed mappings.
func Take() Snapshot {
	s := Snapshot{fds: map[int]string{}}
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue // the fd ReadDir itself used
		}
		s.fds[fd] = target
	}
	s.mappings = countFDMappings()
	return s
}

// countFDMappings counts lines of /proc/self/maps backed by the kinds of file
// this project maps. Anonymous and binary mappings, which the runtime and
// libraries add as they please, are not counted.
func countFDMappings() int {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return -1
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "/memfd:") || strings.Contains(line, "dmabuf") ||
			strings.Contains(line, "/dev/shm/") || strings.Contains(line, " /dev/") {
			n++
		}
	}
	return n
}

// Leaks compares the current state with the snapshot and describes every fd
// opened since (with what it points at) and any change in fd-backed mappings.
// It returns "" when both are back to the snapshot. It runs the garbage
// collector first so that the safety nets of unreachable owners have run.
func (s Snapshot) Leaks() string {
	var now Snapshot
	// Cleanups run on their own goroutine after a GC; give them a moment.
	for i := 0; i < 20; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		now = Take()
		if now.describe(s) == "" {
			return ""
		}
	}
	return now.describe(s)
}

func (now Snapshot) describe(base Snapshot) string {
	var extra []string
	for fd, target := range now.fds {
		if _, ok := base.fds[fd]; ok || runtimeFD(target) {
			continue
		}
		extra = append(extra, fmt.Sprintf("fd %d -> %s", fd, target))
	}
	slices.Sort(extra)
	var b strings.Builder
	if len(extra) > 0 {
		fmt.Fprintf(&b, "%d fd(s) leaked: %s. ", len(extra), strings.Join(extra, ", "))
	}
	if now.mappings != base.mappings {
		fmt.Fprintf(&b, "fd-backed mappings: %d before, %d after.", base.mappings, now.mappings)
	}
	return b.String()
}

// Main runs the tests and fails the run if they leaked fds or mappings.
// Call it from TestMain after any process-wide set-up (gst.Init) so that
// what the set-up opens is part of the baseline.
func Main(m *testing.M) {
	base := Take()
	code := m.Run()
	if code == 0 {
		if leaks := base.Leaks(); leaks != "" {
			fmt.Fprintf(os.Stderr, "FAIL: resources leaked by the tests: %s\n", leaks)
			code = 1
		}
	}
	os.Exit(code)
}

// Memfd returns a memfd of size bytes holding byte(i%251) at offset i — the
// project's stand-in for a dma-buf where the kernel has none (it is a real
// fd-backed file, classified as shared memory). It is closed when the test
// ends.
func Memfd(t testing.TB, size int) int {
	t.Helper()
	fd, err := unix.MemfdCreate("tensorpin-test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = byte(i % 251)
	}
	if _, err := unix.Pwrite(fd, buf, 0); err != nil {
		t.Fatal(err)
	}
	return fd
}
