package tensor

import (
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

// ioc encodes a request code the way include/uapi/asm-generic/ioctl.h does.
func ioc(dir, typ, nr, size uintptr) uintptr { return dir<<30 | size<<16 | typ<<8 | nr }

const (
	iocWrite = 1
	iocRead  = 2
)

func TestRequestCodesMatchKernelEncoding(t *testing.T) {
	for name, c := range map[string]struct{ got, want uintptr }{
		"DMA_BUF_IOCTL_SYNC":             {dmaBufIoctlSync, ioc(iocWrite, 'b', 0, unsafe.Sizeof(dmaBufSync{}))},
		"DMA_BUF_SET_NAME_B":             {dmaBufSetName, ioc(iocWrite, 'b', 1, 8)},
		"DMA_HEAP_IOCTL_ALLOC":           {dmaHeapIoctlAlloc, ioc(iocRead|iocWrite, 'H', 0, unsafe.Sizeof(dmaHeapAllocationData{}))},
		"UDMABUF_CREATE":                 {udmabufCreate, ioc(iocWrite, 'u', 0x42, unsafe.Sizeof(udmabufCreateArg{}))},
		"DMA_BUF_IOCTL_EXPORT_SYNC_FILE": {dmaBufIoctlExportSyncFile, ioc(iocRead|iocWrite, 'b', 2, unsafe.Sizeof(dmaBufSyncFile{}))},
		"DMA_BUF_IOCTL_IMPORT_SYNC_FILE": {dmaBufIoctlImportSyncFile, ioc(iocWrite, 'b', 3, unsafe.Sizeof(dmaBufSyncFile{}))},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", name, c.got, c.want)
		}
	}
	// The kernel's values, as printed by a C program including the headers.
	if dmaBufIoctlSync != 0x40086200 || dmaHeapIoctlAlloc != 0xc0184800 {
		t.Error("request codes drifted from the kernel's")
	}
	if dmaBufIoctlExportSyncFile != 0xc0086202 || dmaBufIoctlImportSyncFile != 0x40086203 {
		t.Error("sync_file request codes drifted from the kernel's")
	}
	if unsafe.Sizeof(dmaHeapAllocationData{}) != 24 || unsafe.Sizeof(udmabufCreateArg{}) != 24 || unsafe.Sizeof(dmaBufSyncFile{}) != 8 {
		t.Error("ioctl argument structs have the wrong size")
	}
	if dmaBufSyncRead != 1 || dmaBufSyncWrite != 2 || dmaBufSyncEnd != 4 || dmaBufSyncStart != 0 {
		t.Error("DMA_BUF_SYNC_* flags drifted")
	}
}

// fakeSync replaces the sync ioctl for one test with a script of answers and
// records the flags of every call.
type fakeSync struct {
	answers []error
	calls   []uint64
}

func installFake(t *testing.T, answers ...error) *fakeSync {
	f := &fakeSync{answers: answers}
	t.Cleanup(setSyncIoctl(func(fd int, flags uint64) error {
		f.calls = append(f.calls, flags)
		if len(f.answers) == 0 {
			return nil
		}
		err := f.answers[0]
		f.answers = f.answers[1:]
		return err
	}))
	return f
}

// dmabufOverMemfd returns a tensor that takes the DMA-BUF code path over a
// memfd (stand-in storage; the ioctl itself is scripted by installFake).
func dmabufOverMemfd(t *testing.T) *Tensor {
	fd, err := memfdAlloc(4096, "sync-test")
	if err != nil {
		t.Fatal(err)
	}
	tn, err := AdoptFD(fd, Layout{DType: U8, Shape: []int{4096}})
	if err != nil {
		t.Fatal(err)
	}
	tn.st.backend = BackendDMABuf
	t.Cleanup(func() { tn.Close() })
	return tn
}

func TestENOTTYIsRememberedAsCoherent(t *testing.T) {
	f := installFake(t, unix.ENOTTY)
	tn := dmabufOverMemfd(t)
	before := ReadStats()
	for i := 0; i < 10; i++ {
		if err := tn.SyncForCPU(AccessRead); err != nil {
			t.Fatal(err)
		}
		if err := tn.SyncForDevice(AccessRead); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.calls) != 1 {
		t.Fatalf("%d ioctls after ENOTTY, want 1 (then remembered)", len(f.calls))
	}
	if !tn.Coherent() {
		t.Error("Coherent() false after ENOTTY")
	}
	s := ReadStats()
	if s.SyncNotTTY-before.SyncNotTTY != 1 || s.CoherentSkips-before.CoherentSkips != 19 {
		t.Errorf("notty %d skips %d, want 1 and 19", s.SyncNotTTY-before.SyncNotTTY, s.CoherentSkips-before.CoherentSkips)
	}
}

