package frameengine

/*
#include "pinpool.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// PoolMemory is the kind of fd memory a proposed pool allocates.
type PoolMemory int

const (
	PoolMemfd   PoolMemory = C.GSTC_PINPOOL_MEMFD    // a sealed memfd per memory
	PoolDMAHeap PoolMemory = C.GSTC_PINPOOL_DMA_HEAP // a buffer of the heap at tensor.DMAHeapPath per memory
)

// gstcGoPoolAllocFD is the proposed pool's allocators' source of fds: the
// project's one allocator, tensor.AllocFD (so the pool's memfds are sealed
// as Alloc's are, its dma-heap is the configured one, and tests can inject
// faults). It returns an fd the new GstMemory owns, or -1 after logging
// why (the producer's buffer allocation then fails, and it posts the
// error). It runs on the producer's thread.
//
//export gstcGoPoolAllocFD
func gstcGoPoolAllocFD(kind C.int, size C.gsize) (fd C.int) {
	defer func() {
		if r := recover(); r != nil {
			poolWarning(fmt.Sprintf("panic in the pool's allocator: %v", r))
			fd = -1
		}
	}()
	src := tensor.SourceMemfd
	if PoolMemory(kind) == PoolDMAHeap {
		src = tensor.SourceDMAHeap
	}
	if uint64(size) > uint64(^uint(0)>>1) {
		poolWarning(fmt.Sprintf("the pool cannot allocate %d bytes", uint64(size)))
		return -1
	}
	f, _, err := tensor.AllocFD(int(size), src, "tensorpin-pool")
	if err != nil {
		poolWarning("the pool cannot allocate a buffer: " + err.Error())
		return -1
	}
	return C.int(f)
}

// poolWarning logs msg in the pool's debug category (tensorpin-pool).
func poolWarning(msg string) {
	cs := C.CString(msg)
	defer C.free(unsafe.Pointer(cs))
	C.gstc_pinpool_warn(cs)
}

// AllocationCaps returns the caps of an ALLOCATION query (borrowed from
// q: a wrapper with no reference, valid while q is) and whether the peer
// asked for a pool.
func AllocationCaps(q *gst.Query) (*gst.Caps, bool) {
	var need C.gboolean
	c := C.gstc_allocation_caps((*C.GstQuery)(unsafe.Pointer(q.Instance())), &need)
	if c == nil {
		return nil, need != 0
	}
	return gst.ToGstCaps(unsafe.Pointer(c)), need != 0
}

// ProposePinnedPool answers an ALLOCATION query (q borrowed) with a buffer
// pool whose every memory is fd memory of kind mem — a new memfd or dma-heap
// buffer per memory, mapped by GStreamer once and kept mapped — holding
// size-byte buffers, minBuffers of them at least, 64-byte aligned, with
// GstVideoMeta for video; and the allocator itself as an allocation
// param. The pool hands out the buffer returned last first (lifopool.c),
// so a producer whose buffers come back at once reuses one cache-hot
// buffer and the depth serves only the frames an application holds. The query holds the only references: the pool and allocator live
// as long as the producer that takes them, and each memory closes its fd
// when freed (a consumer that imported it keeps its own dup).
//
// The dma-heap pool's memories map inside the process's brackets
// (bracketalloc.go). adoptWrites (handoff=adopt) keeps a producer's write
// bracket open until the buffer comes back to the pool, so the consumer
// joins it and a frame costs one START and one END; false (handoff=close)
// ends it at the producer's unmap, for a device that reads the buffer
// before the consumer.
func ProposePinnedPool(q *gst.Query, video bool, size, minBuffers int, mem PoolMemory, adoptWrites bool) error {
	v, adopt := C.gboolean(0), C.gboolean(0)
	if video {
		v = 1
	}
	if adoptWrites {
		adopt = 1
	}
	if C.gstc_propose_pinned_pool((*C.GstQuery)(unsafe.Pointer(q.Instance())), v, C.guint(size), C.guint(minBuffers), C.int(mem), adopt) == 0 {
		return errors.New("gstc: the proposed pool refused its configuration")
	}
	return nil
}

// PoolCache is the pool an element proposed last, reused for identical
// ALLOCATION queries (the same caps and arguments): a producer that
// renegotiates with nothing changed keeps its buffers, which stay
// pinned and bound, instead of getting a new pool whose buffers are
// imported and bound anew. It holds a reference of the pool and its
// allocator from the proposal until Free (or the next proposal with
// another configuration); the producer holds its own. Safe from any
// thread.
type PoolCache struct {
	mu sync.Mutex
	c  *C.GstcPoolCache // nil once freed
}

// NewPoolCache returns an empty cache; Free it.
func NewPoolCache() *PoolCache { return &PoolCache{c: C.gstc_pool_cache_new()} }

// Propose is ProposePinnedPool with at most maxBuffers buffers (0: no
// limit), answering with the cached pool when q's caps and every argument
// are the ones it was made for (reused). A freed cache proposes a pool it
// does not keep.
func (p *PoolCache) Propose(q *gst.Query, video bool, size, minBuffers, maxBuffers int, mem PoolMemory, adoptWrites bool) (reused bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c == nil {
		return false, ProposePinnedPool(q, video, size, minBuffers, mem, adoptWrites)
	}
	var r C.gboolean
	if C.gstc_pool_cache_propose(p.c, (*C.GstQuery)(unsafe.Pointer(q.Instance())), cbool(video), C.guint(size),
		C.guint(minBuffers), C.guint(maxBuffers), C.int(mem), cbool(adoptWrites), &r) == 0 {
		return false, errors.New("gstc: the proposed pool refused its configuration")
	}
	return r != 0, nil
}

// Free drops the cache's references; idempotent.
func (p *PoolCache) Free() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c != nil {
		C.gstc_pool_cache_free(p.c)
		p.c = nil
	}
}

// AllocationPool returns the identity (address) of the n-th pool an
// ALLOCATION query (q borrowed) holds, with its size, min and max
// buffers; ok false when it has no n-th pool. For tests that check
// which pool was proposed.
func AllocationPool(q *gst.Query, n int) (pool uintptr, size, minBuffers, maxBuffers int, ok bool) {
	var bp *C.GstBufferPool
	var sz, mn, mx C.guint
	if C.gstc_allocation_pool(C.gpointer(unsafe.Pointer(q.Instance())), C.guint(n), &bp, &sz, &mn, &mx) == 0 {
		return 0, 0, 0, 0, false
	}
	return uintptr(unsafe.Pointer(bp)), int(sz), int(mn), int(mx), true
}
