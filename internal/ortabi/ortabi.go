// Package ortabi hands C code of this module (elements/internal/frameengine's
// frame engine) what it needs to run a package infer session's bound
// pairs itself: ONNX Runtime's session and IoBinding pointers and the C
// functions that run a binding and release a status. Package infer fills
// it in at init; nothing outside this module sees it.
//
// # Lifetime
//
// A Runner's Session and an IoBinding from Binding live until the
// session is closed (a rebind retires the old IoBindings but keeps them
// until Close): their holder stops using them before it closes the
// session. They are only run on the thread that calls the session's Run
// (a session runs one binding at a time).
package ortabi

import (
	"time"
	"unsafe"
)

// Runner is what runs a session's bindings from C.
type Runner struct {
	// Session is the OrtSession.
	Session unsafe.Pointer
	// Run is OrtStatus *(*)(OrtSession *, OrtIoBinding *): RunWithBinding
	// with no run options.
	Run unsafe.Pointer
	// ReleaseStatus is void (*)(OrtStatus *).
	ReleaseStatus unsafe.Pointer
	// ErrorMessage is const char *(*)(OrtStatus *): a status's text,
	// valid until the status is released.
	ErrorMessage unsafe.Pointer
	// SamplePeriod and SampleMax are the run clock's sampling (package
	// infer's runClock: a run's thread CPU time is read when the runs
	// since the last sample took SamplePeriod or SampleMax runs).
	SamplePeriod time.Duration
	SampleMax    int
}

var (
	// RunnerOf returns the runner of s, a *infer.Session; false if it is
	// closed.
	RunnerOf func(s any) (Runner, bool)
	// Binding returns the OrtIoBinding of s's input slot in and output
	// slot out; nil if the pair is not bound, or the input slot is
	// converted before each run (the conversion is Go's).
	Binding func(s any, in, out int) unsafe.Pointer
)
