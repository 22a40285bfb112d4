package tensor

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
)

// Source says where Alloc takes memory from.
type Source uint8

const (
	// SourceAuto tries the DMA heap, then memfd, then the Go heap; the
	// environment variable TENSORPIN_BACKEND, when set, replaces this order
	// with the one source it names.
	SourceAuto Source = iota
	SourceDMAHeap
	SourceUdmabuf // a sealed memfd exported as a dma-buf through /dev/udmabuf
	SourceMemfd
	SourceHeap
)

// BackendEnv is the environment variable that forces SourceAuto to one
// source: "dma-heap", "udmabuf", "memfd" (or "shm") or "heap".
const BackendEnv = "TENSORPIN_BACKEND"

// DeviceUsable reports why the device at path (DMAHeapPath, UdmabufPath)
// cannot be opened for allocation, or nil when it can.
func DeviceUsable(path string) error {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return unix.Close(fd)
}

// DMAHeapPath is the heap Alloc uses for SourceDMAHeap.
var DMAHeapPath = "/dev/dma_heap/system"

// UdmabufPath is the device Alloc uses for SourceUdmabuf.
var UdmabufPath = "/dev/udmabuf"

var sourceNames = map[string]Source{
	"auto": SourceAuto, "dma-heap": SourceDMAHeap, "udmabuf": SourceUdmabuf,
	"memfd": SourceMemfd, "shm": SourceMemfd, "heap": SourceHeap,
}

// ParseSource parses "auto", "dma-heap", "udmabuf", "memfd"/"shm" or "heap".
func ParseSource(s string) (Source, error) {
	if src, ok := sourceNames[s]; ok {
		return src, nil
	}
	return 0, fmt.Errorf("allocation source %q (want auto, dma-heap, udmabuf, memfd or heap): %w", s, ErrNotSupported)
}

func (s Source) String() string {
	for name, src := range sourceNames {
		if src == s && name != "shm" {
			return name
		}
	}
	return fmt.Sprintf("Source(%d)", uint8(s))
}

// AllocOptions tune Alloc.
type AllocOptions struct {
	Source Source
	// Name labels the buffer: the memfd name, and the dma-buf name
	// (DMA_BUF_SET_NAME, visible in /proc/*/fdinfo and debugfs). Optional.
	Name string
}