// TestRealENOTTY uses the real ioctl on fds that are not dma-bufs: /dev/null
// and a memfd both answer ENOTTY, which must be remembered.
func TestRealENOTTY(t *testing.T) {
	devNull, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	fd, _ := memfdAlloc(4096, "notty")
	defer unix.Close(fd)
	for name, fd := range map[string]int{"/dev/null": int(devNull.Fd()), "memfd": fd} {
		if err := syncIoctl(fd, dmaBufSyncStart|dmaBufSyncRead); !errors.Is(err, unix.ENOTTY) {
			t.Fatalf("%s: raw DMA_BUF_IOCTL_SYNC = %v, want ENOTTY", name, err)
		}
		st := rawDMABufStorage(t, fd)
		if _, _, err := st.beginCPU(AccessRead, 0); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !st.sync.coherent.Load() {
			t.Errorf("%s: ENOTTY not remembered", name)
		}
		if _, err := st.endCPU(AccessRead); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUnbalancedAndInvalidBrackets(t *testing.T) {
	f := installFake(t)
	tn := dmabufOverMemfd(t)
	if err := tn.SyncForDevice(AccessRead); !errors.Is(err, ErrUnbalancedSync) {
		t.Fatalf("SyncForDevice with nothing open: %v", err)
	}
	tn.SyncForCPU(AccessRead)
	if err := tn.SyncForDevice(AccessWrite); !errors.Is(err, ErrUnbalancedSync) {
		t.Fatalf("SyncForDevice(write) after SyncForCPU(read): %v", err)
	}
	if err := tn.SyncForCPU(AccessNone); !errors.Is(err, ErrAccess) {
		t.Fatalf("access none: %v", err)
	}
	if err := tn.SyncForDevice(Access(9)); !errors.Is(err, ErrAccess) {
		t.Fatalf("access 9: %v", err)
	}
	if len(f.calls) != 1 {
		t.Fatalf("unbalanced or invalid calls reached the kernel: %v", f.calls)
	}
	tn.SyncForDevice(AccessRead)
}

// BenchmarkSyncIoctlBracket: a bracket that really enters the kernel each
// time (the DMA-BUF path, with the fd's ENOTTY forgotten before every call),
// against BenchmarkSyncBracketRemembered, where ENOTTY was remembered.
func BenchmarkSyncIoctlBracket(b *testing.B) {
	fd, _ := memfdAlloc(4096, "bench")
	defer unix.Close(fd)
	st := rawDMABufStorage(b, fd)
	b.ReportAllocs()
	for b.Loop() {
		st.sync.coherent.Store(false)
		st.beginCPU(AccessRead, 0)
		st.sync.coherent.Store(false)
		st.endCPU(AccessRead)
	}
}

func BenchmarkSyncBracketRemembered(b *testing.B) {
	fd, _ := memfdAlloc(4096, "bench")
	defer unix.Close(fd)
	st := rawDMABufStorage(b, fd)
	st.beginCPU(AccessRead, 0)
	st.endCPU(AccessRead)
	b.ReportAllocs()
	for b.Loop() {
		st.beginCPU(AccessRead, 0)
		st.endCPU(AccessRead)
	}
}

func TestRealSyncIoctlDoesNotAllocate(t *testing.T) {
	fd, _ := memfdAlloc(4096, "allocs")
	defer unix.Close(fd)
	if n := testing.AllocsPerRun(100, func() { syncIoctl(fd, dmaBufSyncRead) }); n != 0 {
		t.Errorf("DMA_BUF_IOCTL_SYNC allocates %.1f times per call", n)
	}
}

// rawDMABufStorage is a storage record over fd (not owned) that takes the
// DMA-BUF code path: the real ioctl, or installFake's script.
func rawDMABufStorage(tb testing.TB, fd int) *storage {
	var sb unix.Stat_t
	if err := unix.Fstat(fd, &sb); err != nil {
		tb.Fatal(err)
	}
	// The keepalive owns nothing (fd is the caller's) but the storage's
	// user of the shared bracket record, as newFDStorage's does; brackets
	// take references on it as on any storage's.
	id := Identity{Dev: sb.Dev, Ino: sb.Ino}
	rec := acquireBracket(id)
	keep := pin.NewKeepalive("raw dma-buf storage (test)", func() { releaseBracket(id, rec) })
	tb.Cleanup(func() { keep.Release() })
	return &storage{backend: BackendDMABuf, fd: fd, id: id, keep: keep, rec: rec}
}

// importsOf returns n tensors over one buffer (n imports of one dma-buf,
// with memfd standing in; the ioctl is installFake's).
func importsOf(t *testing.T, n int) []*Tensor {
	first := dmabufOverMemfd(t)
	ts := []*Tensor{first}
	for len(ts) < n {
		tn, err := ImportFD(first.FD(), Layout{DType: U8, Shape: []int{4096}})
		if err != nil {
			t.Fatal(err)
		}
		tn.st.backend = BackendDMABuf
		t.Cleanup(func() { tn.Close() })
		ts = append(ts, tn)
	}
	return ts
}

// A buffer's bracket record lives as long as a storage of the buffer
// does — each holds it for its life, so a bracket needs no table lookup —
// and goes with the last one: a later file that gets the same identity
// (an inode number reused) starts from a new record.
func TestSharedRecordLivesWithItsStorages(t *testing.T) {
	installFake(t)
	ts := importsOf(t, 2)
	id := ts[0].Identity()
	if !recordIdle(id, 2) {
		t.Fatal("two imports: the record does not count their two storages")
	}
	for range 3 {
		ts[1].BeginCPUAccess(AccessRead)
		ts[1].EndCPUAccess(AccessRead)
	}
	if !recordIdle(id, 2) {
		t.Fatal("brackets changed the record's users")
	}
	ts[1].Close()
	if !recordIdle(id, 1) {
		t.Fatal("a closed import still holds the record")
	}
	ts[0].Close()
	if !recordIdle(id, 0) {
		t.Fatal("the record outlived every storage of its buffer")
	}
}

// A leave with no file bracket entered is refused even while a tensor's
// bracket is open on the buffer: it neither ENDs that bracket nor takes
// the storage's hold on the record (which would let the record be
// forgotten under the storage and handed to another buffer).
func TestStrayFileLeaveLeavesATensorsBracketAlone(t *testing.T) {
	f := installFake(t)
	tn := dmabufOverMemfd(t)
	id := tn.Identity()
	if err := tn.SyncForCPU(AccessReadWrite); err != nil {
		t.Fatal(err)
	}
	if _, err := LeaveFileBracket(tn.FD(), id); !errors.Is(err, ErrUnbalancedSync) {
		t.Fatalf("stray file leave: %v, want ErrUnbalancedSync", err)
	}
	if a, open := OpenBracket(id); !open || a != AccessReadWrite || len(f.calls) != 1 {
		t.Fatalf("after a stray file leave: bracket %v open=%v, ioctls %v", a, open, f.calls)
	}
	if err := tn.SyncForDevice(AccessReadWrite); err != nil || len(f.calls) != 2 {
		t.Fatalf("the tensor's own END: %v, ioctls %v", err, f.calls)
	}
	if !recordIdle(id, 1) {
		t.Fatal("the stray leave took the storage's user of the record")
	}
}

// A record forgotten with a bracket still open in it (its storage lost
// inside a bracket, released by the leak safety net) is never recycled:
// the next buffer's record starts closed, so its first bracket STARTs.
func TestRecordForgottenOpenIsNotRecycled(t *testing.T) {
	lost := Identity{Dev: 1 << 40, Ino: 1}
	b := acquireBracket(lost)
	b.mu.Lock()
	b.word.v.Store(packWord(1, AccessReadWrite)) // a bracket its storage never left
	b.mu.Unlock()
	releaseBracket(lost, b)
	brackets.mu.Lock()
	recycled := slices.Contains(brackets.free, b)
	brackets.mu.Unlock()
	if recycled {
		t.Fatal("a record with an open bracket went to the free list")
	}
	next := Identity{Dev: 1 << 40, Ino: 2}
	nb := acquireBracket(next)
	defer releaseBracket(next, nb)
	nb.mu.Lock()
	refs, access := nb.state()
	nb.mu.Unlock()
	if refs != 0 || access != AccessNone {
		t.Fatalf("a new buffer's record starts with refs %d, access %v", refs, access)
	}
}

// Many goroutines entering and leaving one buffer's bracket through their
// own imports: the ioctls alternate START, END (never an END while someone
// is inside, never a second START while open) and nothing stays open.
func TestSharedBracketUnderConcurrency(t *testing.T) {
	var mu sync.Mutex
	var inside, bad int
	var calls []uint64
	t.Cleanup(setSyncIoctl(func(fd int, flags uint64) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, flags)
		if flags&dmaBufSyncEnd != 0 {
			if inside != 1 {
				bad++
			}
			inside--
		} else {
			if inside != 0 {
				bad++
			}
			inside++
		}
		return nil
	}))
	ts := importsOf(t, 4)
	var wg sync.WaitGroup
	for _, tn := range ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				if err := tn.SyncForCPU(AccessRead); err != nil {
					t.Error(err)
					return
				}
				if err := tn.SyncForDevice(AccessRead); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if bad != 0 || inside != 0 || len(calls)%2 != 0 {
		t.Fatalf("%d ioctls out of order, %d left inside, %d calls", bad, inside, len(calls))
	}
	if _, open := OpenBracket(ts[0].Identity()); open {
		t.Fatal("bracket still open")
	}
}

