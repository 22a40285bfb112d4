package gstglue

// element.go: the borrowed element pointer the trampolines hand to Go, and
// the panic recovery every trampoline and callback called from C uses.

/*
#include "element.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// RawElement is a borrowed GstElement pointer (here: the element whose
// vfunc is running). It holds no reference and has no finalizer, so
// making and using one allocates nothing; it is valid for the duration of
// the call it was handed to. The zero RawElement is nil.
type RawElement struct{ p *C.GstElement }

// rawElement borrows the GstElement at p (any GstElement subclass).
func rawElement(p unsafe.Pointer) RawElement { return RawElement{(*C.GstElement)(p)} }

// BorrowElement returns a RawElement for e without taking a reference
// (for tests that drive an element's vfuncs directly); e must stay alive
// while it is used.
func BorrowElement(e *gst.Element) RawElement {
	if e == nil {
		return RawElement{}
	}
	return rawElement(unsafe.Pointer(e.Unsafe()))
}

// IsNil reports whether e points at no element.
func (e RawElement) IsNil() bool { return e.p == nil }

// Unsafe returns the GstElement pointer, for go-gst's wrapping functions
// (glib.WithPointerTransferOriginal for a borrowed wrapper) on rare paths.
func (e RawElement) Unsafe() unsafe.Pointer { return unsafe.Pointer(e.p) }

// RecoverTrampoline is deferred by every vfunc trampoline (as
// `defer RecoverTrampoline(self, "render", &ret, C.GST_FLOW_ERROR)`): a
// panic in the Go code it called is stopped before it unwinds into C,
// where it would abort the process with no useful trace, and becomes fail
// as the vfunc's return value and an error message posted from self (or,
// without an element, a line on stderr).
func RecoverTrampoline[T any](self RawElement, what string, ret *T, fail T) {
	r := recover()
	if r == nil {
		return
	}
	*ret = fail
	if !self.IsNil() {
		PostErrorRaw(self, CoreFailed, fmt.Sprintf("internal error: %v", r), string(debug.Stack()))
		return
	}
	fmt.Fprintf(os.Stderr, "gstc: panic in %s: %v\n", what, r)
}

// SafeCall runs f, a callback called from C with no element to post to
// (a release function, a ring's return), and stops a panic from unwinding
// into C; the panic is reported on stderr.
func SafeCall(what string, f func()) {
	defer RecoverTrampoline(RawElement{}, what, new(struct{}), struct{}{})
	f()
}

// Guard is RecoverTrampoline for the Go vfuncs go-gst and go-glib call
// from C (start, stop, set_caps, event, allocation, properties, …), whose
// trampolines recover nothing: each such method defers
//
//	defer gstglue.Guard(elem, "start", &ok, false)
//
// with a named result, so a panic in it becomes fail — a refused state
// change or event, a NULL caps, a property left alone — and an error
// message naming what panicked, instead of aborting the host process.
// ret may be nil for methods without a result. elem (borrowed, possibly
// nil) is the element to post from.
func Guard[T any](elem *gst.Element, what string, ret *T, fail T) {
	r := recover()
	if r == nil {
		return
	}
	if ret != nil {
		*ret = fail
	}
	text := fmt.Sprintf("internal error in %s: %v", what, r)
	if elem != nil {
		PostError(elem, CoreFailed, text, string(debug.Stack()))
		return
	}
	fmt.Fprintf(os.Stderr, "gstc: %s\n", text)
}

// RawElementOf borrows the GstElement at p (an instance pointer the caller
// keeps alive, e.g. a Go subclass's own instance): no reference, no
// wrapper.
func RawElementOf(p unsafe.Pointer) RawElement { return rawElement(p) }
