package tensor_test

import (
	"errors"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// A lent tensor reads like its owner's and refuses what would change it:
// the owner's layout and brackets stay as they were, a guard stays
// balanced, and once the owner closes the lent handle is closed too.
func TestLentTensorCannotChangeItsOwner(t *testing.T) {
	owner, err := tensor.Alloc(u8(16, 16), tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	lent := owner.Lend()
	if !lent.Lent() || owner.Lent() {
		t.Fatal("Lent reports the wrong handle")
	}
	if err := owner.SyncForCPU(tensor.AccessRead); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"Close":         lent.Close(),
		"Reshape":       lent.Reshape(u8(4)),
		"SyncForCPU":    lent.SyncForCPU(tensor.AccessRead),
		"SyncForDevice": lent.SyncForDevice(tensor.AccessRead),
		"SetName":       lent.SetName("x"),
	} {
		if !errors.Is(err, tensor.ErrLent) {
			t.Errorf("%s on a lent tensor: %v, want ErrLent", what, err)
		}
	}
	if owner.OpenSyncs() != 1 || len(owner.Shape()) != 2 {
		t.Fatalf("the owner changed: %d open brackets, shape %v", owner.OpenSyncs(), owner.Shape())
	}
	g, err := lent.Map(tensor.AccessRead)
	if err != nil {
		t.Fatalf("Map on a lent tensor: %v", err)
	}
	if owner.OpenSyncs() != 2 {
		t.Errorf("the guard did not join the bracket: %d open", owner.OpenSyncs())
	}
	g.Close()
	if err := owner.SyncForDevice(tensor.AccessRead); err != nil {
		t.Fatal(err)
	}
	if owner.OpenSyncs() != 0 {
		t.Errorf("%d brackets left open", owner.OpenSyncs())
	}
	v, err := lent.View(tensor.Region{Start: []int{0, 0}, Count: []int{2, 16}})
	if err != nil {
		t.Fatalf("View of a lent tensor: %v", err)
	}
	if err := v.Close(); err != nil {
		t.Errorf("a view of a lent tensor is the caller's to close: %v", err)
	}
	owner.Close()
	if _, err := lent.PinHost(); !errors.Is(err, tensor.ErrClosed) {
		t.Errorf("PinHost on a lent tensor after its owner closed: %v, want ErrClosed", err)
	}
}