// Joining and leaving a shared bracket allocates nothing (it runs per
// frame in both elements).
func TestSharedBracketDoesNotAllocate(t *testing.T) {
	installFake(t)
	ts := importsOf(t, 2)
	if n := testing.AllocsPerRun(200, func() {
		ts[0].SyncForCPU(AccessReadWrite)
		ts[1].SyncForCPU(AccessRead)
		ts[1].SyncForDevice(AccessRead)
		ts[0].SyncForDevice(AccessReadWrite)
	}); n != 0 {
		t.Fatalf("a shared bracket allocates %.1f times", n)
	}
}

// A GStreamer map of the project's dma-buf memory (EnterFileBracket, from
// gstglue's bracket allocator) joins a bracket a tensor has open — no ioctl
// — and, with none open, opens and closes its own, as GStreamer's map
// would: START at the map, END at the unmap. A leave without an enter is
// ErrUnbalancedSync and reaches no ioctl. An fd that answers ENOTTY does
// not make later file brackets skip their ioctls (the one state serves
// every file).
func TestFileBracketJoinsATensorsBracket(t *testing.T) {
	f := installFake(t)
	tn := dmabufOverMemfd(t)
	id := tn.Identity()
	if err := tn.SyncForCPU(AccessReadWrite); err != nil { // tensorsrc's bracket
		t.Fatal(err)
	}
	joined, err := EnterFileBracket(tn.FD(), id, AccessRead)
	if err != nil || !joined {
		t.Fatalf("map inside the tensor's bracket: joined=%v, %v", joined, err)
	}
	if closed, err := LeaveFileBracket(tn.FD(), id); err != nil || closed {
		t.Fatalf("unmap inside the tensor's bracket: closed=%v, %v", closed, err)
	}
	if len(f.calls) != 1 {
		t.Fatalf("ioctls %v: the map inside an open bracket issued one", f.calls)
	}
	if err := tn.SyncForDevice(AccessReadWrite); err != nil {
		t.Fatal(err)
	}
	want := []uint64{uint64(AccessReadWrite) | dmaBufSyncStart, uint64(AccessReadWrite) | dmaBufSyncEnd}
	if len(f.calls) != 2 || f.calls[0] != want[0] || f.calls[1] != want[1] {
		t.Fatalf("ioctls %v, want %v", f.calls, want)
	}

	// No bracket open: the map's own START and END.
	f.calls = nil
	if joined, err := EnterFileBracket(tn.FD(), id, AccessReadWrite); err != nil || joined {
		t.Fatalf("map with no bracket open: joined=%v, %v", joined, err)
	}
	if a, open := OpenBracket(id); !open || a != AccessReadWrite {
		t.Fatalf("bracket %v open=%v during the map", a, open)
	}
	if closed, err := LeaveFileBracket(tn.FD(), id); err != nil || !closed {
		t.Fatalf("unmap: closed=%v, %v", closed, err)
	}
	want = []uint64{uint64(AccessReadWrite) | dmaBufSyncStart, uint64(AccessReadWrite) | dmaBufSyncEnd}
	if len(f.calls) != 2 || f.calls[0] != want[0] || f.calls[1] != want[1] {
		t.Fatalf("ioctls %v, want %v", f.calls, want)
	}
	if _, err := LeaveFileBracket(tn.FD(), id); !errors.Is(err, ErrUnbalancedSync) || len(f.calls) != 2 {
		t.Fatalf("leave without enter: %v, ioctls %v", err, f.calls)
	}

	// ENOTTY from one file leaves the next file's ioctls alone.
	f.calls, f.answers = nil, []error{unix.ENOTTY, unix.ENOTTY}
	EnterFileBracket(tn.FD(), id, AccessRead)
	LeaveFileBracket(tn.FD(), id)
	EnterFileBracket(tn.FD(), id, AccessRead)
	LeaveFileBracket(tn.FD(), id)
	if len(f.calls) != 4 {
		t.Fatalf("ioctls %v after ENOTTY: want 4 (file brackets never latch coherent)", f.calls)
	}
}
