package tensor

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	fi "github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
)

// The fault tests: each seamed kernel call made to fail with each errno
// the issue names, at the first call, at the second, at seeded random
// calls and always. Every outcome must be a retry (EINTR/EAGAIN on
// DMA_BUF_IOCTL_SYNC: retried, succeeds, counted) or an error that names
// the operation and wraps the errno — with no fd, mapping or pin leaked
// and no bracket left open. Run them as a group: go test -run Fault ./...

var faultErrnos = []syscall.Errno{unix.EINTR, unix.EAGAIN, unix.ENOMEM, unix.EBADF, unix.EIO}

// faultTimings are the rule shapes; "second" is Nth(2).
var faultTimings = []struct {
	name string
	rule func(fi.Op, syscall.Errno) fi.Rule
}{
	{"first", func(op fi.Op, e syscall.Errno) fi.Rule { return fi.First(op, e) }},
	{"second", func(op fi.Op, e syscall.Errno) fi.Rule { return fi.Nth(op, 2, e) }},
	{"random", func(op fi.Op, e syscall.Errno) fi.Rule { return fi.Random(op, e, 0.5, 7) }},
	{"always", func(op fi.Op, e syscall.Errno) fi.Rule { return fi.Always(op, e) }},
}

// noLeaks fails t at its end (after every other cleanup) if fds, fd-backed
// mappings or pins leaked since the call.
func noLeaks(t *testing.T) {
	t.Helper()
	base := pintest.Take()
	t.Cleanup(func() {
		if l := base.Leaks(); l != "" {
			t.Errorf("leaked: %s", l)
		}
	})
}

// install installs rules for the rest of the test.
func install(t *testing.T, rules ...fi.Rule) *fi.Plan {
	plan, restore := fi.Install(rules...)
	t.Cleanup(restore)
	return plan
}

// checkNamed fails unless err names op and wraps errno.
func checkNamed(t *testing.T, err error, op fi.Op, errno syscall.Errno) {
	t.Helper()
	if !errors.Is(err, errno) || !strings.Contains(err.Error(), op.String()+" ") {
		t.Fatalf("error %q (%T): want one naming %s and wrapping %v", err, err, op, errno)
	}
}

const faultAttempts = 4

// faultScenario sets up what one operation needs and returns one attempt
// of the public call that reaches it. Set-up runs before the plan is
// installed, so its own calls are not counted.
func faultScenario(t *testing.T, op fi.Op) (attempt func() error) {
	switch op {
	case fi.Sync:
		// A dma-buf stand-in whose driver says yes (installFake): what
		// the kernel would answer is the plan's business.
		installFake(t)
		tn := dmabufOverMemfd(t)
		return func() error {
			defer func() {
				if tn.OpenSyncs() != 0 {
					t.Fatalf("%d brackets counted open after an attempt", tn.OpenSyncs())
				}
				if a, open := OpenBracket(tn.Identity()); open {
					t.Fatalf("the buffer's bracket is still open (%v)", a)
				}
			}()
			if err := tn.SyncForCPU(AccessRead); err != nil {
				if !errors.Is(err, ErrSync) {
					t.Fatalf("sync error %v does not wrap ErrSync", err)
				}
				return err
			}
			err := tn.SyncForDevice(AccessRead)
			if err != nil && !errors.Is(err, ErrSync) {
				t.Fatalf("sync error %v does not wrap ErrSync", err)
			}
			return err
		}
	case fi.Mmap:
		return func() error {
			tn, err := Alloc(Layout{DType: U8, Shape: []int{4096}}, AllocOptions{Source: SourceMemfd})
			if err != nil {
				t.Fatal(err)
			}
			defer tn.Close()
			p, err := tn.PinHost()
			if err != nil {
				return err
			}
			p.Release()
			return nil
		}
	case fi.Dup, fi.Fstat, fi.Fstatfs:
		fd := pintest.Memfd(t, 4096)
		return func() error {
			tn, err := ImportFD(fd, Layout{DType: U8, Shape: []int{4096}})
			if err != nil {
				return err
			}
			return tn.Close()
		}
	}
	t.Fatalf("no scenario for %v", op)
	return nil
}

