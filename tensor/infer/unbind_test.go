package infer_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// UnbindInput destroys a slot's binding — its pin clone with it, so the
// memory's mapping goes once its owner lets go — while another goroutine
// runs other slots (under -race); the slot then runs ErrNotBound until it
// is bound again, and the counters say what is bound.
func TestInferUnbindInput(t *testing.T) {
	e := load(t)
	s, err := e.NewSession(infertest.RepoFile(t, infertest.ShippedModel), infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, s)
	layout := s.Input().Layout()
	// A is released by the test itself (its mapping is what it checks).
	at, err := tensor.Alloc(layout, tensor.AllocOptions{Name: "unbind"})
	if err != nil {
		t.Fatal(err)
	}
	ap, err := at.PinHost()
	if err != nil {
		t.Fatal(err)
	}
	shippedFill(1)(ap.Bytes())
	b := alloc(t, layout)
	b.write(t, shippedFill(2))
	out := alloc(t, s.Outputs()[0].Layout())
	if err := s.BindOutput(0, &out.p); err != nil {
		t.Fatal(err)
	}
	if err := s.BindInput(0, infer.Input{Pin: &b.p, Layout: layout}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var runErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.Run(0, 0); err != nil {
				runErr = err
				return
			}
		}
	}()
	for range 100 {
		if err := s.BindInput(1, infer.Input{Pin: &ap, Layout: layout}); err != nil {
			t.Fatal(err)
		}
		if err := s.UnbindInput(1); err != nil {
			t.Fatal(err)
		}
		if err := s.Run(1, 0); !errors.Is(err, infer.ErrNotBound) {
			t.Fatalf("run of an unbound slot: %v, want ErrNotBound", err)
		}
	}
	close(stop)
	wg.Wait()
	if runErr != nil {
		t.Fatal(runErr)
	}
	if err := s.UnbindInput(1); err != nil {
		t.Errorf("unbinding a slot that is not bound: %v", err)
	}
	if err := s.UnbindInput(infer.MaxSlots); !errors.Is(err, infer.ErrInput) {
		t.Errorf("unbinding slot %d: %v, want ErrInput", infer.MaxSlots, err)
	}
	if st := s.Stats(); st.InputUnbinds != 100 || st.InputsBound != 1 || st.IoBindings != 1 {
		t.Errorf("stats %+v: want 100 unbinds, one input and one IoBinding bound", st)
	}
	// A's memory: only its owner holds the mapping now.
	addr := ap.Addr()
	ap.Release()
	at.Close()
	if mapped(addr) {
		t.Errorf("A's mapping at %#x outlived its unbinding and its owner", addr)
	}
}
