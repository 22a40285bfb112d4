package gstc

// cbracket.go: package tensor's CPU-access brackets entered and left from
// C (internal/bracketabi has the shared state word and its protocol), so
// that a frame done in C (steady.go) and a memory's return (outring.go)
// bracket the memory as Go code would, sharing each bracket with every
// Go holder of the same dma-buf.

/*
#cgo nocallback gstc_bracket_try_enter
#cgo nocallback gstc_bracket_leave
#include "cbracket.h"
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/internal/bracketabi"
)

func init() {
	C.gstc_bracket_counters = (*C.guint64)(bracketabi.Counters)
}

// cBracket returns t's bracket (t a *tensor.Tensor) as C holds it; false
// if t's memory shares no brackets (Go heap) or t is closed. The caller
// keeps t open while C uses it (it borrows t's fd).
func cBracket(t any) (C.GstcBracket, bool) {
	b, ok := bracketabi.Of(t)
	if !ok {
		return C.GstcBracket{}, false
	}
	return C.GstcBracket{word: (*C.guint64)(b.Word), fd: C.int(b.FD), ioctl: cbool(b.Ioctl)}, true
}

// CBracket is a tensor's bracket entered from C (for tests of the
// protocol: Go and C on one bracket).
type CBracket struct{ b *C.GstcBracket }

// NewCBracket returns t's bracket (t a *tensor.Tensor, kept open by the
// caller while the CBracket is used); false as cBracket. Free it.
func NewCBracket(t any) (CBracket, bool) {
	b, ok := cBracket(t)
	if !ok {
		return CBracket{}, false
	}
	p := (*C.GstcBracket)(C.malloc(C.size_t(unsafe.Sizeof(b))))
	*p = b
	return CBracket{p}, true
}

// Free releases the C copy of the bracket (not the bracket).
func (b CBracket) Free() { C.free(unsafe.Pointer(b.b)) }

// TryJoin joins the bracket if it is open with at least access (1 read,
// 2 write, 3 both), without an ioctl.
func (b CBracket) TryJoin(access int) bool {
	return gobool(C.gstc_bracket_try_join(b.b, C.int(access)))
}

// TryEnter joins or opens (a START) the bracket; false with err nil when
// it is open for less or Busy.
func (b CBracket) TryEnter(access int) (ok bool, err error) {
	var e C.int
	ok = gobool(C.gstc_bracket_try_enter(b.b, C.int(access), &e))
	if e != 0 {
		err = fmt.Errorf("DMA_BUF_IOCTL_SYNC start: %w", syscall.Errno(e))
	}
	return ok, err
}

// Leave leaves the bracket (the END if this is the last one out).
func (b CBracket) Leave() (left, closed bool, err error) {
	var c C.gboolean
	var e C.int
	left = gobool(C.gstc_bracket_leave(b.b, &c, &e))
	if e != 0 {
		err = fmt.Errorf("DMA_BUF_IOCTL_SYNC end: %w", syscall.Errno(e))
	}
	return left || e != 0, gobool(c), err
}
