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
	done    atomic.Bool
}

func (r *resource) run() {
	if r.done.CompareAndSwap(false, true) {
		r.release()
	}
}

// NewKeepalive returns a keepalive holding one reference. release must not
// reference the returned Keepalive (directly or through a closure); it is run
// exactly once, by the last Release or by the leak safety net. what names the
// owner in leak reports (e.g. "mmap 4096 bytes of dmabuf 0:1234").
func NewKeepalive(what string, release func()) *Keepalive {
	k := &Keepalive{res: &resource{what: what, release: release}}
	k.refs.Store(1)
	k.cleanup = runtime.AddCleanup(k, leaked, k.res)
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
// it were still held; the safety net has released it.
type LeakReport struct {
	// What names the owner, as given to NewKeepalive.
	What string
}

var (
	leakMu      sync.Mutex
	leakHandler = func(r LeakReport) {
		log.Printf("gst-tensorpin: leaked pin: %s was never released; freed by the garbage collector", r.What)
	}
)

// SetLeakHandler installs the function told about leaked owners and returns
// the previous one. It runs on the runtime's cleanup goroutine, so it must not
// block. A nil handler keeps only the counter.
func SetLeakHandler(h func(LeakReport)) (previous func(LeakReport)) {
	leakMu.Lock()
	defer leakMu.Unlock()
	previous, leakHandler = leakHandler, h
	return previous
}

func leaked(r *resource) {
	if r.done.Load() {
		return
	}
	// Free first, then report: whoever hears of the leak sees it handled.
	r.run()
	stats.leaks.Add(1)
	leakMu.Lock()
	h := leakHandler
	leakMu.Unlock()
	if h != nil {
		h(LeakReport{What: r.what})
	}
}