func TestFaultEachOperationErrnoAndTiming(t *testing.T) {
	for _, op := range []fi.Op{fi.Sync, fi.Mmap, fi.Dup, fi.Fstat, fi.Fstatfs} {
		for _, errno := range faultErrnos {
			for _, timing := range faultTimings {
				t.Run(fmt.Sprintf("%v/%s/%s", op, unix.ErrnoName(errno), timing.name), func(t *testing.T) {
					noLeaks(t)
					attempt := faultScenario(t, op)
					before := ReadStats()
					plan := install(t, timing.rule(op, errno))
					failed := 0
					for i := 0; i < faultAttempts; i++ {
						if err := attempt(); err != nil {
							checkNamed(t, err, op, errno)
							failed++
						}
					}
					injected := plan.Injected(op)
					if injected == 0 {
						t.Fatalf("the plan never fired (%d calls of %v)", plan.Calls(op), op)
					}
					retried := op == fi.Sync && (errno == unix.EINTR || errno == unix.EAGAIN) && timing.name != "always"
					switch {
					case retried:
						// The kernel's "try again": every bracket completes,
						// each injected fault is one counted retry.
						s := ReadStats()
						if failed != 0 || int(s.SyncRetries-before.SyncRetries) != injected ||
							s.SyncStart-before.SyncStart != faultAttempts || s.SyncEnd-before.SyncEnd != faultAttempts {
							t.Fatalf("%d attempts failed; retries %d (injected %d), starts %d, ends %d; want every bracket retried to success",
								failed, s.SyncRetries-before.SyncRetries, injected, s.SyncStart-before.SyncStart, s.SyncEnd-before.SyncEnd)
						}
					case op == fi.Sync && timing.name == "always":
						// Retries are bounded; then the error.
						if failed != faultAttempts {
							t.Fatalf("%d of %d attempts failed under an endless %v", failed, faultAttempts, errno)
						}
					default:
						// A failure ends its attempt: one injected fault, one error.
						if failed != injected {
							t.Fatalf("%d attempts failed, %d faults injected", failed, injected)
						}
						if timing.name == "always" && failed != faultAttempts {
							t.Fatalf("%d of %d attempts failed with %v always injected", failed, faultAttempts, op)
						}
					}
				})
			}
		}
	}
}

// DMA_HEAP_IOCTL_ALLOC fails: SourceDMAHeap is an error naming the heap,
// the ioctl and the errno; SourceAuto falls back to memfd and counts it.
// The heap is /dev/null here (it opens; its ioctl would answer ENOTTY),
// so the injected errno is told apart from the device's own answer.
func TestFaultDMAHeapAlloc(t *testing.T) {
	t.Setenv(BackendEnv, "")
	prevPath := DMAHeapPath
	DMAHeapPath = "/dev/null"
	t.Cleanup(func() { DMAHeapPath = prevPath })
	l := Layout{DType: U8, Shape: []int{4096}}
	for _, errno := range faultErrnos {
		for _, timing := range faultTimings {
			t.Run(fmt.Sprintf("%s/%s", unix.ErrnoName(errno), timing.name), func(t *testing.T) {
				noLeaks(t)
				plan := install(t, timing.rule(fi.HeapAlloc, errno))
				withErrno := 0
				for i := 0; i < faultAttempts; i++ {
					_, err := Alloc(l, AllocOptions{Source: SourceDMAHeap})
					if err == nil {
						t.Fatal("an allocation from /dev/null as a dma-heap succeeded")
					}
					if !strings.Contains(err.Error(), "DMA_HEAP_IOCTL_ALLOC ") || !strings.Contains(err.Error(), "/dev/null") {
						t.Fatalf("error %q names neither the ioctl nor the heap", err)
					}
					if errors.Is(err, errno) {
						withErrno++
					} else if !errors.Is(err, unix.ENOTTY) {
						t.Fatalf("error %q: neither the injected %v nor the device's ENOTTY", err, errno)
					}
				}
				if withErrno == 0 || withErrno != plan.Injected(fi.HeapAlloc) {
					t.Fatalf("%d errors wrap %v, %d injected", withErrno, errno, plan.Injected(fi.HeapAlloc))
				}
				before := ReadStats()
				for i := 0; i < faultAttempts; i++ {
					tn, err := Alloc(l, AllocOptions{Name: "fault-auto"})
					if err != nil {
						t.Fatalf("SourceAuto did not fall back: %v", err)
					}
					if tn.Backend() != BackendSHM {
						t.Fatalf("SourceAuto fell back to %v, want memfd (shm)", tn.Backend())
					}
					tn.Close()
				}
				if n := ReadStats().AllocFallbacks - before.AllocFallbacks; n != faultAttempts {
					t.Fatalf("AllocFallbacks grew by %d over %d fallbacks", n, faultAttempts)
				}
			})
		}
	}
}

