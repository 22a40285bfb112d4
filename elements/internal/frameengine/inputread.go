package frameengine

// inputread.go: how a frame engine reads its input (see inputread.h),
// shared by tensorinfer's engine (inferframe.c) and tensorpinsink's
// (sinkframe.c).

/*
#include "inputread.h"
*/
import "C"

import "unsafe"

// Input is one pinned memory region an engine reads (inputread.h's
// GstcInput). Tensor (a *tensor.Tensor) is the pin cache entry's, kept
// open by the caller while the engine knows the region; nil for a copy
// region, which has no bracket. Host is the region's pinned first byte.
type Input struct {
	Tag                uintptr
	MemOffset, MemSize uint64
	Tensor             any
	Dev, Ino           uint64
	Host               unsafe.Pointer
	Copy               bool
}

// FillC sets the GstcInput at r (an element's C memory: its engine's
// table) to in; false if in.Tensor has no shared bracket.
func (in *Input) FillC(r unsafe.Pointer) bool { return in.fill((*C.GstcInput)(r)) }

// fill sets r to in; false if in.Tensor has no shared bracket.
func (in *Input) fill(r *C.GstcInput) bool {
	var b C.GstcBracket
	if !in.Copy {
		var ok bool
		if b, ok = cBracket(in.Tensor); !ok {
			return false
		}
	}
	*r = C.GstcInput{}
	r.tag = C.uintptr_t(in.Tag)
	r.mem_offset, r.mem_size = C.guint64(in.MemOffset), C.guint64(in.MemSize)
	r.bracket = b
	r.dev, r.ino = C.guint64(in.Dev), C.guint64(in.Ino)
	r.host = (*C.guint8)(in.Host)
	r.copy = cbool(in.Copy)
	return true
}
