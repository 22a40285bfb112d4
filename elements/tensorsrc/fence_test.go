package tensorsrc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// SetWriteFence on a memfd slot (no fences there) is ErrNotSupported and
// leaves the slot held with its bracket open; on a slot not held it is
// ErrNotAcquired. The fence counters and sync-timeout exist.
func TestFenceSetWriteFenceNeedsADMABufSlot(t *testing.T) {
	p, srcEl := parse(t, "tensorsrc name=src pattern=app backend=memfd pool-size=2 sync-timeout=250 ! other/tensors,dimensions=(string)16:4:1:1,types=(string)uint8 ! fakesink sync=false")
	if v, err := srcEl.GetProperty("sync-timeout"); err != nil || v != uint(250) {
		t.Fatalf("sync-timeout %v (%v)", v, err)
	}
	src, err := FromElement(srcEl)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	defer stop(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sl, err := src.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.SetWriteFence(sl, 0); !errors.Is(err, tensor.ErrNotSupported) {
		t.Fatalf("SetWriteFence on a memfd slot: %v, want ErrNotSupported", err)
	}
	if n := sl.brackets(); n != 1 {
		t.Fatalf("a refused fence changed the slot's bracket (%d open)", n)
	}
	if err := src.Discard(sl); err != nil {
		t.Fatal(err)
	}
	if err := src.SetWriteFence(sl, 0); !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("SetWriteFence on a discarded slot: %v", err)
	}
	st := stats(t, srcEl)
	for _, k := range []string{"fence-waits", "fence-wait-total-ns", "fence-wait-max-ns", "fence-timeouts"} {
		wantStat(t, st, k, 0)
	}
	wantStat(t, st, "fences-attached", 0)
}
