package gstglue

// fdmem.go: fd and DMA-BUF GstMemory wrapping an fd the caller keeps, from
// two process-lifetime allocators, with a release callback run when the
// memory is freed.

/*
#include "fdmem.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"
)

// fdFlags are extra GstFdMemoryFlags for wrapFd.
// GST_FD_MEMORY_FLAG_DONT_CLOSE is always added.
type fdFlags int

// keepMapped keeps the allocator's mmap from the first gst_memory_map
// until the memory is freed, instead of munmapping on the last
// gst_memory_unmap, so elements that map every frame do not mmap every
// frame.
const keepMapped fdFlags = C.GST_FD_MEMORY_FLAG_KEEP_MAPPED

// The allocators are created once and kept for the life of the process:
// every memory holds a reference on its allocator anyway, and GStreamer
// caches nothing for us.
var (
	allocOnce   sync.Once
	fdAlloc     *C.GstAllocator
	dmabufAlloc *C.GstAllocator
	releaseQ    C.GQuark
)

func allocators() {
	allocOnce.Do(func() {
		fdAlloc = C.gst_fd_allocator_new() // full reference, never dropped
		// DMA-BUF memory (tensorsrc's and tensorinfer's rings) maps inside
		// the process's brackets (bracketalloc.go): a converter reading a
		// frame joins its producer's open bracket instead of issuing its
		// own START and END.
		dmabufAlloc = C.gstc_bracket_allocator_new(0) // full reference, never dropped
		// Process-lifetime singletons, like GStreamer's own sysmem
		// allocator: tell the leaks tracer so.
		C.gstc_object_flag_may_be_leaked(C.gpointer(fdAlloc))
		C.gstc_object_flag_may_be_leaked(C.gpointer(dmabufAlloc))
		releaseQ = quark("gstc-fd-memory-release")
	})
}

// NewFdMemory wraps fd as a GstMemory of size bytes from a GstFdAllocator
// (gst_fd_allocator_alloc with GST_FD_MEMORY_FLAG_DONT_CLOSE); see wrapFd
// for ownership. The elements wrap their fds through OutRing.Wrap;
// tensorpinsink's tests push fd memory built with this (see
// AppendMemory), hence the export.
func NewFdMemory(fd, size int, release func()) (*gst.Memory, error) {
	return wrapFd(false, fd, size, 0, release)
}

// WrapFd is wrapFd with no extra flags, for package frameengine's rings
// (OutRing.Wrap). Ownership as wrapFd's: the fd stays the caller's.
func WrapFd(dmabuf bool, fd, size int, release func()) (*gst.Memory, error) {
	return wrapFd(dmabuf, fd, size, 0, release)
}

// wrapFd wraps fd as fd memory (DMA-BUF memory if dmabuf) of size bytes,
// offset 0, mappable by any element through gst_memory_map (an mmap of fd
// by the allocator). DMA-BUF memory comes from the bracket allocator
// (bracketalloc.go): a gst_memory_map joins the bracket the process has
// open on the dma-buf, or opens (START) and closes (END) its own, as
// GStreamer 1.22's dmabuf allocator would around every map.
//
// Ownership: the fd stays the caller's. GStreamer never closes it
// (GST_FD_MEMORY_FLAG_DONT_CLOSE), and the caller must keep it open until
// release has run, because the allocator mmaps it lazily on first map.
// release, if not nil, runs exactly once, when the last reference to the
// memory (and to every memory shared from it) is dropped, on whichever
// thread drops it; GStreamer may still munmap its own mapping right after
// release returns, which does not need the fd. The returned wrapper owns
// the single reference: hand it to a buffer with AppendMemory or drop it
// with unrefMemory, or release waits for a garbage collection.
//
// On error nothing is created, release is never called, and the fd is
// untouched. fd must be open; if it is a regular file or memfd, size must
// not exceed its length (mapping past the end would SIGBUS readers).
func wrapFd(dmabuf bool, fd, size int, flags fdFlags, release func()) (*gst.Memory, error) {
	if fd < 0 {
		return nil, fmt.Errorf("gstc: wrapFd: invalid fd %d", fd)
	}
	if size <= 0 {
		return nil, fmt.Errorf("gstc: wrapFd: invalid size %d", size)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("gstc: wrapFd: fd %d: %w", fd, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFREG && int64(size) > st.Size {
		return nil, fmt.Errorf("gstc: wrapFd: size %d exceeds file length %d", size, st.Size)
	}
	allocators()
	alloc, isDmabuf := fdAlloc, C.int(0)
	if dmabuf {
		alloc, isDmabuf = dmabufAlloc, 1
	}
	var h uintptr
	if release != nil {
		h = newHandle(releaseFunc(release))
	}
	mem := C.gstc_wrap_fd(alloc, isDmabuf, C.int(fd), C.gsize(size), C.int(flags), releaseQ, C.uintptr_t(h))
	if mem == nil {
		if h != 0 {
			takeHandle(h)
		}
		return nil, errors.New("gstc: wrapFd: allocator returned no memory")
	}
	return gst.FromGstMemoryUnsafeFull(unsafe.Pointer(mem)), nil
}
