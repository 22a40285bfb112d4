package frameengine

// lifopool.go: the buffer pools ProposePinnedPool proposes keep their free
// buffers in a stack and hand out the most recently returned one first, so
// the buffers cycling through the CPU cache are only those really in
// flight (lifopool.c says why and who owns what).

/*
#include "lifopool.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// LIFOPoolKept returns how many free buffers p (borrowed) keeps on its
// stack, or -1 when p is not one of the pools ProposePinnedPool makes.
// For tests: a deactivated pool keeps none.
func LIFOPoolKept(p *gst.BufferPool) int {
	return int(C.gstc_lifo_pool_kept((*C.GstBufferPool)(unsafe.Pointer(p.Instance()))))
}
