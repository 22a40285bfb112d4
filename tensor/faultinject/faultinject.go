// Package faultinject is the fault seam's former path, kept so that code
// importing it still builds: every name is an alias of package
// pin/faultinject, where the seam lives now (below packages pin and
// tensor, which both import it). A plan installed through either path is
// the same plan.
//
// Deprecated: import github.com/gst-tensorpin/gst-tensorpin/pin/faultinject.
package faultinject

import (
	"syscall"

	fi "github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
)

// Op, Rule and Plan are pin/faultinject's.
type (
	Op   = fi.Op
	Rule = fi.Rule
	Plan = fi.Plan
)

// The operations with a seam (pin/faultinject's).
const (
	Sync      = fi.Sync
	Mmap      = fi.Mmap
	Dup       = fi.Dup
	Fstat     = fi.Fstat
	Fstatfs   = fi.Fstatfs
	HeapAlloc = fi.HeapAlloc
	FencePoll = fi.FencePoll
)

// Ops lists every operation with a seam (pin/faultinject.Ops).
func Ops() []Op { return fi.Ops() }

// First fails the first call of op (pin/faultinject.First).
func First(op Op, errno syscall.Errno) Rule { return fi.First(op, errno) }

// Nth fails the n-th call of op (pin/faultinject.Nth).
func Nth(op Op, n int, errno syscall.Errno) Rule { return fi.Nth(op, n, errno) }

// Always fails every call of op (pin/faultinject.Always).
func Always(op Op, errno syscall.Errno) Rule { return fi.Always(op, errno) }

// Random fails each call of op with probability p, reproducibly from seed
// (pin/faultinject.Random).
func Random(op Op, errno syscall.Errno, p float64, seed uint64) Rule {
	return fi.Random(op, errno, p, seed)
}

// Install makes rules the process's fault plan (pin/faultinject.Install).
func Install(rules ...Rule) (plan *Plan, restore func()) { return fi.Install(rules...) }

// Fault is the seam (pin/faultinject.Fault).
func Fault(op Op) syscall.Errno { return fi.Fault(op) }
