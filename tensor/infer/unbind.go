package infer

import ort "github.com/yalue/onnxruntime_go"

// UnbindInput removes input slot slot's binding and destroys it — its
// ONNX Runtime value, its IoBindings with every output slot and its pin
// clone, so the pinned memory's mapping goes when nothing else holds it —
// once no Run uses it: a Run in progress on another goroutine finishes
// first. Later Runs of the slot fail with ErrNotBound until it is bound
// again. A slot that is not bound is left as it is (nil). For bindings
// that must not outlive the memory they read: a pin cache's entry
// evicted, a producer that replaced its pool. A caller that handed the
// slot's IoBindings to other code (package ortabi) takes them back first.
func (s *Session) UnbindInput(slot int) error {
	if err := checkSlot("input", slot); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil // Close destroyed it
	}
	cur := s.table.Load()
	if slot >= len(cur.in) || cur.in[slot] == nil {
		return nil
	}
	next := cur.clone()
	old, row := next.in[slot], next.pairs[slot]
	next.in[slot], next.pairs[slot] = nil, nil
	s.table.Store(next)
	s.afterRuns(func() { destroyInput(old, row) })
	s.stats.inputUnbinds.Add(1)
	return nil
}

// afterRuns runs destroy once no Run can use what the table published
// before it held: Run loads the table and uses it under runMu, so a Run
// that loaded the old one has finished when runMu is taken. Under s.mu
// (binds are serialised; Run never takes s.mu).
func (s *Session) afterRuns(destroy func()) {
	s.runMu.Lock()
	//lint:ignore SA2001 an empty critical section: it waits for the Run that holds runMu
	s.runMu.Unlock()
	destroy()
}

// destroyInput destroys an input binding and its IoBindings (first: they
// hold its value).
func destroyInput(b *inBinding, row []*ort.IoBinding) {
	for _, io := range row {
		if io != nil {
			io.Destroy()
		}
	}
	b.destroy()
}

// boundInputs counts the input slots bound now.
func (s *Session) boundInputs() int {
	t := s.table.Load()
	if t == nil {
		return 0
	}
	n := 0
	for _, b := range t.in {
		if b != nil {
			n++
		}
	}
	return n
}
