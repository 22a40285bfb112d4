package pincache

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// ErrCacheClosed: Insert after Close.
var ErrCacheClosed = errors.New("pincache: closed")

// Key identifies a region of a file: the file's identity and the region's
// byte offset and size. Two GstMemory objects wrapping the same dma-buf at
// the same offset share a key.
type Key struct {
	ID     tensor.Identity
	Offset int
	Size   int
}

// Entry is one pinned region.
type Entry struct {
	key    Key
	slot   int
	tensor *tensor.Tensor // u8[Size] at Offset over a dup of the fd
	pin    pin.HostPin    // [Offset, Offset+Size), on the slot's keepalive
	refs   atomic.Int32
	dead   atomic.Bool
	owner  *Cache
	// Shaped and Views are free for the cache's user, who may read and
	// write them while holding a reference from its single streaming
	// thread: the sink keeps the layout generation it last made views for,
	// and one PlaneView per frame plane that lies in this region (nil for
	// planes elsewhere). Set them with SetViews.
	Shaped uint64
	Views  []*PlaneView
	// owned are every view SetViews was given: frames may still use old
	// ones after a layout change, so they are closed with the entry.
	owned []*PlaneView
	// Intrusive LRU links, guarded by Cache.mu.
	prev, next *Entry
}

// Key returns the region the entry pins.
func (e *Entry) Key() Key { return e.key }

// Slot returns a small index naming the entry's pinned address: the "pool
// slot" of the buffer, for binding a runtime once per slot. No other entry
// gets the number while this one is in the cache, while a frame holds it, or
// while any pin cloned or narrowed from Pin() lives — the application may
// still have a runtime bound to the address. The number is freed when the
// last of those goes (the pin's keepalive frees it), so slots stay below the
// cache bound plus the evicted entries still in use. If such a pin leaks
// (the GC finds it unreleased), its slot stays reserved for good, as its
// memory stays mapped (package pin quarantines it).
func (e *Entry) Slot() int { return e.slot }

// Tensor returns the entry's tensor (u8 over the whole region). It is owned
// by the entry: do not close it; it is valid while a reference is held.
func (e *Entry) Tensor() *tensor.Tensor { return e.tensor }

// Pin returns the entry's pin over the region. Clone it to keep the address
// (and the slot number, see Slot) beyond the entry's life.
func (e *Entry) Pin() *pin.HostPin { return &e.pin }

// Live reports whether the entry is still in its cache.
func (e *Entry) Live() bool { return !e.dead.Load() }

