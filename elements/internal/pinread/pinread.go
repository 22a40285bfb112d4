// Package pinread is how tensorpinsink and tensorinfer read an input
// buffer's memory through their pin cache, one implementation for both:
// the entry of a memory found by its qdata, by its fd's identity or by a new
// import, the qdata value that names the entry on every memory that
// carries it, and the element's own pinned memory that a buffer which
// is not fd memory is copied into; and the part of an ALLOCATION query
// both answer alike (ReadProposal). The frame engines (frameengine's
// inputread.h) find the memories again by that qdata, without Go.
package pinread

import (
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Reader is one run's reading: its cache, its qdata key, what the
// element calls around an insert (which may evict), and the noun its
// errors use ("buffer", "input").
type Reader struct {
	Cache *pincache.Cache
	Qkey  gstglue.QdataKey
	Noun  string
	// Hooks run around every insert (nil: none).
	Hooks InsertHooks
}

// InsertHooks are what an element does around an insert, which may
// evict: its engine's table tells the cache what it used, then lets go
// of what the insert evicted.
type InsertHooks interface {
	BeforeInsert()
	AfterInsert()
}

// EntryForMemory finds the pinned entry of memory i of the view, with a
// reference the caller releases: through its qdata (read with the view:
// no syscall), else by the fd's identity, else by importing it (isNew).
// Either way the memory then carries the entry's qdata value, made once
// per entry: a producer that wraps its dma-bufs in new GstMemory every
// frame costs an fstat per frame, no allocation.
func (r *Reader) EntryForMemory(v *gstglue.BufferView, i int) (e *pincache.Entry, isNew bool, err error) {
	off, size := v.MemOffset(i), v.MemSize(i)
	if q, ok := v.MemQdata(i); ok {
		if e, _ := q.(*pincache.Entry); e != nil && e.Key().Offset == off && e.Key().Size == size && r.Cache.Hit(e) {
			return e, false, nil
		}
	}
	fd := v.MemFD(i)
	if fd < 0 {
		return nil, false, gstglue.Fail(gstglue.ResourceRead, "%s memory has no usable fd (fd %d)", r.Noun, fd)
	}
	id, err := tensor.IdentityOf(fd)
	if err != nil {
		return nil, false, gstglue.Fail(gstglue.ResourceRead, "%s memory has no usable fd: %v", r.Noun, err)
	}
	key := pincache.Key{ID: id, Offset: off, Size: size}
	if e := r.Cache.Lookup(key); e != nil {
		r.Qkey.SetShared(v.Memory(i), QdataValue(e))
		return e, false, nil
	}
	e, err = r.insert(fd, key)
	if err != nil {
		return nil, false, gstglue.Fail(gstglue.ResourceRead, "cannot import and pin the %s's fd %d: %v", r.Noun, fd, err)
	}
	r.Qkey.SetShared(v.Memory(i), QdataValue(e))
	return e, true, nil
}

func (r *Reader) insert(fd int, key pincache.Key) (*pincache.Entry, error) {
	if r.Hooks != nil {
		r.Hooks.BeforeInsert()
	}
	e, err := r.Cache.Insert(fd, key)
	if r.Hooks != nil {
		r.Hooks.AfterInsert()
	}
	return e, err
}

// OwnEntry returns the pinned entry (a reference the caller releases)
// of *own, the element's memfd tensor that buffers which are not fd
// memory are copied into, first made (or remade larger) to hold size
// bytes; isNew when it was pinned now.
func (r *Reader) OwnEntry(own **tensor.Tensor, size int, name string) (e *pincache.Entry, isNew bool, err error) {
	t := *own
	if t == nil || t.Capacity() < size {
		if t != nil {
			// Its entry stays pinned until the cache evicts it.
			t.Close()
			*own = nil
		}
		t, err = tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{size}},
			tensor.AllocOptions{Source: tensor.SourceMemfd, Name: name})
		if err != nil {
			return nil, false, gstglue.Fail(gstglue.ResourceNoSpaceLeft, "cannot allocate pinned memory for a copied %s: %v", r.Noun, err)
		}
		*own = t
	}
	key := pincache.Key{ID: t.Identity(), Size: t.Capacity()}
	if e = r.Cache.Lookup(key); e != nil {
		return e, false, nil
	}
	if e, err = r.insert(t.FD(), key); err != nil {
		return nil, false, gstglue.Fail(gstglue.ResourceRead, "cannot pin the element's own memory: %v", err)
	}
	return e, true, nil
}

// QdataValue returns e's qdata value, registering it on first use; it
// is unregistered when the entry is freed.
func QdataValue(e *pincache.Entry) gstglue.QdataValue {
	if t := e.Tag(); t != 0 {
		return gstglue.QdataValue(t)
	}
	v := gstglue.NewQdataValue(e)
	e.SetTag(uintptr(v), freeQdataValue)
	return v
}

func freeQdataValue(t uintptr) { gstglue.QdataValue(t).Free() }
