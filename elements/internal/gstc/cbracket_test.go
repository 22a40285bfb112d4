package gstc

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// C and Go share one bracket per buffer: a C join keeps a Go holder's
// bracket open after Go leaves, the last one out — on either side —
// closes it, and package tensor's counters count C's part. On a memfd
// (a stand-in: no SYNC ioctl; elements/integration's
// TestCBracketIoctlsOnDMAHeap counts them on a real dma-buf).
func TestCBracketSharesGoBrackets(t *testing.T) {
	tn, err := tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{64}}, tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	defer tn.Close()
	b, ok := NewCBracket(tn)
	if !ok {
		t.Fatal("a memfd tensor has no C bracket")
	}
	defer b.Free()
	id := tn.Identity()
	open := func() (tensor.Access, bool) { return tensor.OpenBracket(id) }
	before := tensor.ReadStats()

	if b.TryJoin(1) {
		t.Fatal("joined a closed bracket")
	}
	if left, _, _ := b.Leave(); left {
		t.Fatal("left a bracket no one was in")
	}
	// Go opens, C joins, Go leaves: C is still inside.
	if _, err := tn.BeginCPUAccess(tensor.AccessReadWrite); err != nil {
		t.Fatal(err)
	}
	if !b.TryJoin(1) {
		t.Fatal("C could not join Go's readwrite bracket for reading")
	}
	if closed, err := tn.EndCPUAccess(tensor.AccessReadWrite); err != nil || closed {
		t.Fatalf("Go's leave with C inside: closed %v, %v", closed, err)
	}
	if a, o := open(); !o || a != tensor.AccessReadWrite {
		t.Fatalf("with C inside the bracket is %v (open %v)", a, o)
	}
	if left, closed, err := b.Leave(); !left || !closed || err != nil {
		t.Fatalf("C's leave, the last: left %v closed %v %v", left, closed, err)
	}
	if _, o := open(); o {
		t.Fatal("open after the last one out")
	}
	// C opens, Go joins (no widening), C leaves, Go closes.
	if ok, err := b.TryEnter(1); !ok || err != nil {
		t.Fatalf("C's open: %v %v", ok, err)
	}
	if joined, err := tn.BeginCPUAccess(tensor.AccessRead); err != nil || !joined {
		t.Fatalf("Go's read on C's read bracket: joined %v, %v", joined, err)
	}
	if left, closed, _ := b.Leave(); !left || closed {
		t.Fatalf("C's leave with Go inside: left %v closed %v", left, closed)
	}
	if closed, err := tn.EndCPUAccess(tensor.AccessRead); err != nil || !closed {
		t.Fatalf("Go's leave, the last: closed %v, %v", closed, err)
	}
	// A bracket open for less: a join refuses it, an enter widens it
	// (a START for the rest, on a dma-buf), and the last one out ends
	// both accesses.
	if _, err := tn.BeginCPUAccess(tensor.AccessRead); err != nil {
		t.Fatal(err)
	}
	if b.TryJoin(3) {
		t.Fatal("C joined a read bracket for readwrite")
	}
	if ok, err := b.TryEnter(3); !ok || err != nil {
		t.Fatalf("C's enter of a read bracket for readwrite: %v %v", ok, err)
	}
	if a, o := open(); !o || a != tensor.AccessReadWrite {
		t.Fatalf("after C widened it the bracket is %v (open %v)", a, o)
	}
	if _, err := tn.EndCPUAccess(tensor.AccessRead); err != nil {
		t.Fatal(err)
	}
	if left, closed, _ := b.Leave(); !left || !closed {
		t.Fatalf("C's leave, the last: left %v closed %v", left, closed)
	}
	after := tensor.ReadStats()
	if o, c, j, w := after.BracketsOpened-before.BracketsOpened, after.BracketsClosed-before.BracketsClosed,
		after.BracketsJoined-before.BracketsJoined, after.BracketsWidened-before.BracketsWidened; o != 3 || c != 3 || j != 3 || w != 1 {
		t.Fatalf("brackets opened %d, closed %d, joined %d, widened %d; want 3, 3, 3, 1", o, c, j, w)
	}
}
