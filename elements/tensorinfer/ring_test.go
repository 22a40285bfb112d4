package tensorinfer

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// fakeRing is a ring of n slots of one output tensor each, with no
// memory behind them: enough for the order take hands slots out in.
func fakeRing(n int) *ring {
	r := &ring{freed: make(chan struct{}, 1), stats: &counters{}}
	for i := range n {
		r.slots = append(r.slots, &outSlot{idx: i, tensors: []*outTensor{{held: true}}})
	}
	return r
}

// push marks sl's memories downstream, as run does once it pushes.
func (r *ring) fakePush(sl *outSlot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ot := range sl.tensors {
		ot.out, ot.held = true, false
	}
	sl.pending = len(sl.tensors)
}

// fakeReturn is the last holder dropping sl's memories.
func (r *ring) fakeReturn(t *testing.T, sl *outSlot) {
	t.Helper()
	for k := range sl.tensors {
		if !r.onReturn(sl.idx*capslayout.MaxTensors+k, 0) {
			t.Fatalf("slot %d memory %d: onReturn did not keep it", sl.idx, k)
		}
	}
}

func takeIdx(t *testing.T, r *ring) int {
	t.Helper()
	sl := r.take()
	if sl == nil {
		t.Fatal("take: no free slot")
	}
	return sl.idx
}

// The output ring hands out the slot returned last first (cache-hot, as
// tensorsrc's ring and the proposed pool), never one still downstream,
// and never-used slots after every returned one, lowest index first. On
// the round-robin order it had, the third take below gave slot 2.
func TestRingTakesSlotReturnedLast(t *testing.T) {
	r := fakeRing(4)
	if a, b := takeIdx(t, r), takeIdx(t, r); a != 0 || b != 1 {
		t.Fatalf("first takes %d, %d; want the never-used slots 0, 1", a, b)
	}
	r.fakePush(r.slots[0])
	r.fakePush(r.slots[1])
	r.fakeReturn(t, r.slots[0])
	if got := takeIdx(t, r); got != 0 {
		t.Fatalf("after slot 0 came back (slot 1 held): took %d, want 0", got)
	}
	r.fakePush(r.slots[0])
	r.fakeReturn(t, r.slots[0])
	// Slot 1 is still held: never handed out.
	for range 3 {
		got := takeIdx(t, r)
		if got != 0 {
			t.Fatalf("took %d, want slot 0 again (returned last; slot 1 held)", got)
		}
		r.give(r.slots[0]) // a failed run gives it back: free again, first
	}
	// Every free slot taken: slot 0, then the never-used 2 and 3; slot 1
	// (held) never.
	var got []int
	for sl := r.take(); sl != nil; sl = r.take() {
		got = append(got, sl.idx)
	}
	if len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("took %v with slot 1 held; want [0 2 3]", got)
	}
	// Returned 3, then 1, then 2: handed out 2, 1, 3.
	for _, i := range []int{3, 1, 2} {
		if i != 1 {
			r.fakePush(r.slots[i])
		}
		r.fakeReturn(t, r.slots[i])
	}
	for _, want := range []int{2, 1, 3} {
		if got := takeIdx(t, r); got != want {
			t.Fatalf("took %d, want %d (returned last first)", got, want)
		}
	}
	if sl := r.take(); sl != nil {
		t.Fatalf("took slot %d with every slot busy", sl.idx)
	}
}

// A returning memory's write bracket is left before its slot is free:
// the slot is not handed out (it would be, first) while its END is under
// way, so the next frame opens a bracket of its own instead of joining
// the one being left.
func TestRingFreesSlotAfterItsBracketEnds(t *testing.T) {
	r := fakeRing(2)
	tn, err := tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{64}}, tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	sl := r.take()
	sl.tensors[0].t = tn
	if _, err := tn.BeginCPUAccess(tensor.AccessReadWrite); err != nil {
		t.Fatal(err)
	}
	sl.tensors[0].open = true
	r.fakePush(sl)
	if r.take() == nil { // the never-used slot 1: only sl can be free below
		t.Fatal("no second slot")
	}
	var during *outSlot
	hooked := false
	r.endWriteHook = func() {
		hooked = true
		during = r.take()
	}
	r.fakeReturn(t, sl)
	if !hooked {
		t.Fatal("the return left no write bracket")
	}
	if during != nil {
		t.Fatalf("slot %d was handed out while its memory's write bracket was being left", during.idx)
	}
	if got := r.take(); got != sl {
		t.Fatalf("after the return took %v, want slot %d", got, sl.idx)
	}
	if st := r.stats.outBracketsClosed.Load(); st != 1 {
		t.Fatalf("%d output brackets closed, want 1", st)
	}
}
