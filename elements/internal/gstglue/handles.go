package gstglue

// handles.go: Go values referenced from C (release callbacks, qdata
// entries, rings) by a small integer handle, and the destroy notify that
// hands a handle back to Go (gstc_handle_destroy in qdata.c).

/*
#include "qdata.h"
*/
import "C"

import (
	"math/bits"
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
//
// A handle is a place in the table (its low bits, plus one) and the
// place's generation (its high bits). Places are reused, so a handle
// deleted while a lookup races it may name a place that already holds a
// newer value: the generation tells them apart, and the lookup misses.
// Lookups, several a frame (a pinned memory's qdata, a ring memory's
// return), read without a lock: the places live in fixed chunks found
// through a directory that is replaced (copied) when the table grows, and
// each place is an atomic pointer. New and take lock handleMu.
type handleEntry struct {
	h uintptr
	v releaser
}

const (
	handleChunkBits = 10
	handleChunkSize = 1 << handleChunkBits
	// handlePlaceBits is the share of a handle that names the place.
	handlePlaceBits = bits.UintSize / 2
	handlePlaceMask = 1<<handlePlaceBits - 1
)

type handleChunk [handleChunkSize]atomic.Pointer[handleEntry]

var (
	handleMu   sync.Mutex
	handleDir  atomic.Pointer[[]*handleChunk]
	handleGen  []uintptr // by place: the generation of its last handle
	handleFree []int     // places free for reuse
	handleLive int
)

// newHandle stores v and returns its handle (never 0).
func newHandle(v releaser) uintptr {
	handleMu.Lock()
	defer handleMu.Unlock()
	var place int
	if n := len(handleFree); n > 0 {
		place = handleFree[n-1]
		handleFree = handleFree[:n-1]
	} else {
		place = len(handleGen)
		handleGen = append(handleGen, 0)
		if place%handleChunkSize == 0 {
			var dir []*handleChunk
			if p := handleDir.Load(); p != nil {
				dir = *p
			}
			grown := append(dir[:len(dir):len(dir)], new(handleChunk))
			handleDir.Store(&grown)
		}
	}
	if place+1 > handlePlaceMask {
		panic("gstc: more live handles than a handle can name")
	}
	handleGen[place]++
	h := handleGen[place]<<handlePlaceBits | uintptr(place+1) // never 0: the place's part is not
	(*handleDir.Load())[place/handleChunkSize][place%handleChunkSize].Store(&handleEntry{h: h, v: v})
	handleLive++
	return h
}

// handleSlot returns the place of h, or nil when h names none.
func handleSlot(h uintptr) *atomic.Pointer[handleEntry] {
	place := int(h&handlePlaceMask) - 1
	dir := handleDir.Load()
	if place < 0 || dir == nil || place/handleChunkSize >= len(*dir) {
		return nil
	}
	return &(*dir)[place/handleChunkSize][place%handleChunkSize]
}

// lookupHandle returns the value of h without removing it. No lock, no
// allocation.
func lookupHandle(h uintptr) (releaser, bool) {
	slot := handleSlot(h)
	if slot == nil {
		return nil, false
	}
	if e := slot.Load(); e != nil && e.h == h {
		return e.v, true
	}
	return nil, false
}

// takeHandle removes h and returns its value; only the first call for a
// given handle gets ok == true, which is what makes releases run once.
func takeHandle(h uintptr) (releaser, bool) {
	handleMu.Lock()
	defer handleMu.Unlock()
	slot := handleSlot(h)
	if slot == nil {
		return nil, false
	}
	e := slot.Load()
	if e == nil || e.h != h {
		return nil, false
	}
	slot.Store(nil)
	handleFree = append(handleFree, int(h&handlePlaceMask)-1)
	handleLive--
	return e.v, true
}

// plainValue is a value of another package kept behind a handle
// (package frameengine's rings, an element's Go side): nothing runs when
// C destroys its handle.
type plainValue struct{ v any }

func (plainValue) release() {}

// NewHandle stores v, with nothing to release, and returns its handle for
// C (never 0), deleted by gstc_handle_destroy or TakeHandle. Allocates
// once.
func NewHandle(v any) uintptr { return newHandle(plainValue{v}) }

// LookupHandle returns the value NewHandle stored under h, or false once
// h is deleted. No lock, no allocation.
func LookupHandle(h uintptr) (any, bool) {
	r, ok := lookupHandle(h)
	p, plain := r.(plainValue)
	return p.v, ok && plain
}

// TakeHandle deletes h, a handle NewHandle returned; only the first call
// for a handle reports true.
func TakeHandle(h uintptr) bool {
	_, ok := takeHandle(h)
	return ok
}

// LiveHandles counts handles not yet destroyed (for tests and leak
// checks).
func LiveHandles() int {
	handleMu.Lock()
	defer handleMu.Unlock()
	return handleLive
}

// gstcGoHandleDestroy is the GDestroyNotify for every handle this package
// gives to C. It deletes the handle and runs its release exactly once.
//
//export gstcGoHandleDestroy
func gstcGoHandleDestroy(h C.uintptr_t) {
	if r, ok := takeHandle(uintptr(h)); ok {
		SafeCall("release callback", r.release)
	}
}
