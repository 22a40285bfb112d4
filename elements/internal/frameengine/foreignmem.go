package frameengine

// foreignmem.go: a foreign dma-buf memory (a camera's) wrapped in one of
// the project's, so that the project's elements share one CPU-access
// bracket on it per frame and its END comes when the last of them lets
// go, before the camera gets the buffer back (foreignmem.h says how).
// Go makes a memory's wrapper once (WrapForeign, from tensorinfer's first
// look at the memory); the frames lend it in C (gstc_foreign_lend).

/*
#include "foreignmem.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// ErrForeignWrap is returned by WrapForeign when a memory that could be
// wrapped was not (its fd cannot be imported, the allocator failed).
var ErrForeignWrap = errors.New("frameengine: cannot wrap a foreign dma-buf memory")

// ForeignCandidate reports whether m (borrowed) is a foreign dma-buf
// memory WrapForeign would wrap: dma-buf memory of an allocator that is
// not the project's, not a share of another memory.
func ForeignCandidate(m gstglue.RawMemory) bool {
	return C.gstc_foreign_candidate(memP(m)) != 0
}

// WrapForeign gives m (borrowed) its wrapper unless it has one or is not
// a candidate; made reports whether this call made it. The wrapper holds
// a tensor of package tensor over a dup of m's fd (its bracket's record
// and fd), closed when the wrapper is freed with m. On the streaming
// thread that first sees m, once per memory.
func WrapForeign(m gstglue.RawMemory) (made bool, err error) {
	mp := memP(m)
	if C.gstc_foreign_candidate(mp) == 0 || C.gstc_foreign_wrapper_of(mp) != nil {
		return false, nil
	}
	size := int(mp.maxsize)
	t, err := tensor.ImportFD(m.FD(), tensor.Layout{DType: tensor.U8, Shape: []int{size}})
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrForeignWrap, err)
	}
	b, ok := cBracket(t)
	if !ok {
		t.Close()
		return false, fmt.Errorf("%w: its tensor shares no bracket", ErrForeignWrap)
	}
	h := gstglue.NewHandle(t)
	var mk C.gboolean
	w := C.gstc_foreign_attach(mp, b, C.uintptr_t(h), &mk)
	if mk == 0 {
		// Another thread's wrapper, or none: the tensor is not needed.
		gstglue.TakeHandle(h)
		t.Close()
	}
	if w == nil {
		return false, fmt.Errorf("%w: the allocator made no memory over fd %d (%d bytes)", ErrForeignWrap, m.FD(), size)
	}
	return mk != 0, nil
}

// gstcGoForeignRelease closes a wrapper's tensor when the wrapper is
// freed (foreign_free), on whatever thread freed it. No panic crosses
// cgo.
//
//export gstcGoForeignRelease
func gstcGoForeignRelease(h C.uintptr_t) {
	defer func() { _ = recover() }()
	v, ok := gstglue.LookupHandle(uintptr(h))
	gstglue.TakeHandle(uintptr(h))
	if t, isTensor := v.(*tensor.Tensor); ok && isTensor {
		t.Close()
	}
}

// ForeignWrapper returns m's wrapper (borrowed: m keeps it), or a zero
// RawMemory.
func ForeignWrapper(m gstglue.RawMemory) gstglue.RawMemory {
	return gstglue.RawMemoryOf(unsafe.Pointer(C.gstc_foreign_wrapper_of(memP(m))))
}

// LendForeign is gstc_foreign_lend (foreignmem.h) for tests: the buffer
// in's video goes on in (the caller's reference), its memory's wrapper
// joining the bracket the caller holds open for read and write; zero
// when in goes on as it is.
func LendForeign(in gstglue.RawBuffer) gstglue.RawBuffer {
	return gstglue.RawBufferOf(unsafe.Pointer(C.gstc_foreign_lend(bufP(in))))
}

// ForeignCounts are the wrappers made, freed, lent and given back since
// the process started (for tests).
type ForeignCounts struct{ Made, Freed, Lent, Returned uint64 }

// ReadForeignCounts returns the process's ForeignCounts.
func ReadForeignCounts() ForeignCounts {
	var m, f, l, r C.guint64
	C.gstc_foreign_test_counts(&m, &f, &l, &r)
	return ForeignCounts{uint64(m), uint64(f), uint64(l), uint64(r)}
}

// holdForeignDispose (tests): from now on a wrapper's dispose marks
// itself under way and sleeps d before it takes the wrapper's lock (0:
// off), so that a lend meets a wrapper whose last holder let go.
func holdForeignDispose(d time.Duration) { C.gstc_foreign_test_hold_dispose(C.int(d.Microseconds())) }

// foreignDisposing (tests) reports whether a wrapper's dispose marked
// itself under way since the last call.
func foreignDisposing() bool { return C.gstc_foreign_test_disposing() != 0 }

// NewGstDmabufMemory returns a memory of GStreamer's own
// GstDmaBufAllocator (not the project's: a foreign memory, as a
// camera's) over fd, which stays the caller's (kept open until the
// memory is freed), size bytes. For tests: a memfd stands in for the
// camera's dma-buf where there is none.
func NewGstDmabufMemory(fd, size int) (*gst.Memory, error) {
	if fd < 0 || size <= 0 {
		return nil, fmt.Errorf("frameengine: NewGstDmabufMemory: fd %d, size %d", fd, size)
	}
	m := C.gstc_foreign_test_gst_dmabuf(C.int(fd), C.gsize(size))
	if m == nil {
		return nil, errors.New("frameengine: NewGstDmabufMemory: the allocator made no memory")
	}
	return gst.FromGstMemoryUnsafeFull(unsafe.Pointer(m)), nil
}
