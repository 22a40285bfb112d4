package pin

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
)

// cpuMappings serialises mapping creation against WithCPUMappingsExcluded.
var cpuMappings sync.RWMutex

// WithCPUMappingsExcluded runs fn while no mapping can be created by this
// package in this process. Use it around foreign calls that unmap a range
// more than once (Adreno's eglDestroyImage): without it, a mapping created
// between the two unmaps could receive the same range and be destroyed by
// the second. fn must not create a Mapping (it would deadlock) and should be
// short: every mapper waits for it.
func WithCPUMappingsExcluded(fn func()) {
	cpuMappings.Lock()
	defer cpuMappings.Unlock()
	fn()
}

// Prot says how a mapping may be accessed.
type Prot int

const (
	ProtRead      Prot = unix.PROT_READ
	ProtReadWrite Prot = unix.PROT_READ | unix.PROT_WRITE
)

// Mapping owns one MAP_SHARED mmap of an fd, independent of any guard,
// buffer or tensor. Pins made from it (Pin) hold references on its
// keepalive; the range is unmapped when Close has been called and the last
// pin is released — never by the leak safety net (see NewMemoryKeepalive).
// The fd is borrowed only for the mmap call: the mapping neither dups nor
// closes it, and stays valid after the fd is closed (the kernel keeps the
// file alive for the mapping).
type Mapping struct {
	base   unsafe.Pointer
	size   int
	prot   Prot
	keep   *Keepalive
	closed atomic.Bool
}

// Map maps size bytes of fd from offset (a multiple of the page size) with
// MAP_SHARED. The mapping is created under the shared side of the
// process-wide CPU-mapping lock.
func Map(fd int, offset int64, size int, prot Prot) (*Mapping, error) {
	if size <= 0 || offset < 0 || offset%int64(unix.Getpagesize()) != 0 {
		return nil, fmt.Errorf("mmap fd %d offset %d size %d: %w", fd, offset, size, ErrInvalid)
	}
	var base unsafe.Pointer
	var err error
	cpuMappings.RLock()
	if e := faultinject.Fault(faultinject.Mmap); e != 0 {
		err = e // a test's injected fault
	} else {
		// MmapPtr, not Mmap: unix.Mmap records every mapping in a package
		// table that only unix.Munmap clears, and a Mapping is unmapped by
		// address from its release function, long after the slice would be
		// gone.
		base, err = unix.MmapPtr(fd, offset, nil, uintptr(size), int(prot), unix.MAP_SHARED)
	}
	cpuMappings.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("mmap fd %d offset %d size %d: %w", fd, offset, size, err)
	}
	stats.maps.Add(1)
	m := &Mapping{base: base, size: size, prot: prot}
	// A memory keepalive: if pins leak, the safety net keeps the range
	// mapped (a C runtime may hold the address) rather than unmapping it.
	// The release captures only the address and length, never the Mapping
	// or its Keepalive. base points outside the Go heap: the garbage
	// collector neither follows nor retains it.
	m.keep = NewMemoryKeepalive(fmt.Sprintf("mmap %#x+%d (fd %d)", uintptr(base), size, fd), size, func() {
		unmap(base, size)
	})
	return m, nil
}

func unmap(base unsafe.Pointer, size int) {
	if unix.MunmapPtr(base, uintptr(size)) == nil {
		stats.unmaps.Add(1)
	}
}

// Base returns the start of the mapping.
func (m *Mapping) Base() unsafe.Pointer { return m.base }

// Size returns the mapped length in bytes.
func (m *Mapping) Size() int { return m.size }

// Writable reports whether the mapping was made with PROT_WRITE.
func (m *Mapping) Writable() bool { return m.prot&unix.PROT_WRITE != 0 }

// Pin returns a pin over [off, off+n) of the mapping, with its own reference.
func (m *Mapping) Pin(off, n int) (HostPin, error) {
	if m.closed.Load() {
		return HostPin{}, fmt.Errorf("pin mapping: %w", ErrClosed)
	}
	if off < 0 || n < 0 || off > m.size || n > m.size-off {
		return HostPin{}, fmt.Errorf("pin [%d, +%d) of a %d-byte mapping: %w", off, n, m.size, ErrOutOfBounds)
	}
	return New(unsafe.Add(m.base, off), n, m.keep)
}

// Close drops the mapping's own reference; the range is unmapped once no pin
// remains. Close is idempotent.
func (m *Mapping) Close() error {
	if !m.closed.CompareAndSwap(false, true) {
		return nil
	}
	return m.keep.Release()
}
