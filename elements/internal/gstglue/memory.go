package gstglue

// memory.go: the borrowed GstMemory pointer (RawMemory) the sink and the
// source's ring work with, and its map.

/*
#include "cgo.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// RawMemory is a borrowed GstMemory pointer. It holds no reference and
// has no finalizer, so making and using one allocates nothing; it is
// valid only while something else holds the memory, typically the buffer
// it was peeked from for the duration of a render or chain call. A
// RawMemory can also stand for a reference its holder owns, where a
// function says so (OutRing.Wrap). The zero RawMemory is nil.
type RawMemory struct{ p *C.GstMemory }

// BorrowMemory returns a RawMemory for m without taking a reference; m
// keeps ownership and must stay alive while the RawMemory is used.
func BorrowMemory(m *gst.Memory) RawMemory {
	if m == nil {
		return RawMemory{}
	}
	return RawMemory{memC(m)}
}

// RawMemoryOf is the RawMemory of the GstMemory at p, for package
// frameengine's C (cgo types are per package): it carries whatever p
// carries (a borrowed pointer, or a reference where the caller's function
// says so), and takes none.
func RawMemoryOf(p unsafe.Pointer) RawMemory { return RawMemory{(*C.GstMemory)(p)} }

// Unsafe returns the GstMemory pointer, for package frameengine's C. No
// reference is taken.
func (m RawMemory) Unsafe() unsafe.Pointer { return unsafe.Pointer(m.p) }

// IsNil reports whether m points at no memory.
func (m RawMemory) IsNil() bool { return m.p == nil }

// Identity is the memory's address: the same GstMemory object has the
// same one (for tests that check a buffer carries on the memory another
// held).
func (m RawMemory) Identity() uintptr { return uintptr(unsafe.Pointer(m.p)) }

// IsFd reports whether m was allocated by a GstFdAllocator (including a
// GstDmaBufAllocator), i.e. whether FD returns its fd.
func (m RawMemory) IsFd() bool { return m.p != nil && gobool(C.gst_is_fd_memory(m.p)) }

// IsDmabuf reports whether m was allocated by a GstDmaBufAllocator. That
// says how the producer labelled it, not what the fd is: classify the fd
// itself (fstatfs) before relying on DMA_BUF ioctls. The elements go by
// the fd; the tests of tensorsrc and the integration package check the
// label downstream with this, hence the export.
func (m RawMemory) IsDmabuf() bool { return m.p != nil && gobool(C.gst_is_dmabuf_memory(m.p)) }

// FD returns the file descriptor of fd memory, or -1 if m is not fd
// memory. The fd is borrowed: it belongs to the memory's producer, stays
// valid only while m is alive, and must not be closed. Dup it to keep it.
func (m RawMemory) FD() int {
	if !m.IsFd() {
		return -1
	}
	return int(C.gst_fd_memory_get_fd(m.p))
}

// Offset and Size read the GstMemory fields; m must not be nil.

// Offset is the start of the valid data inside the memory's storage
// (GstMemory.offset); for fd memory, the byte offset into the file.
func (m RawMemory) Offset() int { return int(m.p.offset) }

// Size is the number of valid bytes (GstMemory.size).
func (m RawMemory) Size() int { return int(m.p.size) }

// maxSize is the size of the underlying storage (GstMemory.maxsize).
func (m RawMemory) maxSize() int { return int(m.p.maxsize) }

// RefCount returns m's reference count (for tests).
func (m RawMemory) RefCount() int { return int(m.p.mini_object.refcount) }

// ref takes a new reference on m and returns it as a go-gst wrapper that
// owns it (released by go-gst's finalizer, or now by unrefMemory).
func (m RawMemory) ref() *gst.Memory {
	if m.p == nil {
		return nil
	}
	return gst.FromGstMemoryUnsafeFull(unsafe.Pointer(C.gst_memory_ref(m.p)))
}

// unrefMemory drops the reference owned by the wrapper mem now, instead
// of at garbage collection, and disarms its finalizer. mem must be a
// wrapper that owns a reference and must not be used afterwards.
func unrefMemory(mem *gst.Memory) {
	runtime.SetFinalizer(mem, nil)
	C.gst_memory_unref(memC(mem))
}

// memoryMap is a mapped GstMemory (gst_memory_map). Its GstMapInfo is
// C-allocated so it can be handed to C on map and again on unmap without
// tripping cgo's pointer-passing rules. The elements never map a
// GstMemory (the sink pins the fd itself); the tests check through it
// what other elements see.
type memoryMap struct {
	info *C.GstMapInfo
	mem  *C.GstMemory
}

// mapMemory maps m for reading, or for reading and writing, through the
// memory's allocator (for fd memory: an mmap of its fd). It takes a
// reference on m for the life of the map, so the caller may drop its
// own; unmap releases both. bytes is a view, not a copy.
func mapMemory(m RawMemory, write bool) (*memoryMap, error) {
	if m.p == nil {
		return nil, errors.New("gstc: mapMemory: nil memory")
	}
	flags := C.GstMapFlags(C.GST_MAP_READ)
	if write {
		flags |= C.GST_MAP_WRITE
	}
	info := (*C.GstMapInfo)(C.calloc(1, C.sizeof_GstMapInfo))
	mem := C.gst_memory_ref(m.p)
	if !gobool(C.gst_memory_map(mem, info, flags)) {
		C.gst_memory_unref(mem)
		C.free(unsafe.Pointer(info))
		return nil, errors.New("gstc: gst_memory_map failed")
	}
	return &memoryMap{info: info, mem: mem}, nil
}

// bytes returns the mapped bytes. The slice aliases the map and is
// invalid after unmap.
func (mp *memoryMap) bytes() []byte {
	if mp.info == nil || mp.info.size == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(mp.info.data)), int(mp.info.size))
}

// unmap unmaps and drops the map's reference. It is idempotent.
func (mp *memoryMap) unmap() {
	if mp.info == nil {
		return
	}
	C.gst_memory_unmap(mp.mem, mp.info)
	C.gst_memory_unref(mp.mem)
	C.free(unsafe.Pointer(mp.info))
	mp.info, mp.mem = nil, nil
}