// A START that fails must leave no record in the shared bracket table —
// neither an open bracket nor a user count — and a widening START that
// fails must leave the bracket as it was, with the reader still inside.
func TestFaultSharedBracketStartLeavesNoRecord(t *testing.T) {
	noLeaks(t)
	f := installFake(t)
	ts := importsOf(t, 2)
	id := ts[0].Identity()
	// The two imports' storages hold the record for their lives; anything
	// more (an open bracket, a failed enter's user) is a phantom.
	recorded := func() bool { return !recordIdle(id, 2) }
	for _, errno := range []syscall.Errno{unix.ENOMEM, unix.EBADF, unix.EIO} {
		restore := func() func() { _, r := fi.Install(fi.First(fi.Sync, errno)); return r }()
		err := ts[0].SyncForCPU(AccessReadWrite)
		restore()
		checkNamed(t, err, fi.Sync, errno)
		if recorded() || ts[0].OpenSyncs() != 0 {
			t.Fatalf("%v: a failed START left a record (%v) or a count (%d)", errno, recorded(), ts[0].OpenSyncs())
		}
		// The next bracket is a fresh START, not a join of a phantom.
		if joined, err := ts[1].BeginCPUAccess(AccessRead); err != nil || joined {
			t.Fatalf("%v: bracket after a failed START: joined=%v err=%v", errno, joined, err)
		}
		// A writer's widening START fails: the reader's bracket stays
		// open for reading alone, and the writer is not inside it.
		restore = func() func() { _, r := fi.Install(fi.First(fi.Sync, errno)); return r }()
		err = ts[0].SyncForCPU(AccessWrite)
		restore()
		checkNamed(t, err, fi.Sync, errno)
		if a, open := OpenBracket(id); !open || a != AccessRead || ts[0].OpenSyncs() != 0 {
			t.Fatalf("%v: after a failed widening: bracket %v open=%v, writer counts %d", errno, a, open, ts[0].OpenSyncs())
		}
		calls := len(f.calls)
		if err := ts[1].SyncForDevice(AccessRead); err != nil {
			t.Fatal(err)
		}
		if len(f.calls) != calls+1 || f.calls[len(f.calls)-1] != uint64(AccessRead)|dmaBufSyncEnd {
			t.Fatalf("%v: the reader's END was %v, want END|read", errno, f.calls[calls:])
		}
		if recorded() {
			t.Fatalf("%v: record kept after the last one left", errno)
		}
	}
}

// An END that fails still closes the bracket (the kernel has no way to
// retry it later, and a bracket held open would block every later one):
// the error names it, nothing stays open, the next bracket works.
func TestFaultSyncEndClosesTheBracket(t *testing.T) {
	noLeaks(t)
	installFake(t)
	ts := importsOf(t, 2)
	ts[0].SyncForCPU(AccessReadWrite)
	ts[1].SyncForCPU(AccessRead)
	ts[0].SyncForDevice(AccessReadWrite)
	install(t, fi.First(fi.Sync, unix.EIO))
	closed, err := ts[1].EndCPUAccess(AccessRead)
	checkNamed(t, err, fi.Sync, unix.EIO)
	if !closed || ts[0].OpenSyncs()+ts[1].OpenSyncs() != 0 {
		t.Fatalf("closed=%v, counts %d+%d", closed, ts[0].OpenSyncs(), ts[1].OpenSyncs())
	}
	if _, open := OpenBracket(ts[0].Identity()); open {
		t.Fatal("bracket open after a failed END")
	}
	if err := ts[0].SyncForCPU(AccessRead); err != nil {
		t.Fatal(err)
	}
	if err := ts[0].SyncForDevice(AccessRead); err != nil {
		t.Fatal(err)
	}
}