// Acquire takes a reference for a frame; false if the entry was already
// freed (then take the miss path).
func (e *Entry) Acquire() bool {
	for {
		n := e.refs.Load()
		if n <= 0 {
			return false
		}
		if e.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// PlaneView is one plane of the frames whose memory is this entry's region,
// for one layout: what a frame hands the application. Tensor is lent (see
// tensor.Lend: the application cannot close, reshape or end brackets on
// it) and Pin is narrowed from the entry's pin (so its clones reserve the
// slot). Both belong to the entry until it is freed — never to a frame —
// so a pointer to them kept past a frame still names this region, or
// reads as released once the entry is gone; never another buffer.
type PlaneView struct {
	Tensor *tensor.Tensor
	Pin    pin.HostPin
	alias  *tensor.Tensor // the entry's own alias Tensor is lent from
}

// NewPlaneView makes the plane view with layout l (l.Offset from the start
// of the storage) and a pin over its extent, for the caller to give to
// SetViews. The caller holds a reference on e.
func (e *Entry) NewPlaneView(l tensor.Layout) (*PlaneView, error) {
	a, err := e.tensor.Alias(l)
	if err != nil {
		return nil, err
	}
	p, err := e.pin.Narrow(l.Offset-e.key.Offset, a.Geometry().Extent)
	if err != nil {
		a.Close()
		return nil, err
	}
	return &PlaneView{Tensor: a.Lend(), Pin: p.Move(), alias: a}, nil
}

func (v *PlaneView) close() {
	v.Pin.Release()
	v.alias.Close()
}

// SetViews makes views the entry's current Views for layout generation
// gen. The entry owns them (nil elements are skipped): it closes them, and
// every view it was given before, when it is freed. Same rules as Shaped.
func (e *Entry) SetViews(gen uint64, views []*PlaneView) {
	e.Shaped, e.Views = gen, views
	for _, v := range views {
		if v != nil && !slices.Contains(e.owned, v) {
			e.owned = append(e.owned, v)
		}
	}
}

// Release drops a reference; the last one closes the tensor and its views
// and releases the pin.
func (e *Entry) Release() {
	if e.refs.Add(-1) == 0 {
		for _, v := range e.owned {
			v.close()
		}
		e.owned, e.Views = nil, nil
		e.pin.Release()
		e.tensor.Close()
	}
}

// Stats are the cache's counters.
type Stats struct {
	Hits, Misses, Evictions, Entries uint64
}

// Cache is a bounded LRU of entries.
type Cache struct {
	mu      sync.Mutex
	max     int
	byKey   map[Key]*Entry
	head    *Entry // most recently used
	tail    *Entry
	slots   *Slots
	closed  bool
	hits    atomic.Uint64
	misses  atomic.Uint64
	evicted atomic.Uint64
}

// New returns a cache holding at most max entries (at least 1), with slot
// numbers of its own.
func New(max int) *Cache { return NewWithSlots(max, NewSlots()) }

// NewWithSlots returns a cache that takes its slot numbers from slots,
// which may outlive it: a sink that makes a new cache at every start keeps
// one Slots for its life, so a slot whose pins are still alive from an
// earlier run is never handed to another buffer (see Entry.Slot).
func NewWithSlots(max int, slots *Slots) *Cache {
	if max < 1 {
		max = 1
	}
	return &Cache{max: max, byKey: make(map[Key]*Entry, max), slots: slots}
}

// Hit records a hit found without Lookup (the qdata fast path) and marks the
// entry most recently used. It returns false, recording nothing, if the entry
// belongs to another cache, is no longer in this one or cannot be acquired;
// on true the caller holds a reference.
func (c *Cache) Hit(e *Entry) bool {
	if e == nil || e.owner != c || e.dead.Load() || !e.Acquire() {
		return false
	}
	c.mu.Lock()
	if e.dead.Load() {
		c.mu.Unlock()
		e.Release()
		return false
	}
	c.moveFront(e)
	c.mu.Unlock()
	c.hits.Add(1)
	return true
}

// Lookup returns the entry for key with a reference taken, or nil.
func (c *Cache) Lookup(key Key) *Entry {
	c.mu.Lock()
	e := c.byKey[key]
	if e != nil && e.Acquire() {
		c.moveFront(e)
		c.mu.Unlock()
		c.hits.Add(1)
		return e
	}
	c.mu.Unlock()
	return nil
}

// Insert imports fd's region [key.Offset, key.Offset+key.Size) (dup'ing fd:
// the caller keeps its own), maps and pins it, and adds it, evicting the
// least recently used entry when full. The returned entry carries a reference
// for the caller. If another goroutine inserted the same key meanwhile, that
// entry is returned instead.
func (c *Cache) Insert(fd int, key Key) (*Entry, error) {
	c.misses.Add(1)
	t, err := tensor.ImportFD(fd, tensor.Layout{DType: tensor.U8, Shape: []int{key.Size}, Offset: key.Offset})
	if err != nil {
		return nil, err
	}
	if t.Identity() != key.ID {
		t.Close()
		return nil, fmt.Errorf("pincache: fd %d is %v, key says %v", fd, t.Identity(), key.ID)
	}
	e := &Entry{key: key, tensor: t, owner: c, slot: -1}
	inner, err := t.PinHost()
	if err != nil {
		t.Close()
		return nil, err
	}
	// The entry's pin, and every clone of it, reference a keepalive of the
	// slot's own, whose release frees the slot and then the tensor's pin:
	// the slot number is reserved exactly as long as its address is. A
	// memory keepalive, so a leaked clone keeps both (see Slot).
	lease := &slotLease{slots: c.slots, slot: -1, pin: inner.Move()}
	keep := pin.NewMemoryKeepalive(fmt.Sprintf("pin cache entry %v+%d (%d bytes)", key.ID, key.Offset, key.Size), key.Size, lease.release)
	e.pin, err = pin.New(lease.pin.Pointer(), lease.pin.Len(), keep)
	keep.Release() // the creator's reference: the entry's pin holds the keepalive now
	if err != nil {
		t.Close()
		return nil, err
	}
	e.refs.Store(2) // the cache's and the caller's
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			e.refs.Store(1)
			e.Release()
			return nil, ErrCacheClosed
		}
		if old := c.byKey[key]; old != nil && old.Acquire() {
			c.moveFront(old)
			c.mu.Unlock()
			e.refs.Store(1)
			e.Release()
			return old, nil
		}
		if len(c.byKey) < c.max {
			e.slot = c.slots.take()
			lease.slot = e.slot
			c.byKey[key] = e
			c.pushFront(e)
			c.mu.Unlock()
			return e, nil
		}
		var victims []*Entry
		for len(c.byKey) >= c.max {
			victims = append(victims, c.removeLocked(c.tail))
			c.evicted.Add(1)
		}
		c.mu.Unlock()
		// Outside the lock (munmap, close). A victim nothing else holds frees
		// its slot here, before the new entry takes one, so an unreferenced
		// evicted entry's slot goes to the entry that evicted it.
		for _, v := range victims {
			v.Release()
		}
	}
}

