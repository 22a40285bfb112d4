package pin

import (
	"fmt"
	"log"
	"runtime"
	"sync"
	"sync/atomic"
)

// Keepalive is a reference count on an owner of memory. It starts with one
// reference, held by whoever created it; the last Release runs the owner's
// release function exactly once.
//
// Keepalive is safe for concurrent use.
type Keepalive struct {
	refs    atomic.Int64
	res     *resource
	cleanup runtime.Cleanup
}

// resource is what the leak safety net captures: the owner's description and
// release function, never the Keepalive (a cleanup that references its own
// object would keep it reachable forever).
type resource struct {
	what    string
	release func()
	// quarantine: the owner is memory whose address may be in foreign hands;
	// the net keeps it instead of running release. bytes is its size.
	quarantine bool
	bytes      int
	done       atomic.Bool
}

func (r *resource) run() {
	if r.done.CompareAndSwap(false, true) {
		r.release()
	}
}

// NewKeepalive returns a keepalive holding one reference. release must not
// reference the returned Keepalive (directly or through a closure); it is run
// exactly once, by the last Release — or by the leak safety net if the
// keepalive becomes unreachable with references still counted. what names
// the owner in leak reports (e.g. "tensor storage 0:1234 (fd 7)").
//
// Use it only for owners whose release cannot invalidate an address someone
// may still read: closing an fd (a mapping keeps its file alive), dropping a
// reference on another keepalive (which frees only when no pin holds it).
// An owner whose release frees memory that pins point into uses
// NewMemoryKeepalive.
func NewKeepalive(what string, release func()) *Keepalive {
	return newKeepalive(&resource{what: what, release: release})
}

// NewMemoryKeepalive returns a keepalive holding one reference on an owner of
// bytes of memory whose address pins hand out (an mmap, a pinned Go buffer):
// release frees that memory. The last Release runs it as NewKeepalive's does,
// but the leak safety net never does: a pin dropped without Release may have
// given its address to code Go cannot see (a TFLite or ONNX Runtime tensor
// bound once per buffer), and freeing the memory under it would turn a leak
// into a crash or silent corruption. The net reports the leak and quarantines
// the owner instead: release and everything it captures are kept for the rest
// of the process, counted in Stats.Quarantined and Stats.QuarantinedBytes.
func NewMemoryKeepalive(what string, bytes int, release func()) *Keepalive {
	return newKeepalive(&resource{what: what, release: release, quarantine: true, bytes: bytes})
}

func newKeepalive(r *resource) *Keepalive {
	k := &Keepalive{res: r}
	k.refs.Store(1)
	k.cleanup = runtime.AddCleanup(k, leaked, r)
	return k
}

// Acquire takes another reference. It fails with ErrReleased once the count
// has reached zero: a released owner cannot be revived.
func (k *Keepalive) Acquire() error {
	for {
		n := k.refs.Load()
		if n <= 0 {
			return fmt.Errorf("acquire %s: %w", k.res.what, ErrReleased)
		}
		if k.refs.CompareAndSwap(n, n+1) {
			return nil
		}
	}
}

// Release drops one reference; the last one runs the release function. A
// Release beyond the references taken is reported as an error and changes
// nothing.
func (k *Keepalive) Release() error {
	for {
		n := k.refs.Load()
		if n <= 0 {
			return fmt.Errorf("release %s: %w", k.res.what, ErrReleased)
		}
		if k.refs.CompareAndSwap(n, n-1) {
			if n == 1 {
				k.cleanup.Stop()
				k.res.run()
			}
			return nil
		}
	}
}

// Refs reports the current number of references (for tests and diagnostics).
func (k *Keepalive) Refs() int64 { return k.refs.Load() }

// String names the owner.
func (k *Keepalive) String() string { return k.res.what }

// LeakReport describes an owner that became unreachable while references on
// it were still held.
type LeakReport struct {
	// What names the owner, as given to NewKeepalive or NewMemoryKeepalive.
	What string
	// Quarantined: the owner (a NewMemoryKeepalive) was kept, not freed; its
	// Bytes stay allocated (mapped) for the rest of the process. Otherwise
	// the safety net ran its release function before reporting.
	Quarantined bool
	Bytes       int
}

var (
	leakMu      sync.Mutex
	leakHandler = func(r LeakReport) {
		if r.Quarantined {
			log.Printf("gst-tensorpin: leaked pin: %s was never released; its %d bytes stay allocated for the life of the process, since code outside Go may still use the address", r.What, r.Bytes)
			return
		}
		log.Printf("gst-tensorpin: leaked pin: %s was never released; released by the garbage collector", r.What)
	}
)

// SetLeakHandler installs the function told about leaked owners and returns
// the previous one. It runs on a runtime cleanup goroutine, so it must not
// block. A nil handler keeps only the counters.
//
// Use SetLeakHandler to set the process's handler once; code that must put
// the previous handler back (a test) uses InstallLeakHandler, whose restore
// function is the one restore style of this module's test hooks (as
// faultinject.Install).
func SetLeakHandler(h func(LeakReport)) (previous func(LeakReport)) {
	leakMu.Lock()
	defer leakMu.Unlock()
	previous, leakHandler = leakHandler, h
	return previous
}

// InstallLeakHandler installs h as SetLeakHandler does and returns a
// function that puts back the handler h replaced (the first call does;
// later calls do nothing):
//
//	t.Cleanup(pin.InstallLeakHandler(func(r pin.LeakReport) { reports <- r }))
func InstallLeakHandler(h func(LeakReport)) (restore func()) {
	prev := SetLeakHandler(h)
	var once sync.Once
	return func() { once.Do(func() { SetLeakHandler(prev) }) }
}

// quarantine holds the resources of leaked memory owners for the rest of the
// process. Keeping them reachable matters: what a release captures may free
// the memory by itself when collected (a runtime.Pinner that still pins
// something panics the process from its finalizer).
var quarantine struct {
	mu   sync.Mutex
	kept []*resource
}

func leaked(r *resource) {
	if r.done.Load() {
		return
	}
	// Count first, then act, then report: whoever sees a resource come back
	// (a test comparing fds) already sees it counted, and whoever hears of
	// the leak sees it handled.
	stats.leaks.Add(1)
	if r.quarantine {
		r.done.Store(true) // release never runs now
		quarantine.mu.Lock()
		quarantine.kept = append(quarantine.kept, r)
		quarantine.mu.Unlock()
		stats.quarantined.Add(1)
		stats.quarantinedBytes.Add(uint64(r.bytes))
	} else {
		r.run()
	}
	leakMu.Lock()
	h := leakHandler
	leakMu.Unlock()
	if h != nil {
		h(LeakReport{What: r.what, Quarantined: r.quarantine, Bytes: r.bytes})
	}
}
