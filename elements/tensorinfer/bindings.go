package tensorinfer

import "github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"

// layoutsPerEntry bounds the layouts bound over one pinned memory: a
// producer whose video meta alternates between two offsets (two fields,
// a double-buffered region) runs both bound; a third layout replaces the
// one used least recently.
const layoutsPerEntry = 2

// bindKey is what one session input slot reads: a pinned memory (the pin
// cache's entry) at a frame's offset and row stride in it.
type bindKey struct {
	ent            *pincache.Entry
	offset, stride int
}

// inputBindings maps what is bound to the session's input slots, so
// that a binding lives exactly as long as the entry whose pin it clones:
// the session's slot numbers are the element's own (not the pin cache's:
// a memory may be bound with two layouts), handed out lowest free first
// and given back when a binding goes. Streaming thread only.
type inputBindings struct {
	bySlot []bindKey // ent nil: free
	slotOf map[bindKey]int
	// perEntry: the slots bound over an entry, least recently used first.
	perEntry map[*pincache.Entry][]int
}

func newInputBindings() *inputBindings {
	return &inputBindings{slotOf: map[bindKey]int{}, perEntry: map[*pincache.Entry][]int{}}
}

// find returns the slot bound to k, marking it the entry's most recently
// used. No allocation.
func (b *inputBindings) find(k bindKey) (int, bool) {
	slot, ok := b.slotOf[k]
	if ok {
		if s := b.perEntry[k.ent]; len(s) > 1 && s[len(s)-1] != slot {
			s[0], s[1] = s[1], s[0]
		}
	}
	return slot, ok
}

// replaced returns the slot a new layout over ent must unbind first (the
// entry's least recently used, when it has layoutsPerEntry), or -1.
func (b *inputBindings) replaced(ent *pincache.Entry) int {
	if s := b.perEntry[ent]; len(s) >= layoutsPerEntry {
		return s[0]
	}
	return -1
}

// take returns the lowest free slot number (not yet recorded).
func (b *inputBindings) take() int {
	for i, k := range b.bySlot {
		if k.ent == nil {
			return i
		}
	}
	b.bySlot = append(b.bySlot, bindKey{})
	return len(b.bySlot) - 1
}

// add records slot (from take) as bound to k.
func (b *inputBindings) add(slot int, k bindKey) {
	b.bySlot[slot] = k
	b.slotOf[k] = slot
	b.perEntry[k.ent] = append(b.perEntry[k.ent], slot)
}

// remove forgets slot's binding.
func (b *inputBindings) remove(slot int) {
	k := b.bySlot[slot]
	if k.ent == nil {
		return
	}
	delete(b.slotOf, k)
	s := b.perEntry[k.ent]
	for i, x := range s {
		if x == slot {
			s = append(s[:i], s[i+1:]...)
			break
		}
	}
	if len(s) == 0 {
		delete(b.perEntry, k.ent)
	} else {
		b.perEntry[k.ent] = s
	}
	b.bySlot[slot] = bindKey{}
}

// evicted appends to dst the slots bound over entries no longer in the
// pin cache.
func (b *inputBindings) evicted(dst []int) []int {
	for ent, s := range b.perEntry {
		if !ent.Live() {
			dst = append(dst, s...)
		}
	}
	return dst
}

// count is the number of bound slots.
func (b *inputBindings) count() int { return len(b.slotOf) }
