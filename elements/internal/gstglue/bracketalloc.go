package gstglue

// bracketalloc.go: a GstDmaBufAllocator (GstcBracketAllocator, C in
// bracketalloc.c) for the dma-bufs the project owns — tensorsrc's and
// tensorinfer's rings (the allocator wrapFd uses for DMA-BUF memory) and
// the dma-heap pool tensorpinsink and tensorinfer propose — whose
// gst_memory_map and unmap bracket through package tensor's process-wide
// table instead of issuing DMA_BUF_IOCTL_SYNC around every map:
//
//   - a map inside a bracket the process has open on the dma-buf (a
//     tensorsrc frame's, a reader's, an earlier map's) joins it: no ioctl;
//   - a map with none open opens one (START) and its unmap closes it (END),
//     as GStreamer's own allocator does;
//   - with defer_write_end (the pool's handoff=adopt), a write map's bracket
//     stays open after the unmap — the producer's write travels with the
//     buffer, readers join it — until the buffer goes back to its pool
//     (the LIFO pool's release settles it) or the memory is freed: one
//     START and one END per frame, whoever writes and reads it on the CPU.
//
// The memories stay dmabuf memory to everyone (gst_is_dmabuf_memory), so
// importers downstream still see DMA-BUF. Ownership: each memory keeps a
// small qdata record (its dma-buf's identity, read once with fstat, and
// the deferred bracket), one for its life, made by its first map (maps
// racing on a fresh memory make it once, under a lock) and freed with
// it; the fd stays the memory's.

/*
#include "bracketalloc.h"
#include "fdmem.h"
*/
import "C"

import (
	"errors"
	"sync"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// gstcGoFileBracketEnter is bracket_mem_map's call into package tensor:
// it reports whether the map is now inside a bracket (a failed START is
// logged by the caller, as GStreamer logs its own). No panic crosses cgo.
//
//export gstcGoFileBracketEnter
func gstcGoFileBracketEnter(fd C.int, dev, ino C.guint64, access C.int) (ok C.gboolean) {
	defer func() {
		if recover() != nil {
			ok = 0
		}
	}()
	id := tensor.Identity{Dev: uint64(dev), Ino: uint64(ino)}
	if _, err := tensor.EnterFileBracket(int(fd), id, tensor.Access(access)); err != nil {
		return 0
	}
	return 1
}

// gstcGoFileBracketLeave leaves what gstcGoFileBracketEnter entered (the
// END if no one else is inside).
//
//export gstcGoFileBracketLeave
func gstcGoFileBracketLeave(fd C.int, dev, ino C.guint64) {
	defer func() { _ = recover() }()
	tensor.LeaveFileBracket(int(fd), tensor.Identity{Dev: uint64(dev), Ino: uint64(ino)})
}

// adoptAlloc is a bracket allocator with defer_write_end, as the dma-heap
// pool's, made on first use by wrapFdAdopting (tests: the pool's memory
// semantics without a dma-heap).
var (
	adoptOnce  sync.Once
	adoptAlloc *C.GstAllocator
)

// wrapFdAdopting wraps fd as DMA-BUF memory of a bracket allocator that
// keeps write brackets open until settleMemory (or the memory's free), as
// the dma-heap pool's memories do with handoff=adopt. Ownership as wrapFd.
func wrapFdAdopting(fd, size int) (*gst.Memory, error) {
	adoptOnce.Do(func() {
		adoptAlloc = C.gstc_bracket_allocator_new(1) // full reference, never dropped
		C.gstc_object_flag_may_be_leaked(C.gpointer(adoptAlloc))
	})
	mem := C.gstc_wrap_fd(adoptAlloc, 1, C.int(fd), C.gsize(size), 0, 0, 0)
	if mem == nil {
		return nil, errors.New("gstc: wrapFdAdopting: allocator returned no memory")
	}
	return gst.FromGstMemoryUnsafeFull(unsafe.Pointer(mem)), nil
}

// settleMemory ends the write bracket m's last write map left open (what
// the pool's release does per memory). m is borrowed.
func settleMemory(m RawMemory) { C.gstc_bracket_memory_settle(m.p) }

// holdBracketMisses (tests): from now on each map of a bracket memory
// that finds no record waits until n such maps have (n < 2: off), so
// that n threads' first maps of a fresh memory all find none — as they
// can by chance — before any makes one.
func holdBracketMisses(n int) { C.gstc_bracket_test_hold_misses(C.int(n)) }

// bracketRecords (tests): the per-memory records the bracket allocators
// have made and freed since the process started.
func bracketRecords() (made, freed uint64) {
	var m, f C.guint64
	C.gstc_bracket_test_records(&m, &f)
	return uint64(m), uint64(f)
}
