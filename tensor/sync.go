package tensor

import (
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"
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

// String returns "read", "write", "readwrite" (the names used in the
// GstTensorSync event) or "none".
func (a Access) String() string {
	switch a {
	case AccessRead:
		return "read"
	case AccessWrite:
		return "write"
	case AccessReadWrite:
		return "readwrite"
	case AccessNone:
		return "none"
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
		err := syncIoctl(fd, flags)
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
			// coherent, nothing to do, and said once, not every frame.
			s.coherent.Store(true)
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

// begin opens a CPU-access bracket: the ioctl (when doIoctl) then the count.
func (s *syncState) begin(fd int, a Access, doIoctl bool) error {
	if !a.valid() {
		return fmt.Errorf("sync for cpu with access %v: %w", a, ErrAccess)
	}
	if doIoctl {
		if err := s.dmabufSync(fd, uint64(a)|dmaBufSyncStart); err != nil {
			return err
		}
	} else {
		counters.noopSyncs.Add(1)
	}
	s.open[a].Add(1)
	return nil
}

// end closes a bracket opened by begin with the same access. Without one it
// is ErrUnbalancedSync and no ioctl is issued.
func (s *syncState) end(fd int, a Access, doIoctl bool) error {
	if !a.valid() {
		return fmt.Errorf("sync for device with access %v: %w", a, ErrAccess)
	}
	for {
		n := s.open[a].Load()
		if n <= 0 {
			counters.unbalanced.Add(1)
			return fmt.Errorf("sync for device (%v) on fd %d: %w", a, fd, ErrUnbalancedSync)
		}
		if s.open[a].CompareAndSwap(n, n-1) {
			break
		}
	}
	if !doIoctl {
		counters.noopSyncs.Add(1)
		return nil
	}
	return s.dmabufSync(fd, uint64(a)|dmaBufSyncEnd)
}

func (s *syncState) openBrackets() int {
	n := 0
	for i := range s.open {
		n += int(s.open[i].Load())
	}
	return n
}
