package tensor

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

// Backend is the kind of memory behind a tensor.
type Backend uint8

const (
	BackendDMABuf Backend = iota + 1 // a dma-buf fd (dma-heap, udmabuf, V4L2, GPU exports)
	BackendSHM                       // a tmpfs file: memfd or /dev/shm
	BackendHeap                      // Go heap memory, pinned for the tensor's life
)

// backendNames are the names String gives, by value.
var backendNames = [...]string{
	BackendDMABuf: "dmabuf",
	BackendSHM:    "shm",
	BackendHeap:   "heap",
}

func (b Backend) String() string {
	if uint64(b) < uint64(len(backendNames)) && backendNames[b] != "" {
		return backendNames[b]
	}
	return fmt.Sprintf("Backend(%d)", uint8(b))
}

// Identity names the file behind a tensor: (st_dev, st_ino). A dup'd fd and
// every view keep it, so it identifies a dma-buf across imports. Heap
// tensors get a process-unique identity with Dev 0.
type Identity struct {
	Dev, Ino uint64
}

func (id Identity) String() string { return fmt.Sprintf("%d:%d", id.Dev, id.Ino) }

// storage is the memory shared by a tensor and its views.
type storage struct {
	backend  Backend
	fd       int // owned; -1 for heap
	id       Identity
	capacity int
	sync     syncState
	// rec is the buffer's shared bracket record (fd-backed storage):
	// the storage counts as one of its users from creation to its final
	// release (res.release), so entering and leaving a bracket need not
	// look the record up in the process's table each time.
	rec *sharedBracket
	// keep counts the tensors (and views) using this storage; its release
	// closes the fd and drops the storage's reference on the host mapping.
	keep *pin.Keepalive
	res  *storageRes

	mapMu sync.Mutex // guards the lazy creation of res.base
}

// storageRes is what the storage's keepalive releases. It never points back
// at the storage, so the leak safety net can run when the storage is lost.
type storageRes struct {
	// recID, rec: the storage's user of its shared bracket record, given
	// back with the storage.
	recID    Identity
	rec      *sharedBracket
	fd       int
	base     unsafe.Pointer // host address of byte 0; nil until first needed
	mapping  *pin.Mapping   // fd backends: the one long-lived mmap
	heapKeep *pin.Keepalive // heap backend: owner of the pinned Go buffer
	writable bool
}

func (r *storageRes) release() {
	if r.rec != nil {
		releaseBracket(r.recID, r.rec)
	}
	if r.mapping != nil {
		r.mapping.Close() // unmapped once the last pin is released too
	}
	if r.heapKeep != nil {
		r.heapKeep.Release()
	}
	if r.fd >= 0 {
		unix.Close(r.fd)
	}
}

// newFDStorage adopts fd (closing it on error is the caller's business).
func newFDStorage(fd int, b Backend, id Identity, capacity int) *storage {
	res := &storageRes{fd: fd}
	st := &storage{
		backend: b, fd: fd, id: id, capacity: capacity, res: res,
		keep: pin.NewKeepalive(fmt.Sprintf("%v tensor storage %v (fd %d, %d bytes) never closed", b, id, fd, capacity), res.release),
	}
	if st.sharesBrackets() {
		st.rec = acquireBracket(id)
		res.recID, res.rec = id, st.rec
	}
	return st
}

// ensureMapped creates the storage's long-lived host mapping on first use:
// one mmap per storage, whatever the number of pins, guards and views.
func (s *storage) ensureMapped() error {
	s.mapMu.Lock()
	defer s.mapMu.Unlock()
	if s.res.base != nil {
		return nil
	}
	if s.keep.Refs() <= 0 {
		return fmt.Errorf("map storage %v: %w", s.id, ErrClosed)
	}
	m, err := pin.Map(s.fd, 0, s.capacity, pin.ProtReadWrite)
	writable := true
	if errors.Is(err, unix.EACCES) {
		// A read-only export (an O_RDONLY dma-buf) still maps for reading.
		// Only EACCES says so: after ENOMEM or EIO a read-only mapping
		// would turn a failure into a tensor silently unwritable for life.
		m, err = pin.Map(s.fd, 0, s.capacity, pin.ProtRead)
		writable = false
	}
	if err != nil {
		return fmt.Errorf("map %v storage %v: %w", s.backend, s.id, err)
	}
	s.res.base, s.res.mapping, s.res.writable = m.Base(), m, writable
	return nil
}

// hostPin pins [off, off+n) of the storage, mapping it first if needed.
func (s *storage) hostPin(off, n int) (pin.HostPin, error) {
	if err := s.ensureMapped(); err != nil {
		return pin.HostPin{}, err
	}
	if s.res.mapping != nil {
		return s.res.mapping.Pin(off, n)
	}
	return pin.New(unsafe.Add(s.res.base, off), n, s.res.heapKeep)
}

func (s *storage) writable() bool {
	s.mapMu.Lock()
	defer s.mapMu.Unlock()
	return s.res.writable
}
