// Package pintest holds test helpers shared by the project's packages: a
// snapshot of the process's open fds, fd-backed mappings and pin leak
// reports that tests take before they run and compare after, so a leaked
// fd, mmap or pin fails the run.
//
// Comparing fds and mappings alone cannot see a forgotten Release: package
// pin's leak safety net may free the owner (a tensor storage's fd) before the
// comparison. So the first Take installs a leak handler (see
// pin.SetLeakHandler) that records every report and passes it on to the
// handler it replaced, and Leaks counts reports since its snapshot as leaks.
// A test that provokes a leak on purpose installs its own handler while it
// waits for it; what that handler receives is not recorded.
package pintest

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

// Snapshot is the set of open fds, the number of fd-backed mappings
// (memfd, dma-buf, shm, device files) and the number of recorded pin leak
// reports of this process at one moment.
type Snapshot struct {
	fds      map[int]string
	mappings int
	leaks    int // len(recorder.reports) at the snapshot
}

// recorder keeps the leak reports package pin's safety net delivered to the
// handler pintest installed.
var recorder struct {
	once    sync.Once
	mu      sync.Mutex
	next    func(pin.LeakReport) // the handler pintest replaced
	reports []pin.LeakReport
}

func record(r pin.LeakReport) {
	recorder.mu.Lock()
	recorder.reports = append(recorder.reports, r)
	next := recorder.next
	recorder.mu.Unlock()
	if next != nil {
		next(r)
	}
}

func recordedLeaks() int {
	recorder.once.Do(func() {
		recorder.mu.Lock()
		defer recorder.mu.Unlock()
		recorder.next = pin.SetLeakHandler(record)
	})
	recorder.mu.Lock()
	defer recorder.mu.Unlock()
	return len(recorder.reports)
}

// runtimeFD reports fds the Go runtime and GLib open lazily and keep for the
// process's life (netpoll's epoll and eventfd, GLib's wakeup eventfds); they
// are not leaks of the code under test.
func runtimeFD(target string) bool {
	return strings.Contains(target, "eventpoll") || strings.Contains(target, "[eventfd]") ||
		strings.HasPrefix(target, "pipe:") || strings.Contains(target, "[timerfd]")
}

// Take records the current fds, fd-backed mappings and leak reports. The
// first call installs pintest's leak recorder.
func Take() Snapshot {
	s := Snapshot{fds: map[int]string{}, leaks: recordedLeaks()}
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
// opened since (with what it points at), any change in fd-backed mappings
// and every leak the pin safety net reported since (an owner released or
// quarantined by the GC because a pin or tensor was never released). It
// returns "" when fds and mappings are back to the snapshot and no leak was
// reported. It runs the garbage collector first so that the safety nets of
// unreachable owners have run. A mapping the net quarantined is never
// returned, so it also shows as a mapping left over.
func (s Snapshot) Leaks() string {
	var now Snapshot
	// Cleanups run on their own goroutines after a GC; give them a moment.
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
		fmt.Fprintf(&b, "fd-backed mappings: %d before, %d after. ", base.mappings, now.mappings)
	}
	if now.leaks > base.leaks {
		recorder.mu.Lock()
		reports := slices.Clone(recorder.reports[base.leaks:now.leaks])
		recorder.mu.Unlock()
		const show = 10
		var whats []string
		for i, r := range reports {
			if i == show {
				whats = append(whats, fmt.Sprintf("and %d more", len(reports)-show))
				break
			}
			if r.Quarantined {
				whats = append(whats, fmt.Sprintf("%s (quarantined: %d bytes stay mapped)", r.What, r.Bytes))
			} else {
				whats = append(whats, fmt.Sprintf("%s (released by the GC)", r.What))
			}
		}
		fmt.Fprintf(&b, "%d owner(s) reached the pin leak safety net (a pin or tensor never released): %s.",
			len(reports), strings.Join(whats, "; "))
	}
	return strings.TrimSpace(b.String())
}

// Main runs the tests and fails the run if they leaked fds, mappings or
// pins.
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
