package pincache

import (
	"errors"
	"fmt"
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
	// sets are the views of the region the entry keeps for its user, one
	// set per layout, most recently used first (see ViewSet). Only the
	// cache's user touches them, from its single streaming thread, while
	// holding a reference.
	sets  [MaxViewSets]*ViewSet
	nsets int
	// tag is the user's value made once per entry (SetTag), freed by
	// freeTag when the entry is.
	tag     uintptr
	freeTag func(uintptr)
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

// Tag returns the value SetTag installed (0 if none).
func (e *Entry) Tag() uintptr { return e.tag }

// SetTag installs a value of the user's, made once for the entry (the
// sink's qdata handle for it), and the function that frees it: called once,
// when the entry is freed (its last reference, any goroutine). Same rules as
// the view sets: the user's streaming thread, holding a reference.
func (e *Entry) SetTag(tag uintptr, free func(uintptr)) {
	if e.freeTag != nil {
		e.freeTag(e.tag)
	}
	e.tag, e.freeTag = tag, free
}

// MaxViewSets bounds the view sets an entry keeps: a producer that
// alternates between a few layouts (a GstVideoMeta that flips every frame)
// finds its views again instead of making new ones; a set pushed out is
// closed as soon as no frame uses it.
const MaxViewSets = 4

// ViewSet is one layout's views of an entry's region: one PlaneView per
// frame plane that lies in the region (nil for planes elsewhere). Gen
// names the layout; the user also checks the views' offsets. A set is
// reference counted: the entry holds one reference while it keeps the set,
// and each frame using its views holds one (Use, Release); the last
// reference closes the views. Views must not be changed once the set is
// added.
type ViewSet struct {
	Gen   uint64
	Views []*PlaneView
	refs  atomic.Int32
}

// Release drops a frame's reference (taken by Entry.UseViews or
// Entry.AddViews); the last reference closes the views. Any goroutine.
func (vs *ViewSet) Release() {
	if vs.refs.Add(-1) == 0 {
		for _, v := range vs.Views {
			if v != nil {
				v.Close()
			}
		}
	}
}

// PlaneView is one plane of the frames whose memory is an entry's region,
// for one layout: what a frame hands the application. Tensor is lent (see
// tensor.Lend: the application cannot close, reshape or end brackets on
// it) and Pin is narrowed from the entry's pin (so its clones reserve the
// slot). Both belong to the view set — never to a frame — so a pointer to
// them kept past a frame still names this region, or reads as released
// once the set is closed; never another buffer (a set is never reused).
type PlaneView struct {
	Tensor *tensor.Tensor
	Pin    pin.HostPin
	alias  *tensor.Tensor // the entry's own alias Tensor is lent from
}

// NewPlaneView makes the plane view with layout l (l.Offset from the start
// of the storage) and a pin over its extent, for the caller to give to
// AddViews. The caller holds a reference on e.
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

// Close releases a view that was never given to AddViews (a set closes its own).
func (v *PlaneView) Close() {
	v.Pin.Release()
	v.alias.Close()
}

// ViewSets returns the sets the entry keeps, most recently used first.
// The slice is the entry's own (no allocation): do not keep or change it.
func (e *Entry) ViewSets() []*ViewSet { return e.sets[:e.nsets] }

// UseViews takes a frame's reference on vs, one of ViewSets(), and makes
// it the most recently used.
func (e *Entry) UseViews(vs *ViewSet) {
	vs.refs.Add(1)
	for i := 0; i < e.nsets; i++ {
		if e.sets[i] == vs {
			copy(e.sets[1:i+1], e.sets[:i])
			e.sets[0] = vs
			return
		}
	}
}

// AddViews makes views (owned by the entry from now on) a new set for
// layout gen, the most recently used, and returns it with a frame's
// reference taken. Beyond MaxViewSets the least recently used set is let
// go: closed now if no frame uses it, else when the last one releases it.
func (e *Entry) AddViews(gen uint64, views []*PlaneView) *ViewSet {
	vs := &ViewSet{Gen: gen, Views: views}
	vs.refs.Store(2) // the entry's and the caller's
	if e.nsets == MaxViewSets {
		e.nsets--
		old := e.sets[e.nsets]
		e.sets[e.nsets] = nil
		old.Release()
	}
	copy(e.sets[1:e.nsets+1], e.sets[:e.nsets])
	e.sets[0] = vs
	e.nsets++
	return vs
}

// Release drops a reference; the last one closes the tensor and its views
// and releases the pin.
func (e *Entry) Release() {
	if e.refs.Add(-1) == 0 {
		for i := 0; i < e.nsets; i++ {
			e.sets[i].Release() // frames using a set released it before the entry
			e.sets[i] = nil
		}
		e.nsets = 0
		if e.freeTag != nil {
			e.freeTag(e.tag)
			e.tag, e.freeTag = 0, nil
		}
		e.pin.Release()
		e.tensor.Close()
	}
}

// Stats are the cache's counters. Max is the current bound (New's, raised
// by Grow and by learning, see AutoGrow); Grown counts the times learning
// raised it.
type Stats struct {
	Hits, Misses, Evictions, Entries uint64
	Max, Grown                       uint64
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
	// Learning (AutoGrow): the keys of the last evicted entries (a ring of
	// up to max keys, under mu); a miss on one of them means the
	// producer's working set is larger than max, and max grows by one, up
	// to growLimit.
	growLimit int
	ghosts    []Key
	ghostNext int
	grown     atomic.Uint64
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

// Grow raises the bound to n (it never lowers it).
func (c *Cache) Grow(n int) {
	c.mu.Lock()
	c.max = max(c.max, n)
	c.mu.Unlock()
}

// AutoGrow makes the cache learn its size, up to limit: when it misses a
// buffer it evicted earlier (it remembers the last max evicted keys), the
// producer cycles through more buffers than the cache holds — a camera
// or a pool with more buffers than the bound — and, without growing,
// would evict (munmap) and import (mmap) one buffer per frame for ever;
// so the bound grows by one for each such miss. Buffers that never come
// back (a producer allocating new memory per frame) do not grow it.
// Growth is counted in Stats.Grown.
func (c *Cache) AutoGrow(limit int) {
	c.mu.Lock()
	c.growLimit = limit
	c.mu.Unlock()
}

// learnLocked is Insert's miss on key: grow if key was evicted lately.
func (c *Cache) learnLocked(key Key) {
	if c.max >= c.growLimit {
		return
	}
	for i, g := range c.ghosts {
		if g == key {
			// Forget it (so one buffer grows the bound once) and grow.
			last := len(c.ghosts) - 1
			c.ghosts[i] = c.ghosts[last]
			c.ghosts = c.ghosts[:last]
			c.ghostNext = 0
			c.max++
			c.grown.Add(1)
			return
		}
	}
}

// rememberLocked records an evicted key for learnLocked.
func (c *Cache) rememberLocked(key Key) {
	if c.growLimit <= c.max {
		return
	}
	if len(c.ghosts) < c.max {
		c.ghosts = append(c.ghosts, key)
		return
	}
	c.ghosts[c.ghostNext%len(c.ghosts)] = key
	c.ghostNext = (c.ghostNext + 1) % len(c.ghosts)
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

// Touch marks e most recently used, as a hit does, without counting a
// hit or taking a reference: for frames that used e without asking the
// cache (the frame engines, in C). Nothing if e is not in this
// cache.
func (c *Cache) Touch(e *Entry) {
	if e == nil || e.owner != c {
		return
	}
	c.mu.Lock()
	if !e.dead.Load() {
		c.moveFront(e)
	}
	c.mu.Unlock()
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
	learnt := false
	for {
		c.mu.Lock()
		if !learnt {
			c.learnLocked(key)
			learnt = true
		}
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
			v := c.removeLocked(c.tail)
			c.rememberLocked(v.key)
			victims = append(victims, v)
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
	m := c.max
	c.mu.Unlock()
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evicted.Load(), Entries: uint64(n),
		Max: uint64(m), Grown: c.grown.Load()}
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