// Alloc allocates storage for layout l and returns a tensor over it. fd
// storage is rounded up to whole pages; the tensor owns the fd. The heap
// source gives 64-byte aligned Go memory pinned (runtime.Pinner) for the
// storage's life, so C code may keep its address.
func Alloc(l Layout, opts AllocOptions) (*Tensor, error) {
	g, err := l.Geometry()
	if err != nil {
		return nil, fmt.Errorf("alloc: %w", err)
	}
	need := l.Offset + g.Extent
	src := opts.Source
	if src == SourceAuto {
		if env := os.Getenv(BackendEnv); env != "" {
			if src, err = ParseSource(env); err != nil {
				return nil, fmt.Errorf("alloc: %s: %w", BackendEnv, err)
			}
		}
	}
	if src != SourceAuto {
		return allocFrom(src, l, need, opts.Name)
	}
	var errs []error
	for _, s := range []Source{SourceDMAHeap, SourceMemfd, SourceHeap} {
		t, err := allocFrom(s, l, need, opts.Name)
		if err == nil {
			return t, nil
		}
		// Falling back is the point of SourceAuto, but it is counted: a
		// dma-heap that exists and fails is not the same as none.
		counters.allocFallbacks.Add(1)
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// AllocFD allocates fd-backed memory of at least size bytes (rounded up to
// whole pages) from src — SourceDMAHeap (the heap at DMAHeapPath),
// SourceUdmabuf, SourceMemfd (a memfd sealed against shrinking and
// growing), or SourceAuto: TENSORPIN_BACKEND's source when set, else the
// DMA heap, then memfd (fallbacks counted) — and returns the fd, which the
// caller owns and must close, and the source that gave it. It is the one
// allocator of the project: Alloc's fd storage and the buffer pools the
// elements propose to GStreamer (package frameengine's allocators call it) both
// come from here, with the same seals, heap path and fault seams.
func AllocFD(size int, src Source, name string) (fd int, from Source, err error) {
	if src == SourceAuto {
		if env := os.Getenv(BackendEnv); env != "" {
			if src, err = ParseSource(env); err != nil {
				return -1, 0, fmt.Errorf("alloc: %s: %w", BackendEnv, err)
			}
		}
	}
	if src != SourceAuto {
		fd, err = allocFD(src, size, name)
		return fd, src, err
	}
	var errs []error
	for _, s := range []Source{SourceDMAHeap, SourceMemfd} {
		fd, err := allocFD(s, size, name)
		if err == nil {
			return fd, s, nil
		}
		counters.allocFallbacks.Add(1)
		errs = append(errs, err)
	}
	return -1, 0, errors.Join(errs...)
}

// allocFD allocates from one fd source.
func allocFD(src Source, need int, name string) (int, error) {
	size := roundUpPage(need)
	if size < 0 || need < 0 {
		return -1, fmt.Errorf("alloc %d bytes: %w", need, ErrOverflow)
	}
	switch src {
	case SourceDMAHeap:
		return dmaHeapAlloc(size)
	case SourceUdmabuf:
		return udmabufAlloc(size, name)
	case SourceMemfd:
		return memfdAlloc(size, name)
	}
	return -1, fmt.Errorf("alloc fd memory from %v: %w", src, ErrNotSupported)
}

func allocFrom(src Source, l Layout, need int, name string) (*Tensor, error) {
	if src == SourceHeap {
		return allocHeap(l, need)
	}
	fd, err := allocFD(src, need, name)
	if err != nil {
		return nil, err
	}
	t, err := AdoptFD(fd, l)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	if name != "" && t.Backend() == BackendDMABuf {
		_ = t.SetName(name) // a label only: older kernels lack the ioctl
	}
	return t, nil
}

func roundUpPage(n int) int {
	p := unix.Getpagesize()
	if n > int(^uint(0)>>1)-p {
		return -1
	}
	return (n + p - 1) / p * p
}

func dmaHeapAlloc(size int) (int, error) {
	heap, err := unix.Open(DMAHeapPath, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("alloc from dma-heap %s: %w: %w", DMAHeapPath, ErrNotSupported, err)
	}
	defer unix.Close(heap)
	data := dmaHeapAllocationData{len: uint64(size), fdFlags: unix.O_RDWR | unix.O_CLOEXEC}
	err = nil
	if e := faultinject.Fault(faultinject.HeapAlloc); e != 0 {
		err = e // a test's injected fault
	} else {
		err = ioctlPtr(heap, dmaHeapIoctlAlloc, unsafe.Pointer(&data))
	}
	if err != nil {
		return -1, fmt.Errorf("DMA_HEAP_IOCTL_ALLOC %d bytes from %s: %w", size, DMAHeapPath, err)
	}
	return int(data.fd), nil
}

func memfdAlloc(size int, name string) (int, error) {
	if name == "" {
		name = "tensorpin"
	}
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return -1, fmt.Errorf("memfd_create: %w: %w", ErrNotSupported, err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("memfd ftruncate %d: %w", size, err)
	}
	// A fixed size: capacity read once stays true, and udmabuf requires
	// F_SEAL_SHRINK.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_GROW); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("memfd seal: %w", err)
	}
	return fd, nil
}

func udmabufAlloc(size int, name string) (int, error) {
	dev, err := unix.Open(UdmabufPath, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("alloc from udmabuf %s: %w: %w", UdmabufPath, ErrNotSupported, err)
	}
	defer unix.Close(dev)
	mfd, err := memfdAlloc(size, name)
	if err != nil {
		return -1, err
	}
	// The dma-buf holds its own reference on the memfd's pages.
	defer unix.Close(mfd)
	arg := udmabufCreateArg{memfd: uint32(mfd), flags: unix.O_CLOEXEC, size: uint64(size)}
	r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(dev), udmabufCreate, uintptr(unsafe.Pointer(&arg)))
	if e != 0 {
		return -1, fmt.Errorf("UDMABUF_CREATE %d bytes: %w", size, e)
	}
	return int(r), nil
}

// heapIDs numbers heap storages so each has a distinct Identity.
var heapIDs atomic.Uint64

// heapAlign is the alignment of heap tensors (TFLite requires 64).
const heapAlign = 64

func allocHeap(l Layout, need int) (*Tensor, error) {
	if need > int(^uint(0)>>1)-heapAlign {
		return nil, fmt.Errorf("alloc %d bytes: %w", need, ErrOverflow)
	}
	buf := make([]byte, need+heapAlign)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (heapAlign - 1))
	base := unsafe.Pointer(&buf[skip])
	var pinner runtime.Pinner
	pinner.Pin(&buf[0])
	id := Identity{Dev: 0, Ino: heapIDs.Add(1)}
	heapKeep := pin.NewMemoryKeepalive(fmt.Sprintf("heap buffer %v (%d bytes)", id, need), need, pinner.Unpin)
	res := &storageRes{fd: -1, base: base, heapKeep: heapKeep, writable: true}
	st := &storage{
		backend: BackendHeap, fd: -1, id: id, capacity: need, res: res,
		keep: pin.NewKeepalive(fmt.Sprintf("heap tensor storage %v never closed", id), res.release),
	}
	return newTensor(st, l)
}

// SetName labels a dma-buf (DMA_BUF_SET_NAME; at most 31 bytes), which shows
// in /proc/<pid>/fdinfo. Other backends are ErrNotSupported.
func (t *Tensor) SetName(name string) error {
	if err := t.changeable("set name"); err != nil {
		return err
	}
	if t.st.backend != BackendDMABuf {
		return fmt.Errorf("set name on a %v tensor: %w", t.st.backend, ErrNotSupported)
	}
	if len(name) >= dmaBufNameMaxBytes {
		name = name[:dmaBufNameMaxBytes-1]
	}
	b, err := unix.BytePtrFromString(name)
	if err != nil {
		return fmt.Errorf("set name %q: %w", name, err)
	}
	if err := ioctlPtr(t.st.fd, dmaBufSetName, unsafe.Pointer(b)); err != nil {
		return fmt.Errorf("DMA_BUF_SET_NAME %q: %w", name, err)
	}
	return nil
}