// Clear evicts every entry (caps change, flush of a new stream). Frames
// still holding entries keep them until they release.
func (c *Cache) Clear() {
	c.mu.Lock()
	var victims []*Entry
	for c.tail != nil {
		victims = append(victims, c.removeLocked(c.tail))
	}
	c.mu.Unlock()
	for _, v := range victims {
		v.Release()
	}
}

// Close clears the cache and refuses further inserts.
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.Clear()
}

// ReadStats returns hits, misses, evictions and the current entry count.
func (c *Cache) ReadStats() Stats {
	c.mu.Lock()
	n := len(c.byKey)
	c.mu.Unlock()
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evicted.Load(), Entries: uint64(n)}
}

// Slots hands out slot numbers, lowest free first. It has its own lock:
// slots are freed by pin keepalives, from whatever goroutine releases the
// last clone, outside any cache's lock.
type Slots struct {
	mu   sync.Mutex
	used []bool
}

// NewSlots returns an empty slot table.
func NewSlots() *Slots { return &Slots{} }

// InUse counts the slot numbers taken (by live entries, or by pins that
// outlive theirs).
func (st *Slots) InUse() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := 0
	for _, u := range st.used {
		if u {
			n++
		}
	}
	return n
}

func (st *Slots) take() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i, used := range st.used {
		if !used {
			st.used[i] = true
			return i
		}
	}
	st.used = append(st.used, true)
	return len(st.used) - 1
}

func (st *Slots) free(i int) {
	st.mu.Lock()
	st.used[i] = false
	st.mu.Unlock()
}

// slotLease is what a slot's keepalive releases: the slot number and the
// tensor's pin under the entry's. It refers to the slot table, never to the
// entry, its cache or its keepalive, so the leak safety net can run.
type slotLease struct {
	slots *Slots
	slot  int // -1 until the entry is published; set under the cache lock
	pin   pin.HostPin
}

func (l *slotLease) release() {
	l.pin.Release() // the mapping goes with the last pin on it
	if l.slot >= 0 {
		l.slots.free(l.slot) // then the number that named it
	}
}

// removeLocked unlinks e and marks it dead; the caller releases the cache's
// reference outside the lock. The slot stays taken until the entry's pin
// keepalive is released (see Entry.Slot).
func (c *Cache) removeLocked(e *Entry) *Entry {
	c.unlink(e)
	delete(c.byKey, e.key)
	e.dead.Store(true)
	return e
}

func (c *Cache) unlink(e *Entry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

func (c *Cache) pushFront(e *Entry) {
	e.next = c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *Cache) moveFront(e *Entry) {
	if c.head == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}
