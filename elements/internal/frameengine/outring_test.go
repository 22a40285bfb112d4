package frameengine

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// testOutRing is an OutRing of n slots of one memfd tensor each (a
// stand-in for tensorinfer's dma-heap outputs: same ring, no SYNC
// ioctls), each wrapped as a ring memory as tensorinfer does.
type testOutRing struct {
	*OutRing
	tensors  []*tensor.Tensor
	released atomic.Int32 // memories freed (their tensors closed)
}

func newTestOutRing(t *testing.T, n int) *testOutRing {
	t.Helper()
	checkFds(t)
	cc := NewCounters()
	t.Cleanup(cc.Unref)
	r := &testOutRing{}
	r.OutRing = NewOutRing(cc, EndTally{})
	for i := range n {
		ot, tn := wrapOutTensor(t, r.OutRing, 64, i*MaxOutTensors, &r.released)
		if got, err := r.AddSlot([]OutTensor{ot}); err != nil || got != i {
			t.Fatalf("AddSlot = %d, %v; want %d", got, err, i)
		}
		r.tensors = append(r.tensors, tn)
	}
	t.Cleanup(func() {
		r.Close()
		// A slot the test still holds keeps its memory until given back.
		for i := range n {
			r.Give(i)
		}
	})
	return r
}

// wrapOutTensor allocates a memfd tensor of size bytes and wraps it as
// memory id of ring r; its release counts into released (if not nil)
// and closes the tensor.
func wrapOutTensor(t *testing.T, r *OutRing, size, id int, released *atomic.Int32) (OutTensor, *tensor.Tensor) {
	t.Helper()
	tn, err := tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{size}}, tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Wrap(false, tn.FD(), size, id, func() {
		if released != nil {
			released.Add(1)
		}
		tn.Close()
	})
	if err != nil {
		tn.Close()
		t.Fatal(err)
	}
	ident := tn.Identity()
	return OutTensor{Mem: m, Tensor: tn, Dev: ident.Dev, Ino: ident.Ino}, tn
}

// push hands slot's memory downstream and returns it (the caller's
// reference: its unref is the memory's return).
func (r *testOutRing) push(t *testing.T, slot int) gstglue.RawMemory {
	t.Helper()
	var rest [MaxOutTensors - 1]gstglue.RawMemory
	m, n := r.Push(slot, &rest)
	if n != 1 || m.IsNil() {
		t.Fatalf("Push(%d) = %v, %d tensors", slot, m, n)
	}
	return m
}

func (r *testOutRing) mustTake(t *testing.T) int {
	t.Helper()
	i := r.Take()
	if i < 0 {
		t.Fatal("Take: no free slot")
	}
	return i
}

// The output ring hands out the slot returned last first (cache-hot, as
// tensorsrc's ring and the proposed pool), never one still downstream,
// and never-used slots after every returned one, lowest index first.
func TestOutRingTakesSlotReturnedLast(t *testing.T) {
	r := newTestOutRing(t, 4)
	if a, b := r.mustTake(t), r.mustTake(t); a != 0 || b != 1 {
		t.Fatalf("first takes %d, %d; want the never-used slots 0, 1", a, b)
	}
	m0, m1 := r.push(t, 0), r.push(t, 1)
	UnrefRingMemory(m0) // slot 0 comes back; slot 1 stays downstream
	if got := r.mustTake(t); got != 0 {
		t.Fatalf("after slot 0 came back (slot 1 held): took %d, want 0", got)
	}
	UnrefRingMemory(r.push(t, 0))
	for range 3 {
		if got := r.mustTake(t); got != 0 {
			t.Fatalf("took %d, want slot 0 again (returned last; slot 1 held)", got)
		}
		r.Give(0) // a failed run gives it back: free again, first
	}
	var got []int
	for i := r.Take(); i >= 0; i = r.Take() {
		got = append(got, i)
	}
	if len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("took %v with slot 1 downstream; want [0 2 3]", got)
	}
	// Returned 3, then 1, then 2: handed out 2, 1, 3.
	m3, m2 := r.push(t, 3), r.push(t, 2)
	UnrefRingMemory(m3)
	UnrefRingMemory(m1)
	UnrefRingMemory(m2)
	for _, want := range []int{2, 1, 3} {
		if got := r.mustTake(t); got != want {
			t.Fatalf("took %d, want %d (returned last first)", got, want)
		}
	}
	if i := r.Take(); i >= 0 {
		t.Fatalf("took slot %d with every slot busy", i)
	}
}

