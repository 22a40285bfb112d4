// Package faultinject is a test-only seam that makes the kernel calls of
// packages tensor and pin fail on purpose: DMA_BUF_IOCTL_SYNC, mmap, the
// fd dup of tensor.ImportFD, the fstat and fstatfs that classify an
// imported fd, DMA_HEAP_IOCTL_ALLOC and the poll() of the bounded fence
// wait. A test installs a plan of rules
// (which operation, which errno, at which calls) and restores the previous
// plan when it is done:
//
//	plan, restore := faultinject.Install(faultinject.First(faultinject.Sync, unix.EINTR))
//	defer restore()
//
// Without a plan every seam is one atomic pointer load and nothing else
// (no allocation, no lock). Install panics outside a test binary
// (testing.Testing), so production code cannot switch faults on by
// accident. A plan is process-wide: it affects every goroutine, including
// GStreamer's streaming threads, so tests that install one must not run in
// parallel with tests that call these operations.
//
// It lives under pin, the lowest layer, so that pin (mmap) and tensor (every
// other seam) can both import it without an arrow running back up the
// layers; it imports nothing of this module.
package faultinject

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// Op is an operation with a seam.
type Op uint8

const (
	Sync      Op = iota + 1 // DMA_BUF_IOCTL_SYNC (tensor's brackets), before each try of the retry loop
	Mmap                    // mmap of pin.Map (a tensor's host mapping)
	Dup                     // fcntl(F_DUPFD_CLOEXEC) of tensor.ImportFD
	Fstat                   // fstat of tensor.Classify (identity, size)
	Fstatfs                 // fstatfs of tensor.Classify (dma-buf or shm)
	HeapAlloc               // DMA_HEAP_IOCTL_ALLOC of tensor.Alloc (after the heap opened)
	FencePoll               // poll() on a dma-buf fd of tensor's bounded fence wait, before each try
	numOps
)

// opNames are the names String gives, by value.
var opNames = [...]string{
	Sync:      "DMA_BUF_IOCTL_SYNC",
	Mmap:      "mmap",
	Dup:       "dup",
	Fstat:     "fstat",
	Fstatfs:   "fstatfs",
	HeapAlloc: "DMA_HEAP_IOCTL_ALLOC",
	FencePoll: "poll",
}

// String returns the operation's name as the errors of tensor and pin
// spell it.
func (o Op) String() string {
	if uint64(o) < uint64(len(opNames)) && opNames[o] != "" {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Ops lists every operation with a seam.
func Ops() []Op { return []Op{Sync, Mmap, Dup, Fstat, Fstatfs, HeapAlloc, FencePoll} }

// Rule makes calls of Op fail with Errno. Calls are numbered from 1 per
// operation, from the Install of the plan. Build rules with First, Nth,
// Always and Random.
type Rule struct {
	Op    Op
	Errno syscall.Errno
	// From is the first call that fails; Count how many calls from it
	// fail (0: every later call).
	From, Count int
	// Prob, when > 0, replaces From and Count: each call fails with
	// probability Prob, drawn from a generator seeded with Seed (the same
	// seed gives the same calls).
	Prob float64
	Seed uint64
}

// First fails the first call of op.
func First(op Op, errno syscall.Errno) Rule { return Nth(op, 1, errno) }

// Nth fails the n-th call of op (n ≥ 1), and only it.
func Nth(op Op, n int, errno syscall.Errno) Rule {
	return Rule{Op: op, Errno: errno, From: n, Count: 1}
}

// Always fails every call of op.
func Always(op Op, errno syscall.Errno) Rule { return Rule{Op: op, Errno: errno, From: 1} }

// Random fails each call of op with probability p, reproducibly from seed.
func Random(op Op, errno syscall.Errno, p float64, seed uint64) Rule {
	return Rule{Op: op, Errno: errno, Prob: p, Seed: seed}
}

// Plan is an installed set of rules and what it did.
type Plan struct {
	mu       sync.Mutex
	rules    []Rule
	rngs     []*rand.Rand // per rule; nil unless Prob > 0
	calls    [numOps]int
	injected [numOps]int
}

// Calls returns how many calls of op reached the seam since Install.
func (p *Plan) Calls(op Op) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[op%numOps]
}

// Injected returns how many calls of op the plan failed.
func (p *Plan) Injected(op Op) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.injected[op%numOps]
}

var active atomic.Pointer[Plan]

// Install makes rules the process's fault plan and returns it with a
// function that puts back the plan it replaced (call it when the test
// ends). It panics outside a test binary.
func Install(rules ...Rule) (plan *Plan, restore func()) {
	if !testing.Testing() {
		panic("faultinject: Install outside a test binary")
	}
	p := &Plan{rules: append([]Rule(nil), rules...), rngs: make([]*rand.Rand, len(rules))}
	for i, r := range rules {
		if r.Op == 0 || r.Op >= numOps || r.Errno == 0 {
			panic(fmt.Sprintf("faultinject: rule %d: %+v needs an operation and an errno", i, r))
		}
		if r.Prob > 0 {
			p.rngs[i] = rand.New(rand.NewPCG(r.Seed, uint64(r.Op)))
		}
	}
	prev := active.Swap(p)
	var once sync.Once
	return p, func() { once.Do(func() { active.Store(prev) }) }
}

// Fault is the seam: packages tensor and pin call it right before the
// real call of op and fail with the errno it returns when that is not 0.
// Without a plan it returns 0 after one atomic load.
func Fault(op Op) syscall.Errno {
	p := active.Load()
	if p == nil {
		return 0
	}
	return p.check(op)
}

func (p *Plan) check(op Op) syscall.Errno {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[op]++
	n := p.calls[op]
	for i, r := range p.rules {
		if r.Op != op {
			continue
		}
		var fail bool
		if p.rngs[i] != nil {
			fail = p.rngs[i].Float64() < r.Prob
		} else {
			fail = n >= r.From && (r.Count == 0 || n < r.From+r.Count)
		}
		if fail {
			p.injected[op]++
			return r.Errno
		}
	}
	return 0
}
