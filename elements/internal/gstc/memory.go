package gstc

/*
#include "gstc.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// Mem is a borrowed GstMemory pointer. It holds no reference and has no
// finalizer, so making and using one allocates nothing; it is valid only
// while something else holds the memory, typically the buffer it was
// peeked from for the duration of a render or chain call. Use Ref to keep
// the memory longer. The zero Mem is nil.
type Mem struct{ p *C.GstMemory }

// PeekMemory borrows memory idx of buf (gst_buffer_peek_memory): no
// reference is taken and buf keeps ownership. It returns the nil Mem when
// idx is out of range. go-gst's Buffer.PeekMemory instead takes a
// reference and allocates a wrapper with a finalizer on every call.
func PeekMemory(buf *gst.Buffer, idx int) Mem {
	b := bufC(buf)
	if idx < 0 || idx >= int(C.gst_buffer_n_memory(b)) {
		return Mem{}
	}
	return Mem{C.gst_buffer_peek_memory(b, C.guint(idx))}
}

// Borrow returns a Mem for m without taking a reference; m keeps
// ownership and must stay alive while the Mem is used.
func Borrow(m *gst.Memory) Mem {
	if m == nil {
		return Mem{}
	}
	return Mem{memC(m)}
}

// IsNil reports whether m points at no memory.
func (m Mem) IsNil() bool { return m.p == nil }

// IsFd reports whether m was allocated by a GstFdAllocator (including a
// GstDmaBufAllocator), i.e. whether FD returns its fd.
func (m Mem) IsFd() bool { return m.p != nil && gobool(C.gst_is_fd_memory(m.p)) }

// IsDmabuf reports whether m was allocated by a GstDmaBufAllocator. That
// says how the producer labelled it, not what the fd is: classify the fd
// itself (fstatfs) before relying on DMA_BUF ioctls.
func (m Mem) IsDmabuf() bool { return m.p != nil && gobool(C.gst_is_dmabuf_memory(m.p)) }

// FD returns the file descriptor of fd memory, or -1 if m is not fd
// memory. The fd is borrowed: it belongs to the memory's producer, stays
// valid only while m is alive, and must not be closed. Dup it to keep it.
func (m Mem) FD() int {
	if !m.IsFd() {
		return -1
	}
	return int(C.gst_fd_memory_get_fd(m.p))
}

// Offset, Size and MaxSize read the GstMemory fields; m must not be nil.

// Offset is the start of the valid data inside the memory's storage
// (GstMemory.offset); for fd memory, the byte offset into the file.
func (m Mem) Offset() int { return int(m.p.offset) }

// Size is the number of valid bytes (GstMemory.size).
func (m Mem) Size() int { return int(m.p.size) }

// MaxSize is the size of the underlying storage (GstMemory.maxsize).
func (m Mem) MaxSize() int { return int(m.p.maxsize) }

// Ref takes a new reference on m and returns it as a go-gst wrapper that
// owns it (released by go-gst's finalizer, or now by UnrefMemory).
func (m Mem) Ref() *gst.Memory {
	if m.p == nil {
		return nil
	}
	return gst.FromGstMemoryUnsafeFull(unsafe.Pointer(C.gst_memory_ref(m.p)))
}

// IsFdMemory reports whether mem is fd memory (see Mem.IsFd).
func IsFdMemory(mem *gst.Memory) bool { return Borrow(mem).IsFd() }

// IsDmabufMemory reports whether mem is DMA-BUF memory (see Mem.IsDmabuf).
func IsDmabufMemory(mem *gst.Memory) bool { return Borrow(mem).IsDmabuf() }

// FdMemoryFD returns mem's borrowed fd, or -1 (see Mem.FD).
func FdMemoryFD(mem *gst.Memory) int { return Borrow(mem).FD() }

// UnrefMemory drops the reference owned by the wrapper mem now, instead
// of at garbage collection, and disarms its finalizer. mem must be a
// wrapper that owns a reference (from this package, gst.Buffer.GetMemory
// or PeekMemory, gst.FromGstMemoryUnsafeNone/Full) and must not be used
// afterwards.
func UnrefMemory(mem *gst.Memory) {
	runtime.SetFinalizer(mem, nil)
	C.gst_memory_unref(memC(mem))
}

// AppendMemory moves the reference owned by the wrapper mem into buf
// (gst_buffer_append_memory, transfer full) and disarms the wrapper's
// finalizer: afterwards buf is the only owner and mem must not be used.
// go-gst's Buffer.AppendMemory instead adds a reference and leaves the
// wrapper's own to the garbage collector, which delays the memory's free
// (and its release callback) by an unbounded time. buf must be writable.
func AppendMemory(buf *gst.Buffer, mem *gst.Memory) error {
	b := bufC(buf)
	if !gobool(C.gstc_buffer_is_writable(b)) {
		return errors.New("gstc: AppendMemory: buffer is not writable")
	}
	runtime.SetFinalizer(mem, nil)
	C.gst_buffer_append_memory(b, memC(mem))
	return nil
}

// UnrefBuffer drops the reference owned by the wrapper buf now and
// disarms its finalizer. buf must own a reference (gst.NewEmptyBuffer,
// gst.FromGstBufferUnsafeNone/Full, ...), never be a borrowed buffer such
// as the one passed to a render or fill vfunc, and must not be used
// afterwards.
func UnrefBuffer(buf *gst.Buffer) {
	runtime.SetFinalizer(buf, nil)
	C.gst_buffer_unref(bufC(buf))
}

// takeBuffer returns buf's C pointer together with the reference the
// wrapper owned, disarming its finalizer (used when C takes ownership).
func takeBuffer(buf *gst.Buffer) *C.GstBuffer {
	runtime.SetFinalizer(buf, nil)
	return bufC(buf)
}

// Mapping is a mapped GstMemory (gst_memory_map). Its GstMapInfo is
// C-allocated so it can be handed to C on map and again on unmap without
// tripping cgo's pointer-passing rules.
type Mapping struct {
	info *C.GstMapInfo
	mem  *C.GstMemory
}

// MapMemory maps m for reading, or for reading and writing, through the
// memory's allocator (for fd memory: an mmap of its fd). It takes a
// reference on m for the life of the mapping, so the caller may drop its
// own; Unmap releases both. Bytes is a view, not a copy.
func MapMemory(m Mem, write bool) (*Mapping, error) {
	if m.p == nil {
		return nil, errors.New("gstc: MapMemory: nil memory")
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
	return &Mapping{info: info, mem: mem}, nil
}

// Bytes returns the mapped bytes. The slice aliases the mapping and is
// invalid after Unmap.
func (mp *Mapping) Bytes() []byte {
	if mp.info == nil || mp.info.size == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(mp.info.data)), int(mp.info.size))
}

// Unmap unmaps and drops the mapping's reference. It is idempotent.
func (mp *Mapping) Unmap() {
	if mp.info == nil {
		return
	}
	C.gst_memory_unmap(mp.mem, mp.info)
	C.gst_memory_unref(mp.mem)
	C.free(unsafe.Pointer(mp.info))
	mp.info, mp.mem = nil, nil
}
