package tensor

import "time"

// The seams of this package's internal tests. Each setter replaces one
// kernel call and returns the function that puts back what it replaced —
// the module's one restore style for test hooks (as faultinject.Install and
// pin.InstallLeakHandler): t.Cleanup(setSyncIoctl(f)).

// setSyncIoctl replaces the DMA_BUF_IOCTL_SYNC call.
func setSyncIoctl(f func(fd int, flags uint64) error) (restore func()) {
	prev := syncIoctl
	syncIoctl = f
	return func() { syncIoctl = prev }
}

// setPollFence replaces the poll of the bounded fence wait.
func setPollFence(f func(fd int, events int16, timeout time.Duration) (bool, error)) (restore func()) {
	prev := pollFence
	pollFence = f
	return func() { pollFence = prev }
}
