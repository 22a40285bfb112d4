package gstc

import (
	"sync"
	"sync/atomic"
)

// Go values given to C (release callbacks, qdata entries) are referenced
// from C by a small integer handle, as with runtime/cgo.Handle. We keep
// our own table instead of cgo.Handle because cgo.Handle.Value panics on
// a deleted handle, and a qdata Get racing a Set or Delete on the same
// memory can legitimately see a handle that is being deleted: here that
// lookup just misses.
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
