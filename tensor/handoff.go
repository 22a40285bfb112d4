package tensor

import "fmt"

// A bracket may be opened by one importer of a buffer and closed by
// another: tensorsrc does SyncForCPU on its tensor before pushing a buffer,
// and tensorpinsink, holding its own import of the same dma-buf, does the
// SyncForDevice when the buffer has reached it. The kernel's
// DMA_BUF_IOCTL_SYNC acts on the dma-buf, not the fd, so one START and one
// END (two ioctls per frame) bracket the whole pipeline. These two calls
// keep each side's bracket count balanced without extra ioctls.

// AdoptSync counts a bracket opened (with SyncForCPU and access a) on
// another import of the same buffer as open on this tensor, without an
// ioctl, so that this tensor's SyncForDevice(a) closes it.
func (t *Tensor) AdoptSync(a Access) error {
	if err := t.usable("adopt sync"); err != nil {
		return err
	}
	if !a.valid() {
		return fmt.Errorf("adopt sync with access %v: %w", a, ErrAccess)
	}
	t.st.sync.open[a].Add(1)
	counters.adopted.Add(1)
	return nil
}

// HandOffSync stops counting a bracket opened on this tensor with access a
// whose SyncForDevice was done on another import of the same buffer. No
// ioctl is made. Without such an open bracket it is ErrUnbalancedSync. It
// works on a closed tensor too: a bracket may end after its opener closed.
func (t *Tensor) HandOffSync(a Access) error {
	if !a.valid() {
		return fmt.Errorf("hand off sync with access %v: %w", a, ErrAccess)
	}
	for {
		n := t.st.sync.open[a].Load()
		if n <= 0 {
			counters.unbalanced.Add(1)
			return fmt.Errorf("hand off sync (%v) on %v: %w", a, t.st.id, ErrUnbalancedSync)
		}
		if t.st.sync.open[a].CompareAndSwap(n, n-1) {
			return nil
		}
	}
}
