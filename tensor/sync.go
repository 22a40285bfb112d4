package tensor

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/pin/faultinject"
)

// Access is the direction of a CPU access bracketed by SyncForCPU and
// SyncForDevice; the same value must be passed to both.
type Access uint8

const (
	AccessNone      Access = 0
	AccessRead      Access = dmaBufSyncRead
	AccessWrite     Access = dmaBufSyncWrite
	AccessReadWrite Access = dmaBufSyncRead | dmaBufSyncWrite
)

func (a Access) valid() bool { return a >= AccessRead && a <= AccessReadWrite }

// accessNames are the names String gives, by value.
var accessNames = [...]string{
	AccessRead:      "read",
	AccessWrite:     "write",
	AccessReadWrite: "readwrite",
	AccessNone:      "none",
}

// String returns "read", "write", "readwrite" (the names used in the
// GstTensorSync event) or "none".
func (a Access) String() string {
	if uint64(a) < uint64(len(accessNames)) && accessNames[a] != "" {
		return accessNames[a]
	}
	return fmt.Sprintf("Access(%d)", uint8(a))
}

// ParseAccess parses a name as returned by String; "none" is an error.
func ParseAccess(s string) (Access, error) {
	for _, a := range []Access{AccessRead, AccessWrite, AccessReadWrite} {
		if a.String() == s {
			return a, nil
		}
	}
	return AccessNone, fmt.Errorf("access %q: %w", s, ErrAccess)
}

// maxSyncRetries bounds the EINTR/EAGAIN loop so a fence that never signals
// turns into an error rather than a hung streaming thread.
const maxSyncRetries = 1000

// syncState is the coherency state of one storage.
type syncState struct {
	// coherent is set when the fd answered ENOTTY: it has no sync ioctl, so
	// CPU access needs no bracket and the ioctl is not tried again.
	coherent atomic.Bool
	// open counts brackets opened by SyncForCPU and not yet closed, per access.
	open [AccessReadWrite + 1]atomic.Int32
}

// dmabufSync issues DMA_BUF_IOCTL_SYNC with flags, retrying on EINTR and
// EAGAIN as the kernel documentation requires. ENOTTY marks the state
// coherent and succeeds.
func (s *syncState) dmabufSync(fd int, flags uint64) error {
	if s.coherent.Load() {
		counters.coherentSkips.Add(1)
		return nil
	}
	for try := 0; ; try++ {
		var err error
		if e := faultinject.Fault(faultinject.Sync); e != 0 {
			err = e // a test's injected fault, handled as the kernel's would be
		} else {
			err = syncIoctl(fd, flags)
		}
		if err == nil {
			if flags&dmaBufSyncEnd != 0 {
				counters.syncEnd.Add(1)
			} else {
				counters.syncStart.Add(1)
			}
			return nil
		}
		if (errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN)) && try < maxSyncRetries {
			counters.syncRetries.Add(1)
			continue
		}
		if errors.Is(err, unix.ENOTTY) {
			// Not a dma-buf after all (or a kernel without the ioctl):
			// coherent, nothing to do, and said once, not every frame —
			// except for file brackets, whose one state serves every
			// file: one that is not a dma-buf says nothing of the next.
			if s != &fileSync {
				s.coherent.Store(true)
			}
			counters.syncNotTTY.Add(1)
			return nil
		}
		counters.syncErrors.Add(1)
		phase := "start"
		if flags&dmaBufSyncEnd != 0 {
			phase = "end"
		}
		return fmt.Errorf("DMA_BUF_IOCTL_SYNC %s %v on fd %d: %w: %w", phase, Access(flags&3), fd, ErrSync, err)
	}
}

// beginCPU opens (or, for fd-backed storage, joins) a CPU-access bracket
// with access a and counts it on this storage. It reports whether it
// joined a bracket another import had open.
// With timeout > 0 a dma-buf's fences are first waited for, at most that
// long (waitFences), by the call that opens or widens the bracket; a join
// does not wait (the opener did). It reports how long it blocked.
func (st *storage) beginCPU(a Access, timeout time.Duration) (joined bool, waited time.Duration, err error) {
	if !a.valid() {
		return false, 0, fmt.Errorf("sync for cpu with access %v: %w", a, ErrAccess)
	}
	// An open bracket keeps the storage (its fd) alive until its END: a
	// tensor closed inside a bracket must not let the fd number go to
	// another file before the END is issued on it.
	if st.keep.Acquire() != nil {
		return false, 0, fmt.Errorf("sync for cpu on %v: %w", st.id, ErrClosed)
	}
	doIoctl := st.backend == BackendDMABuf
	if doIoctl && timeout <= 0 {
		timeout = 0 // no wait: the kernel's, inside START
	} else if !doIoctl {
		timeout = 0 // memfd and heap memory carry no fences
	}
	if st.sharesBrackets() {
		joined, waited, err = st.enterShared(a, doIoctl, timeout)
	} else if doIoctl {
		if timeout > 0 {
			waited, err = st.waitFences(a, timeout)
		}
		if err == nil {
			err = st.sync.dmabufSync(st.fd, uint64(a)|dmaBufSyncStart)
		}
	}
	if err != nil {
		st.keep.Release()
		return false, waited, err
	}
	if !doIoctl {
		counters.noopSyncs.Add(1)
	}
	st.sync.open[a].Add(1)
	return joined, waited, nil
}

// endCPU closes a bracket this storage opened with the same access: for
// fd-backed storage it leaves the buffer's shared bracket, which the last
// one out closes. Without an open bracket of that access it is
// ErrUnbalancedSync and no ioctl is issued. It reports whether the bracket
// was closed (by this call). It drops the storage reference beginCPU took
// — after the ioctl, which therefore reaches the file the START did.
func (st *storage) endCPU(a Access) (closed bool, err error) {
	if !a.valid() {
		return false, fmt.Errorf("sync for device with access %v: %w", a, ErrAccess)
	}
	for {
		n := st.sync.open[a].Load()
		if n <= 0 {
			counters.unbalanced.Add(1)
			return false, fmt.Errorf("sync for device (%v) on fd %d: %w", a, st.fd, ErrUnbalancedSync)
		}
		if st.sync.open[a].CompareAndSwap(n, n-1) {
			break
		}
	}
	defer st.keep.Release() // beginCPU's reference, after the END
	doIoctl := st.backend == BackendDMABuf
	if !doIoctl {
		counters.noopSyncs.Add(1)
	}
	if st.sharesBrackets() {
		return st.leaveShared(doIoctl)
	}
	if doIoctl {
		err = st.sync.dmabufSync(st.fd, uint64(a)|dmaBufSyncEnd)
	}
	return true, err
}

func (s *syncState) openBrackets() int {
	n := 0
	for i := range s.open {
		n += int(s.open[i].Load())
	}
	return n
}
