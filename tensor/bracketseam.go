package tensor

import (
	"testing"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/internal/bracketabi"
)

// The test seams other packages' tests reach through internal/bracketabi
// (tensor/brackettest runs the bracket rule's cases against this
// package and C's brackets on one word): the dma-buf code path over a
// memfd, the SYNC ioctl and the fence poll. This package's own tests use
// hooks_internal_test.go's setters, which these share.

func seamOnlyInTests() {
	if !testing.Testing() {
		panic("tensor: a test seam used outside a test binary")
	}
}

func init() {
	bracketabi.Seam.AsDMABuf = func(v any) {
		seamOnlyInTests()
		v.(*Tensor).st.backend = BackendDMABuf
	}
	bracketabi.Seam.SetSyncIoctl = func(f func(fd int, flags uint64) error) (restore func()) {
		seamOnlyInTests()
		prev := syncIoctl
		syncIoctl = f
		return func() { syncIoctl = prev }
	}
	bracketabi.Seam.SetPollFence = func(f func(fd int, events int16, timeout time.Duration) (bool, error)) (restore func()) {
		seamOnlyInTests()
		prev := pollFence
		pollFence = f
		return func() { pollFence = prev }
	}
}
