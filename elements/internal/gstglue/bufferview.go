package gstglue

// bufferview.go: one borrowed reading of a GstBuffer — everything the
// per-frame path needs, filled by one cgo call.

/*
#cgo noescape gstc_read_buffer_view
#cgo nocallback gstc_read_buffer_view
#include "bufferview.h"
*/
import "C"

import "unsafe"

// ViewMemories is how many of a buffer's memories a BufferView reads: as
// many as a frame has planes or tensors (other/tensors allows 16). A
// buffer with more is not one memory per plane; its NMemory says so.
const ViewMemories = C.GSTC_VIEW_MEMORIES

// BufferView is one reading of a GstBuffer: its timestamps, flags,
// offset and size, each of its first ViewMemories memories (borrowed
// pointer, offset, size, fd, and the qdata value under one key) and its
// GstVideoMeta's planes. ReadBufferView fills it in one cgo call and
// allocates nothing; the per-frame paths (tensorpinsink's render, and
// elements built the same way) read the buffer through it and nothing
// else.
//
// It holds no reference: the memories and fds in it are borrowed from the
// buffer, valid only while the buffer is (for a render or chain vfunc:
// until it returns) — the rules of RawBuffer and RawMemory.FD.
type BufferView struct {
	c   C.GstcBufferView
	buf RawBuffer
}

// ReadBufferView reads b (borrowed) into v, with each memory's qdata
// under key (the zero QdataKey reads none).
func ReadBufferView(b RawBuffer, key QdataKey, v *BufferView) {
	v.buf = b
	C.gstc_read_buffer_view(b.p, key.q, &v.c)
}

// Buffer returns the buffer the view was read from (borrowed).
func (v *BufferView) Buffer() RawBuffer { return v.buf }

// PTS, DTS and Duration are the buffer's GstClockTimes (ClockTimeNone if
// unset); Offset is GST_BUFFER_OFFSET (OffsetNone if unset: tensorsrc puts
// the frame's seqnum there); Flags are its GstBufferFlags; Size is
// gst_buffer_get_size.
func (v *BufferView) PTS() uint64      { return uint64(v.c.pts) }
func (v *BufferView) DTS() uint64      { return uint64(v.c.dts) }
func (v *BufferView) Duration() uint64 { return uint64(v.c.duration) }
func (v *BufferView) Offset() uint64   { return uint64(v.c.offset) }
func (v *BufferView) Flags() uint32    { return uint32(v.c.flags) }
func (v *BufferView) Size() int        { return int(v.c.size) }

// NMemory is the number of memories in the buffer, all of them (the view
// holds the first ViewMemories).
func (v *BufferView) NMemory() int { return int(v.c.n_memory) }

// Memories is how many memories the view holds: min(NMemory, ViewMemories).
func (v *BufferView) Memories() int { return min(int(v.c.n_memory), ViewMemories) }

// Memory returns memory i (borrowed), 0 ≤ i < Memories().
func (v *BufferView) Memory(i int) RawMemory {
	// The C struct keeps the pointer in an integer field (see
	// bufferview.h); read it back as the pointer it is (C memory, never
	// the Go heap).
	return RawMemory{*(**C.GstMemory)(unsafe.Pointer(&v.c.mems[i].mem))}
}

// MemOffset and MemSize are memory i's GstMemory offset (for fd memory,
// the byte offset into its file) and size.
func (v *BufferView) MemOffset(i int) int { return int(v.c.mems[i].offset) }
func (v *BufferView) MemSize(i int) int   { return int(v.c.mems[i].size) }

// MemFD is memory i's fd (borrowed: the producer's; dup it to keep it),
// or -1 if it is not fd memory.
func (v *BufferView) MemFD(i int) int { return int(v.c.mems[i].fd) }

// MemQdata returns the value attached to memory i under the view's key.
func (v *BufferView) MemQdata(i int) (any, bool) {
	h := uintptr(v.c.mems[i].qdata)
	if h == 0 {
		return nil, false
	}
	return qdataValue(h)
}

// VideoMeta returns the buffer's GstVideoMeta planes (ok false without
// one).
func (v *BufferView) VideoMeta() (m VideoMetaPlanes, ok bool) {
	if v.c.has_meta == 0 {
		return m, false
	}
	m.NPlanes, m.Width, m.Height = int(v.c.meta_n_planes), int(v.c.meta_width), int(v.c.meta_height)
	for i := 0; i < m.NPlanes; i++ {
		m.Offsets[i], m.Strides[i] = int(v.c.meta_offset[i]), int(v.c.meta_stride[i])
	}
	return m, true
}

// FindMemory returns the memory holding byte offset of the buffer (its
// memories end to end) and where in it that byte lies, as
// gst_buffer_find_memory does; ok is false past the end of the memories
// the view holds.
func (v *BufferView) FindMemory(offset int) (idx, skip int, ok bool) {
	if offset < 0 {
		return 0, 0, false
	}
	for i := 0; i < v.Memories(); i++ {
		if s := v.MemSize(i); offset < s {
			return i, offset, true
		} else {
			offset -= s
		}
	}
	return 0, 0, false
}
