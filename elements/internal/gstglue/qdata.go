package gstglue

// qdata.go: Go values attached to a GstMemory as GstMiniObject qdata (the
// sink's pin cache keeps its entries there), referenced from C by handle.

/*
#include "qdata.h"
*/
import "C"

import (
	"strconv"
	"sync"
	"unsafe"
)

// quark interns key (g_quark_from_string: GLib keeps it forever).
func quark(key string) C.GQuark {
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	return C.g_quark_from_string(ck)
}

// QdataKey names one slot of Go data attached to GstMemory (GstMiniObject
// qdata). Create keys once (package variables) and reuse them: Get on a
// key is one cgo call and a handle lookup, with no allocation. Keys with
// the same name share the slot.
type QdataKey struct{ q C.GQuark }

// Quark is k's GQuark, for package frameengine's C, which reads the qdata
// itself.
func (k QdataKey) Quark() uint32 { return uint32(k.q) }

// qdataPrefix keeps our quarks apart from qdata set by C code, whose
// pointers must never be mistaken for our handles.
const qdataPrefix = "gstc-qdata:"

// qdataQuarks caches NewQdataKey by unprefixed name, so that looking a
// key up by name is a map lookup: no prefixed string to build (an
// allocation) and no g_quark_from_string.
var (
	quarkMu     sync.RWMutex
	qdataQuarks = map[string]C.GQuark{}
)

// NewQdataKey returns the key for name.
func NewQdataKey(name string) QdataKey {
	quarkMu.RLock()
	q, ok := qdataQuarks[name]
	quarkMu.RUnlock()
	if !ok {
		q = quark(qdataPrefix + name)
		quarkMu.Lock()
		qdataQuarks[name] = q
		quarkMu.Unlock()
	}
	return QdataKey{q}
}

// qdataEntry is what the handle stored in the qdata points at.
type qdataEntry struct {
	value     any
	onRelease func(any)
}

func (e *qdataEntry) release() {
	if e.onRelease != nil {
		e.onRelease(e.value)
	}
}

// Set attaches value to m under k, replacing (and releasing) any previous
// value. The memory does not own value in the Go sense; it holds a
// handle to it. release, if not nil, runs exactly once with value
// when the entry goes away: the memory is freed, or the entry is replaced
// or removed. It runs on whichever thread does that, must not block, and
// must not call Set or remove on the same memory and key. m is borrowed:
// no reference is taken, so the entry lives exactly as long as the
// memory.
func (k QdataKey) Set(m RawMemory, value any, release func(any)) {
	h := newHandle(&qdataEntry{value: value, onRelease: release})
	C.gstc_set_qdata((*C.GstMiniObject)(unsafe.Pointer(m.p)), k.q, C.uintptr_t(h))
}

// Get returns the value attached to m under k. It performs no syscall and
// no allocation. m is borrowed. A Get racing a Set or remove of the same
// key on the same memory returns the old value, the new one, or none.
func (k QdataKey) Get(m RawMemory) (any, bool) {
	h := C.gstc_get_qdata((*C.GstMiniObject)(unsafe.Pointer(m.p)), k.q)
	if h == 0 {
		return nil, false
	}
	return qdataValue(uintptr(h))
}

// qdataValue returns the value behind a qdata handle.
func qdataValue(h uintptr) (any, bool) {
	r, ok := lookupHandle(h)
	if !ok {
		return nil, false
	}
	e, ok := r.(*qdataEntry)
	if !ok {
		return nil, false
	}
	return e.value, true
}

// QdataValue is a Go value registered once to be attached to any number
// of memories (SetShared) without allocating per memory: the qdata holds
// the value's handle with no destroy notify, and Free unregisters it, after
// which every memory still carrying it answers Get with nothing. Handles
// are never reused, so a memory outliving the value can never find
// another one. The zero QdataValue is none.
type QdataValue uintptr

// NewQdataValue registers v.
func NewQdataValue(v any) QdataValue { return QdataValue(newHandle(&qdataEntry{value: v})) }

// Free unregisters v (idempotent; any goroutine).
func (v QdataValue) Free() {
	if v != 0 {
		takeHandle(uintptr(v))
	}
}

// SetShared attaches v to m under k, replacing (and releasing) any previous
// value. One cgo call, no allocation. m is borrowed.
func (k QdataKey) SetShared(m RawMemory, v QdataValue) {
	C.gstc_set_qdata_shared((*C.GstMiniObject)(unsafe.Pointer(m.p)), k.q, C.uintptr_t(v))
}

// QdataKeys counts the distinct keys made by NewQdataKey in this process
// (each interns a GQuark for good): for tests that show they stay
// bounded.
func QdataKeys() int {
	quarkMu.RLock()
	defer quarkMu.RUnlock()
	return len(qdataQuarks)
}

// remove removes k's entry from m, running its release now. It does
// nothing if there is none. (The elements let entries go with their
// memory; the tests remove them.)
func (k QdataKey) remove(m RawMemory) {
	C.gstc_set_qdata((*C.GstMiniObject)(unsafe.Pointer(m.p)), k.q, 0)
}

// QdataKeyPool lends running elements a qdata key each — two elements
// behind a tee each keep their own entry on a shared GstMemory — from
// their start to their stop. A key interns a GQuark for good, so keys are
// reused: a process makes as many as elements of the pool's kind ever ran
// at once, not one per instance or per run. A memory may still carry a
// value under a key's previous borrower; the borrower must refuse values
// that are not its own (the pin cache does: pincache.Cache.Hit).
type QdataKeyPool struct {
	prefix string
	mu     sync.Mutex
	free   []QdataKey
	made   int
}

// NewQdataKeyPool returns a pool whose keys are named prefix-1, prefix-2, …
func NewQdataKeyPool(prefix string) *QdataKeyPool { return &QdataKeyPool{prefix: prefix} }

// Take lends a key; give it back with Give when the run ends.
func (p *QdataKeyPool) Take() QdataKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		k := p.free[n-1]
		p.free = p.free[:n-1]
		return k
	}
	p.made++
	return NewQdataKey(p.prefix + "-" + strconv.Itoa(p.made))
}

// Give returns a key Take lent.
func (p *QdataKeyPool) Give(k QdataKey) {
	p.mu.Lock()
	p.free = append(p.free, k)
	p.mu.Unlock()
}
