package infer

import (
	"fmt"
	"sync/atomic"
)

type counters struct {
	runs, inputBinds, outputBinds, conversions, bytesCopied, runNs atomic.Uint64
	inputUnbinds                                                   atomic.Uint64
	runCPUNs, runWallSampled, runsCPUSampled                       atomic.Uint64
}

// Stats are a session's counters since it was created.
type Stats struct {
	Runs        uint64 // successful runs
	InputBinds  uint64 // BindInput calls that bound a slot (first binds and rebinds)
	OutputBinds uint64 // BindOutput calls that bound a slot
	Conversions uint64 // runs that converted their input first
	BytesCopied uint64 // bytes those conversions wrote into the conversion tensor
	RunNsTotal  uint64 // nanoseconds inside ONNX Runtime's run, summed (wall time)
	// RunCPUNsSampled is the calling thread's CPU time inside ONNX
	// Runtime's run, summed over the RunsCPUSampled runs that were timed
	// in CPU time (see runClock: a sample of the runs after the first,
	// every run of a model that runs for milliseconds). RunCPUNsSampled/RunsCPUSampled
	// is a sampled run's CPU time, which a loaded machine does not
	// inflate as it does RunNsTotal/Runs. RunWallNsSampled is the same
	// runs' wall time: a sampled run can be slower than the others (the
	// clock's system calls around it cost it cache and TLB state), so the
	// runs' CPU time is best estimated as RunNsTotal ×
	// RunCPUNsSampled/RunWallNsSampled (the share of the wall time that
	// was CPU time), which that slowdown does not bias. All three count
	// RunPerFrame's runs too.
	RunCPUNsSampled  uint64
	RunWallNsSampled uint64
	RunsCPUSampled   uint64
	// Retired counts bindings (input slots, output slots and IoBindings)
	// replaced and waiting for Close: 0 since a replaced binding is
	// destroyed once no Run uses it (kept for the API).
	Retired int
	// IoBindings counts the live IoBindings: one per bound (input slot,
	// output slot) pair.
	IoBindings int
	// InputUnbinds counts the input bindings UnbindInput destroyed;
	// InputsBound is the input slots bound now.
	InputUnbinds uint64
	InputsBound  int
}

// Stats returns the session's counters. Safe from any goroutine.
func (s *Session) Stats() Stats {
	st := Stats{
		Runs: s.stats.runs.Load(), InputBinds: s.stats.inputBinds.Load(), OutputBinds: s.stats.outputBinds.Load(),
		Conversions: s.stats.conversions.Load(), BytesCopied: s.stats.bytesCopied.Load(), RunNsTotal: s.stats.runNs.Load(),
		RunCPUNsSampled: s.stats.runCPUNs.Load(), RunWallNsSampled: s.stats.runWallSampled.Load(),
		RunsCPUSampled: s.stats.runsCPUSampled.Load(), InputUnbinds: s.stats.inputUnbinds.Load(),
		InputsBound: s.boundInputs(),
	}
	s.mu.Lock()
	st.Retired = len(s.retired.in) + len(s.retired.out) + len(s.retired.io)
	s.mu.Unlock()
	if t := s.table.Load(); t != nil {
		for _, row := range t.pairs {
			for _, io := range row {
				if io != nil {
					st.IoBindings++
				}
			}
		}
	}
	return st
}

// Run runs the model once on input slot in, writing the outputs into
// output slot out's memory. It selects the pair's IoBinding, made when
// the second of the two slots was bound, converts the input first if the
// slot was bound through a conversion, and runs: no ONNX Runtime value is
// made, nothing is copied out, and nothing is allocated in Go.
//
// The caller holds CPU access to both slots' memory for the duration
// (package tensor's brackets): ONNX Runtime reads the input and writes
// the outputs there. Run is for one goroutine at a time per session
// (concurrent calls are serialised); BindInput and BindOutput may run
// concurrently with it.
func (s *Session) Run(in, out int) error {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	t := s.table.Load()
	if t == nil {
		return fmt.Errorf("%s: run: session %w", s.name, ErrClosed)
	}
	if in < 0 || in >= len(t.in) || t.in[in] == nil {
		return fmt.Errorf("%w: %s: run: input slot %d", ErrNotBound, s.name, in)
	}
	row := t.pairs[in]
	if out < 0 || out >= len(row) || row[out] == nil {
		return fmt.Errorf("%w: %s: run: output slot %d", ErrNotBound, s.name, out)
	}
	b := t.in[in]
	if b.plan != nil {
		n := b.plan.run(b.conv.mem, b.pin.Bytes())
		s.stats.conversions.Add(1)
		s.stats.bytesCopied.Add(uint64(n))
	}
	io := row[out]
	err := s.timeRun(func() error { return s.sess.RunWithBinding(io) })
	if err != nil {
		return fmt.Errorf("%s: run (input slot %d, output slot %d): %w", s.name, in, out, err)
	}
	s.stats.runs.Add(1)
	return nil
}