// The application's wait for a free slot (tensorsrc pattern=app's
// Acquire) waits in C on a wake of its own: several threads wait at
// once, each free wakes one of them with the slot (a free calls no Go),
// and an interrupt ends the waits that began before it — not a wait
// that reads the generation after it.
func TestOutRingTakeUntilInterrupted(t *testing.T) {
	r := newTestOutRing(t, 2)
	w := NewWake()
	defer w.Unref()
	r.SetWake(w)
	a, b := r.mustTake(t), r.mustTake(t)
	gen := w.Gen()
	got := make(chan int, 3)
	for range 3 {
		go func() { got <- r.TakeUntilInterrupted(w, gen) }()
	}
	if !awaitWaiters(t, w, 3) {
		t.FailNow()
	}
	ma, mb := r.push(t, a), r.push(t, b)
	UnrefRingMemory(ma)
	UnrefRingMemory(mb)
	took := map[int]bool{}
	for range 2 {
		select {
		case i := <-got:
			if i < 0 || took[i] {
				t.Fatalf("a waiter got %d (already: %v) when slots %d and %d came back", i, took, a, b)
			}
			took[i] = true
		case <-time.After(10 * time.Second):
			t.Fatal("two slots came back and a waiter still waits")
		}
	}
	if !awaitWaiters(t, w, 1) {
		t.FailNow()
	}
	w.Interrupt()
	select {
	case i := <-got:
		if i != -1 {
			t.Fatalf("the interrupted wait returned %d, want -1", i)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Interrupt did not end the wait")
	}
	// A wait that read the generation after the interrupt is not ended by
	// it; nor is a wait with no ring by anything but the next interrupt.
	for _, i := range []int{a, b} {
		r.Give(i)
	}
	if i := r.TakeUntilInterrupted(w, w.Gen()); i < 0 {
		t.Fatalf("a wait begun after the interrupt, with a slot free, returned %d", i)
	}
	done := make(chan int, 1)
	gen = w.Gen()
	go func() { done <- (*OutRing)(nil).TakeUntilInterrupted(w, gen) }()
	if !awaitWaiters(t, w, 1) {
		t.FailNow()
	}
	w.Interrupt()
	if i := <-done; i != -1 {
		t.Fatalf("a wait with no ring returned %d at the interrupt", i)
	}
}

// A slot of two tensors whose first memory came back before the close
// and whose second after it (tensorinfer's several outputs, a stop or a
// new ring while a frame is partly downstream): both memories are freed.
func TestOutRingCloseFreesAPartlyReturnedSlot(t *testing.T) {
	checkFds(t)
	cc := NewCounters()
	t.Cleanup(cc.Unref)
	r := NewOutRing(cc, EndTally{})
	var released atomic.Int32
	var ots []OutTensor
	for k := range 2 {
		ot, _ := wrapOutTensor(t, r, 64, k, &released)
		ots = append(ots, ot)
	}
	if sl, err := r.AddSlot(ots); err != nil || sl != 0 {
		t.Fatalf("AddSlot = %d, %v", sl, err)
	}
	if sl := r.Take(); sl != 0 {
		t.Fatalf("took %d, want slot 0", sl)
	}
	var rest [MaxOutTensors - 1]gstglue.RawMemory
	m0, n := r.Push(0, &rest)
	if n != 2 {
		t.Fatalf("pushed %d memories, want 2", n)
	}
	UnrefRingMemory(m0) // back: the ring's again, the slot still busy
	r.Close()
	UnrefRingMemory(rest[0])
	if got := released.Load(); got != 2 {
		t.Fatalf("%d of 2 memories freed after the close and the last return (the first one's tensor leaked)", got)
	}
}

// A returning memory's write bracket is left before its slot is free:
// the slot is not handed out (it would be, first) while its END is under
// way, so the next frame opens a bracket of its own instead of joining
// the one being left.
func TestOutRingFreesSlotAfterItsBracketEnds(t *testing.T) {
	r := newTestOutRing(t, 2)
	before := tensor.ReadStats()
	sl := r.mustTake(t)
	if err := r.OpenWrites(sl); err != nil {
		t.Fatal(err)
	}
	if a, open := tensor.OpenBracket(r.tensors[sl].Identity()); !open || a != tensor.AccessReadWrite {
		t.Fatalf("after OpenWrites the bracket is %v (open %v), want readwrite", a, open)
	}
	m := r.push(t, sl)
	if r.mustTake(t) == sl { // the never-used slot: only sl can be free below
		t.Fatal("took the slot that is downstream")
	}
	outRingProbe(true)
	defer outRingProbe(false)
	UnrefRingMemory(m)
	calls, word, during := outRingProbed()
	if calls != 1 {
		t.Fatalf("the return left %d write brackets, want 1", calls)
	}
	if word != 0 {
		t.Fatalf("between the END and the free the bracket word was %#x, want closed (0)", word)
	}
	if during >= 0 {
		t.Fatalf("slot %d was handed out while its memory's write bracket was being left", during)
	}
	if got := r.Take(); got != sl {
		t.Fatalf("after the return took %d, want slot %d", got, sl)
	}
	if _, open := tensor.OpenBracket(r.tensors[sl].Identity()); open {
		t.Fatal("the bracket is still open after the return")
	}
	after := tensor.ReadStats()
	if o, c := after.BracketsOpened-before.BracketsOpened, after.BracketsClosed-before.BracketsClosed; o != 1 || c != 1 {
		t.Fatalf("package tensor counted %d brackets opened and %d closed, want 1 and 1", o, c)
	}
}

// A resize downstream (gst_buffer_resize) shrinks a frame's memories in
// place, and the same objects come back to the ring: the slot's next push
// hands out every memory whole again — the second as well as the first,
// which gstc_ring_frame_new restores on its own — for tensorinfer's Go
// frame and its C frame alike, which both take the memories from Push.
func TestOutRingPushRestoresEveryMemory(t *testing.T) {
	checkFds(t)
	const size = 64
	cc := NewCounters()
	t.Cleanup(cc.Unref)
	r := NewOutRing(cc, EndTally{})
	var ots []OutTensor
	for k := range 2 {
		ot, _ := wrapOutTensor(t, r, size, k, nil)
		ots = append(ots, ot)
	}
	if sl, err := r.AddSlot(ots); err != nil || sl != 0 {
		t.Fatalf("AddSlot = %d, %v", sl, err)
	}
	t.Cleanup(func() {
		r.Close()
	})

	push := func(what string) (gstglue.RawMemory, gstglue.RawMemory) {
		t.Helper()
		if sl := r.Take(); sl != 0 {
			t.Fatalf("%s: took slot %d, want 0", what, sl)
		}
		var rest [MaxOutTensors - 1]gstglue.RawMemory
		first, n := r.Push(0, &rest)
		if n != 2 {
			t.Fatalf("%s: Push gave %d memories, want 2", what, n)
		}
		return first, rest[0]
	}
	m0, m1 := push("first frame")
	// The frame's buffer as tensorinfer makes it; downstream trims 8 bytes
	// off the front and 20 off the end, in place (it holds the buffer's
	// only reference, so GStreamer resizes the memories, not shares).
	buf := NewFrameBuffer(m0, gstglue.ClockTimeNone, gstglue.ClockTimeNone, 0, tensorsync.Info{}, false)
	gstglue.AppendRawMemory(buf, m1)
	gst.ToGstBuffer(buf.Unsafe()).Resize(8, 2*size-28)
	if p := gstglue.PeekMemory(buf, 1); p != m1 || m1.Size() != size-20 || m0.Offset() != 8 || m0.Size() != size-8 {
		t.Fatalf("the resize did not shrink the frame's own memories in place: memory 0 offset %d size %d, memory 1 size %d (same object %v)",
			m0.Offset(), m0.Size(), m1.Size(), p == m1)
	}
	gstglue.UnrefRawBuffer(buf) // both memories come back; the slot is free

	n0, n1 := push("next frame of the slot")
	buf = NewFrameBuffer(n0, gstglue.ClockTimeNone, gstglue.ClockTimeNone, 1, tensorsync.Info{}, false)
	gstglue.AppendRawMemory(buf, n1)
	defer gstglue.UnrefRawBuffer(buf)
	if n0 != m0 || n1 != m1 {
		t.Fatal("the slot's next push handed out other memories")
	}
	for k := range 2 {
		if m := gstglue.PeekMemory(buf, k); m.Offset() != 0 || m.Size() != size {
			t.Errorf("memory %d of the slot's next frame: offset %d, size %d; want 0, %d (its whole tensor)", k, m.Offset(), m.Size(), size)
		}
	}
}

// A slot taken when the ring closes is its taker's (tensorsrc's
// application may be writing it): the close leaves its memory — its
// tensor and its write bracket — alone, and the slot's give drops it,
// the bracket left first. A free slot's memory goes at the close.
func TestOutRingCloseLeavesATakenSlotToItsTaker(t *testing.T) {
	r := newTestOutRing(t, 2)
	sl := r.mustTake(t)
	if err := r.OpenWrites(sl); err != nil {
		t.Fatal(err)
	}
	id := r.tensors[sl].Identity()
	r.Close()
	if n := r.released.Load(); n != 1 {
		t.Fatalf("the close freed %d memories, want 1 (the free slot's)", n)
	}
	if _, open := tensor.OpenBracket(id); !open {
		t.Fatal("the close left the taken slot's write bracket")
	}
	if i := r.Take(); i >= 0 {
		t.Fatalf("took slot %d from a closed ring", i)
	}
	r.Give(sl)
	if _, open := tensor.OpenBracket(id); open {
		t.Fatal("the give did not leave the write bracket")
	}
	if n := r.released.Load(); n != 2 {
		t.Fatalf("%d memories freed after the give, want 2", n)
	}
}

// A slot added to a ring others wait on (a source that grows its ring)
// is its adder's: a waiter does not get it until the adder gives it
// back, and then does. The slot's index follows the others'.
func TestOutRingAddTakenSlotIsTheAddersUntilGiven(t *testing.T) {
	r := newTestOutRing(t, 1)
	w := NewWake()
	defer w.Unref()
	r.SetWake(w)
	held := r.mustTake(t)
	got := make(chan int, 1)
	gen := w.Gen()
	go func() { got <- r.TakeUntilInterrupted(w, gen) }()
	if !awaitWaiters(t, w, 1) {
		t.FailNow()
	}
	var released atomic.Int32
	ot, _ := wrapOutTensor(t, r.OutRing, 64, 1*MaxOutTensors, &released)
	i, err := r.AddTakenSlot([]OutTensor{ot})
	if err != nil || i != 1 {
		t.Fatalf("AddTakenSlot = %d, %v; want slot 1", i, err)
	}
	if n := r.Slots(); n != 2 {
		t.Fatalf("%d slots after the add, want 2", n)
	}
	if b := r.Busy(); b != 2 {
		t.Fatalf("%d busy slots, want 2 (slot %d taken, the added one its adder's)", b, held)
	}
	if j := r.Take(); j >= 0 {
		t.Fatalf("took slot %d: the added slot is its adder's", j)
	}
	select {
	case j := <-got:
		t.Fatalf("the waiter got slot %d before the adder gave it", j)
	default:
	}
	r.Give(i)
	if j := result(t, got, "wait for the given slot"); j != i {
		t.Fatalf("the waiter got %d, want the added slot %d", j, i)
	}
	r.Give(i)
	r.Give(held)
}

// The bounded waits for a slot end with -2 when the bound passes and no
// slot is free, with the slot when one comes back before it, and with
// -1 when a flag (the C frame's wait) or an interrupt (the
// application's) ends them first.
func TestOutRingBoundedWaits(t *testing.T) {
	r := newTestOutRing(t, 1)
	w := newTestWake(t)
	r.SetWake(w)
	sl := r.mustTake(t)
	if got := r.takeWaitingFor(w, 20*time.Millisecond); got != -2 {
		t.Fatalf("bounded wait with every slot busy = %d, want -2", got)
	}
	if w.Waiters() != 0 {
		t.Fatalf("%d waiters after the bounded wait returned", w.Waiters())
	}
	done := make(chan int, 1)
	go func() { done <- r.takeWaitingFor(w, time.Hour) }()
	if !awaitWaiters(t, w, 1) {
		t.FailNow()
	}
	UnrefRingMemory(r.push(t, sl))
	if got := result(t, done, "bounded wait, the slot back"); got != sl {
		t.Fatalf("bounded wait got %d when slot %d came back, want it", got, sl)
	}
	go func() { done <- r.takeWaitingFor(w, time.Hour) }()
	if !awaitWaiters(t, w, 1) {
		t.FailNow()
	}
	w.SetFlushing(true)
	if got := result(t, done, "bounded wait, flushing"); got != -1 {
		t.Fatalf("bounded wait ended by a flush = %d, want -1", got)
	}
	w.SetFlushing(false)

	a := NewWake()
	defer a.Unref()
	r.SetWake(a)
	if got, timedOut := r.TakeUntilInterruptedFor(a, a.Gen(), 20*time.Millisecond); got != -1 || !timedOut {
		t.Fatalf("TakeUntilInterruptedFor with every slot busy = %d, %v; want -1, timed out", got, timedOut)
	}
	type res struct {
		slot     int
		timedOut bool
	}
	app := make(chan res, 1)
	gen := a.Gen()
	go func() {
		i, to := r.TakeUntilInterruptedFor(a, gen, time.Hour)
		app <- res{i, to}
	}()
	if !awaitWaiters(t, a, 1) {
		t.FailNow()
	}
	a.Interrupt()
	if got := result(t, app, "interrupted bounded wait"); got.slot != -1 || got.timedOut {
		t.Fatalf("interrupted TakeUntilInterruptedFor = %+v, want -1, not timed out", got)
	}
	gen = a.Gen()
	go func() {
		i, to := r.TakeUntilInterruptedFor(a, gen, time.Hour)
		app <- res{i, to}
	}()
	if !awaitWaiters(t, a, 1) {
		t.FailNow()
	}
	r.Give(sl)
	if got := result(t, app, "bounded wait, slot given"); got.slot != sl || got.timedOut {
		t.Fatalf("TakeUntilInterruptedFor when slot %d was given = %+v", sl, got)
	}
	r.Give(sl)
}