// A failed mmap is an error, not a read-only mapping: the storage stays
// unmapped (one mmap tried, no fallback) and maps read-write next time.
func TestFaultMmapIsNotReadOnlyFallback(t *testing.T) {
	noLeaks(t)
	tn, err := Alloc(Layout{DType: U8, Shape: []int{4096}}, AllocOptions{Source: SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	plan, restore := fi.Install(fi.First(fi.Mmap, unix.ENOMEM))
	_, err = tn.PinHost()
	restore()
	checkNamed(t, err, fi.Mmap, unix.ENOMEM)
	if plan.Calls(fi.Mmap) != 1 {
		t.Fatalf("%d mmaps tried after ENOMEM, want 1 (read-only is for EACCES alone)", plan.Calls(fi.Mmap))
	}
	p, err := tn.PinHost()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if !tn.st.writable() {
		t.Fatal("the mapping after a failed one is read-only")
	}
}

// The seam costs nothing without a plan (no allocation: the sync bracket
// runs per frame), restore puts back the plan it replaced, and a plan
// counts only its own operation.
func TestFaultSeamInertAndNested(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { fi.Fault(fi.Sync) }); n != 0 {
		t.Fatalf("the seam allocates %.1f times without a plan", n)
	}
	if e := fi.Fault(fi.Mmap); e != 0 {
		t.Fatalf("no plan, yet %v", e)
	}
	outer, restoreOuter := fi.Install(fi.Always(fi.Dup, unix.EBADF))
	inner, restoreInner := fi.Install(fi.Nth(fi.Dup, 2, unix.EIO))
	got := []syscall.Errno{fi.Fault(fi.Dup), fi.Fault(fi.Dup), fi.Fault(fi.Mmap)}
	restoreInner()
	restoreInner() // idempotent: must not put the outer plan's predecessor back
	got = append(got, fi.Fault(fi.Dup))
	restoreOuter()
	got = append(got, fi.Fault(fi.Dup))
	want := []syscall.Errno{0, unix.EIO, 0, unix.EBADF, 0}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("faults %v, want %v", got, want)
	}
	if inner.Calls(fi.Dup) != 2 || inner.Injected(fi.Dup) != 1 || inner.Calls(fi.Mmap) != 1 || outer.Calls(fi.Dup) != 1 {
		t.Fatalf("inner dup %d/%d mmap %d, outer dup %d", inner.Calls(fi.Dup), inner.Injected(fi.Dup), inner.Calls(fi.Mmap), outer.Calls(fi.Dup))
	}
	// Random rules are reproducible from their seed.
	draw := func() string {
		p, r := fi.Install(fi.Random(fi.Fstat, unix.EIO, 0.3, 42))
		defer r()
		var b strings.Builder
		for i := 0; i < 64; i++ {
			fmt.Fprint(&b, fi.Fault(fi.Fstat) != 0)
		}
		if p.Injected(fi.Fstat) == 0 || p.Injected(fi.Fstat) == 64 {
			t.Fatalf("p=0.3 injected %d of 64", p.Injected(fi.Fstat))
		}
		return b.String()
	}
	if first, second := draw(), draw(); first != second {
		t.Fatal("the same seed drew different faults")
	}
}

// EACCES — a read-only export — is the one mmap failure that still maps,
// for reading.
func TestFaultReadOnlyFDStillMapsForReading(t *testing.T) {
	noLeaks(t)
	fd := pintest.Memfd(t, 4096)
	ro, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ro)
	tn, err := ImportFD(ro, Layout{DType: U8, Shape: []int{4096}})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	p, err := tn.PinHost()
	if err != nil {
		t.Fatalf("read-only fd: %v", err)
	}
	defer p.Release()
	if tn.st.writable() || p.Bytes()[7] != 7 {
		t.Fatalf("writable=%v, byte 7 = %d", tn.st.writable(), p.Bytes()[7])
	}
}
