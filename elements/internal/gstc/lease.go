package gstc

/*
#include "gstc.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// Lease is one reference on a GstBuffer held without a go-gst wrapper (no
// allocation, no finalizer): what a sink keeps while the application holds
// a frame, so the buffer is not returned to its pool. Release drops it; the
// zero Lease holds nothing.
type Lease struct{ p *C.GstBuffer }

// LeaseBuffer takes a new reference on buf (borrowed) and returns it as a
// Lease owned by the caller.
func LeaseBuffer(buf *gst.Buffer) Lease {
	return Lease{p: C.gst_buffer_ref(bufC(buf))}
}

// Buffer returns a go-gst wrapper with its own reference (the caller owns
// it; it allocates, so it is not for the per-frame path), or nil.
func (l Lease) Buffer() *gst.Buffer {
	if l.p == nil {
		return nil
	}
	return gst.FromGstBufferUnsafeNone(unsafe.Pointer(l.p))
}

// Release drops the lease's reference (the buffer may go back to its pool
// now). The caller must not use the Lease again.
func (l Lease) Release() {
	if l.p != nil {
		C.gst_buffer_unref(l.p)
	}
}

// BufferInfo is what a sink reads of a buffer per frame, without
// allocating.
type BufferInfo struct {
	NMemory  int
	Size     int
	PTS      uint64 // GstClockTime; ClockTimeNone if unset
	Duration uint64 // GstClockTime; ClockTimeNone if unset
	// Plane 0 of the buffer's GstVideoMeta, if it has one.
	HasVideoMeta bool
	MetaOffset   int
	MetaStride   int
	MetaWidth    int
	MetaHeight   int
}

// ReadBufferInfo reads buf (borrowed).
func ReadBufferInfo(buf *gst.Buffer) BufferInfo {
	b := bufC(buf)
	info := BufferInfo{
		NMemory:  int(C.gst_buffer_n_memory(b)),
		Size:     int(C.gst_buffer_get_size(b)),
		PTS:      uint64(b.pts),
		Duration: uint64(b.duration),
	}
	if m := C.gst_buffer_get_video_meta(b); m != nil {
		info.HasVideoMeta = true
		info.MetaOffset = int(m.offset[0])
		info.MetaStride = int(m.stride[0])
		info.MetaWidth = int(m.width)
		info.MetaHeight = int(m.height)
	}
	return info
}

// ExtractBuffer copies up to len(dst) bytes of buf's content from its
// start into dst (gst_buffer_extract) and returns how many it copied.
func ExtractBuffer(buf *gst.Buffer, dst []byte) int {
	if len(dst) == 0 {
		return 0
	}
	return int(C.gst_buffer_extract(bufC(buf), 0, C.gpointer(unsafe.Pointer(&dst[0])), C.gsize(len(dst))))
}
