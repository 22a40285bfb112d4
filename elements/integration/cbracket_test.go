package integration_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// On a real dma-buf, a bracket C and Go share costs one START and one
// END whoever opens and closes it: C's open STARTs, Go joins with no
// ioctl, C's leave with Go inside issues nothing, Go's last leave ENDs;
// then Go opens and C, last out, ENDs. The rule's cases run on stand-ins
// for the kernel in tensor/brackettest (both sides, package tensor's
// and frameengine's tests); this is the kernel's own answer to both sides'
// ioctls. (memfd has no SYNC ioctl: this runs where /dev/dma_heap/system
// opens — the QEMU lane.)
func TestCBracketIoctlsOnDMAHeap(t *testing.T) {
	tn, err := tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{4096}}, tensor.AllocOptions{Source: tensor.SourceDMAHeap})
	needReal(t, tensor.DMAHeapPath, err)
	defer tn.Close()
	b, ok := frameengine.NewCBracket(tn)
	if !ok {
		t.Fatal("a dma-heap tensor has no C bracket")
	}
	defer b.Free()
	step := func(what string, start, end uint64, f func() error) {
		t.Helper()
		before := tensor.ReadStats()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		after := tensor.ReadStats()
		if s, e := after.SyncStart-before.SyncStart, after.SyncEnd-before.SyncEnd; s != start || e != end {
			t.Fatalf("%s: %d START, %d END; want %d, %d", what, s, e, start, end)
		}
	}
	check := func(ok bool, what string) error {
		if !ok {
			t.Fatalf("%s: refused", what)
		}
		return nil
	}
	step("C opens for reading", 1, 0, func() error { ok, err := b.TryEnter(1); check(ok, "C's open"); return err })
	step("Go joins for reading", 0, 0, func() error { _, err := tn.BeginCPUAccess(tensor.AccessRead); return err })
	step("C leaves, Go inside", 0, 0, func() error {
		left, closed, err := b.Leave()
		check(left && !closed, "C's leave")
		return err
	})
	step("Go leaves last", 0, 1, func() error { _, err := tn.EndCPUAccess(tensor.AccessRead); return err })
	step("Go opens for readwrite", 1, 0, func() error { _, err := tn.BeginCPUAccess(tensor.AccessReadWrite); return err })
	step("C joins for reading", 0, 0, func() error { check(b.TryJoin(1), "C's join"); return nil })
	step("Go leaves, C inside", 0, 0, func() error { _, err := tn.EndCPUAccess(tensor.AccessReadWrite); return err })
	step("C leaves last", 0, 1, func() error {
		left, closed, err := b.Leave()
		check(left && closed, "C's last leave")
		return err
	})
	if _, open := tensor.OpenBracket(tn.Identity()); open {
		t.Fatal("bracket open after the last one out")
	}
}
