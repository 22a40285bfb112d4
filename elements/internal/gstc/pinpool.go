package gstc

/*
#include "pinpool.h"
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// PoolMemory is the kind of fd memory a proposed pool allocates.
type PoolMemory int

const (
	PoolMemfd   PoolMemory = C.GSTC_PINPOOL_MEMFD    // a sealed memfd per memory
	PoolDMAHeap PoolMemory = C.GSTC_PINPOOL_DMA_HEAP // a /dev/dma_heap/system buffer per memory
)

// AllocationCaps returns the caps of an ALLOCATION query (borrowed from
// q: a wrapper with no reference, valid while q is) and whether the peer
// asked for a pool.
func AllocationCaps(q *gst.Query) (*gst.Caps, bool) {
	var need C.gboolean
	c := C.gstc_allocation_caps((*C.GstQuery)(unsafe.Pointer(q.Instance())), &need)
	if c == nil {
		return nil, gobool(need)
	}
	return gst.ToGstCaps(unsafe.Pointer(c)), gobool(need)
}

// ProposePinnedPool answers an ALLOCATION query (q borrowed) with a buffer
// pool whose every memory is fd memory of kind mem — a new memfd or dma-heap
// buffer per memory, mapped by GStreamer once and kept mapped — holding
// size-byte buffers, minBuffers of them at least, 64-byte aligned, with
// GstVideoMeta for video; and the allocator itself as an allocation
// param. The query holds the only references: the pool and allocator live
// as long as the producer that takes them, and each memory closes its fd
// when freed (a consumer that imported it keeps its own dup).
func ProposePinnedPool(q *gst.Query, video bool, size, minBuffers int, mem PoolMemory) error {
	v := C.gboolean(0)
	if video {
		v = 1
	}
	if C.gstc_propose_pinned_pool((*C.GstQuery)(unsafe.Pointer(q.Instance())), v, C.guint(size), C.guint(minBuffers), C.int(mem)) == 0 {
		return errors.New("gstc: the proposed pool refused its configuration")
	}
	return nil
}
