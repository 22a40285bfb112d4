package gstglue

// buffer.go: GstBuffer on the per-frame path — the borrowed RawBuffer a
// vfunc is handed, a Lease that keeps one, what a sink reads of it, and
// the few go-gst wrapper operations whose reference must move now rather
// than at a garbage collection.

/*
#include "cgo.h"

static inline gboolean
gstc_buffer_is_writable (GstBuffer * buf)
{
  return gst_buffer_is_writable (buf);
}
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// OffsetNone is GST_BUFFER_OFFSET_NONE, a buffer's unset offset.
const OffsetNone = ^uint64(0)

// ClockTimeNone is GST_CLOCK_TIME_NONE, the unset GstClockTime of a
// buffer's PTS or duration.
const ClockTimeNone = ^uint64(0)

// RawBuffer is a borrowed GstBuffer pointer, e.g. the buffer handed to a
// render vfunc: no reference, no finalizer, no allocation. It is valid
// only while its owner holds the buffer (for render: until the call
// returns); LeaseBuffer keeps it longer. A RawBuffer can also stand for a
// reference its holder owns, where a function says so (NewFrameBuffer,
// CreateRaw). The zero RawBuffer is nil.
type RawBuffer struct{ p *C.GstBuffer }

// IsNil reports whether b points at no buffer.
func (b RawBuffer) IsNil() bool { return b.p == nil }

// Unsafe returns the GstBuffer pointer, for gst.ToGstBuffer (a borrowed
// wrapper; it allocates) on rare paths, and for package frameengine's C
// (cgo types are per package). No reference is taken.
func (b RawBuffer) Unsafe() unsafe.Pointer { return unsafe.Pointer(b.p) }

// AppendRawMemory moves the caller's reference of m into buf (a buffer
// the caller owns and that is writable).
func AppendRawMemory(buf RawBuffer, m RawMemory) { C.gst_buffer_append_memory(buf.p, m.p) }

// RefCount returns b's reference count (tests of who holds a buffer).
func (b RawBuffer) RefCount() int { return int(b.p.mini_object.refcount) }

// RawBufferOf is the RawBuffer of the GstBuffer at p, for package
// frameengine's C: it carries whatever p carries (a borrowed pointer, or
// a reference where the caller's function says so), and takes none.
func RawBufferOf(p unsafe.Pointer) RawBuffer { return RawBuffer{(*C.GstBuffer)(p)} }

// BorrowBuffer returns a RawBuffer for buf without taking a reference;
// buf keeps ownership and must stay alive while the RawBuffer is used.
func BorrowBuffer(buf *gst.Buffer) RawBuffer {
	if buf == nil {
		return RawBuffer{}
	}
	return RawBuffer{bufC(buf)}
}

// UnrefRawBuffer drops a reference of b that the caller owns (from
// NewFrameBuffer); never pass a borrowed buffer. b must not be used
// afterwards.
func UnrefRawBuffer(b RawBuffer) {
	if b.p != nil {
		C.gst_buffer_unref(b.p)
	}
}

// Lease is one reference on a GstBuffer held without a go-gst wrapper (no
// allocation, no finalizer): what a sink keeps while the application holds
// a frame, so the buffer is not returned to its pool. Release drops it; the
// zero Lease holds nothing.
type Lease struct{ p *C.GstBuffer }

// LeaseBuffer takes a new reference on b (borrowed) and returns it as a
// Lease owned by the caller.
func LeaseBuffer(b RawBuffer) Lease {
	return Lease{p: C.gst_buffer_ref(b.p)}
}

// AdoptLease makes the caller's reference of b a Lease (no new one).
func AdoptLease(b RawBuffer) Lease { return Lease(b) }

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

// BufferPTS returns b's PTS (ClockTimeNone if unset).
func BufferPTS(b RawBuffer) uint64 { return uint64(b.p.pts) }

// PeekMemory borrows memory idx of b (gst_buffer_peek_memory): no
// reference is taken and b keeps ownership. It returns the nil RawMemory
// when idx is out of range. go-gst's Buffer.PeekMemory instead takes a
// reference and allocates a wrapper with a finalizer on every call.
func PeekMemory(b RawBuffer, idx int) RawMemory {
	if idx < 0 || idx >= int(C.gst_buffer_n_memory(b.p)) {
		return RawMemory{}
	}
	return RawMemory{C.gst_buffer_peek_memory(b.p, C.guint(idx))}
}

// SetBufferOffset sets GST_BUFFER_OFFSET of b, which must be writable
// (for tests that push buffers numbered as tensorsrc numbers them).
func SetBufferOffset(b RawBuffer, offset uint64) { b.p.offset = C.guint64(offset) }

// ExtractBuffer copies up to len(dst) bytes of b's content from its start
// into dst (gst_buffer_extract) and returns how many it copied.
func ExtractBuffer(b RawBuffer, dst []byte) int {
	if len(dst) == 0 {
		return 0
	}
	return int(C.gst_buffer_extract(b.p, 0, C.gpointer(unsafe.Pointer(&dst[0])), C.gsize(len(dst))))
}

// UnrefBuffer drops the reference owned by the wrapper buf now and
// disarms its finalizer. buf must own a reference (gst.NewEmptyBuffer,
// gst.FromGstBufferUnsafeNone/Full, ...), never be a borrowed buffer such
// as the one passed to a render or fill vfunc, and must not be used
// afterwards. The elements never hold a buffer wrapper; their tests do
// (tensorsrc's drop the buffers they pull), hence the export.
func UnrefBuffer(buf *gst.Buffer) {
	runtime.SetFinalizer(buf, nil)
	UnrefRawBuffer(BorrowBuffer(buf))
}

// AppendMemory moves the reference owned by the wrapper mem into buf
// (gst_buffer_append_memory, transfer full) and disarms the wrapper's
// finalizer: afterwards buf is the only owner and mem must not be used.
// go-gst's Buffer.AppendMemory instead adds a reference and leaves the
// wrapper's own to the garbage collector, which delays the memory's free
// (and its release callback) by an unbounded time. buf must be writable.
// The elements build no buffer from wrappers; tensorpinsink's tests push
// fd-memory buffers built with NewFdMemory and this, hence the export.
func AppendMemory(buf *gst.Buffer, mem *gst.Memory) error {
	b := bufC(buf)
	if !gobool(C.gstc_buffer_is_writable(b)) {
		return errors.New("gstc: AppendMemory: buffer is not writable")
	}
	runtime.SetFinalizer(mem, nil)
	C.gst_buffer_append_memory(b, memC(mem))
	return nil
}
