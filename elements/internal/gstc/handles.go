package gstc

// handles.go: Go values referenced from C (release callbacks, qdata
// entries, rings) by a small integer handle, and the destroy notify that
// hands a handle back to Go (gstc_handle_destroy in qdata.c).

/*
#include "qdata.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
)

// releaser is what a handle stored in C points at: something to run once
// when GStreamer destroys the data.
type releaser interface{ release() }

// releaseFunc adapts a plain func to the handle-destroy protocol.
type releaseFunc func()

func (f releaseFunc) release() { f() }

// The table works like runtime/cgo.Handle. We keep our own instead of
// cgo.Handle because cgo.Handle.Value panics on a deleted handle, and a
// qdata Get racing a Set or remove on the same memory can legitimately see
// a handle that is being deleted: here that lookup just misses.
var (
	handleTable sync.Map // uintptr -> releaser
	handleNext  atomic.Uintptr
)

// newHandle stores v and returns its handle (never 0).
func newHandle(v releaser) uintptr {
	h := handleNext.Add(1)
	handleTable.Store(h, v)
	return h
}

// lookupHandle returns the value of h without removing it.
func lookupHandle(h uintptr) (releaser, bool) {
	v, ok := handleTable.Load(h)
	if !ok {
		return nil, false
	}
	return v.(releaser), true
}

// takeHandle removes h and returns its value; only the first call for a
// given handle gets ok == true, which is what makes releases run once.
func takeHandle(h uintptr) (releaser, bool) {
	v, ok := handleTable.LoadAndDelete(h)
	if !ok {
		return nil, false
	}
	return v.(releaser), true
}

// liveHandles counts handles not yet destroyed (for tests and leak
// checks).
func liveHandles() int {
	n := 0
	handleTable.Range(func(any, any) bool { n++; return true })
	return n
}

// gstcGoHandleDestroy is the GDestroyNotify for every handle this package
// gives to C. It deletes the handle and runs its release exactly once.
//
//export gstcGoHandleDestroy
func gstcGoHandleDestroy(h C.uintptr_t) {
	if r, ok := takeHandle(uintptr(h)); ok {
		safeCall("release callback", r.release)
	}
}
