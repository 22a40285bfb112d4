package tensor

import (
	"sync/atomic"

	"github.com/gst-tensorpin/gst-tensorpin/internal/bracketabi"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

// Stats are process-wide counters. Compare two readings to count what an
// operation did — e.g. that a frame cost 0 mmaps and 2 sync ioctls.
type Stats struct {
	Mmaps, Munmaps  uint64 // from package pin: every long-lived mapping
	SyncStart       uint64 // DMA_BUF_IOCTL_SYNC START calls that succeeded
	SyncEnd         uint64 // DMA_BUF_IOCTL_SYNC END calls that succeeded
	SyncRetries     uint64 // retries after EINTR/EAGAIN
	SyncErrors      uint64 // sync ioctls that failed for good
	SyncNotTTY      uint64 // fds found to have no sync ioctl (ENOTTY), once each
	CoherentSkips   uint64 // syncs skipped because the fd had answered ENOTTY
	NoopSyncs       uint64 // bracket halves on SHM and heap tensors (no ioctl needed)
	UnbalancedSyncs uint64 // SyncForDevice calls with no matching SyncForCPU
	BracketsOpened  uint64 // shared brackets opened (the first SyncForCPU on a buffer)
	BracketsJoined  uint64 // SyncForCPU calls that joined a bracket already open on the buffer
	BracketsWidened uint64 // joins that needed more access than the bracket had (one more START)
	BracketsClosed  uint64 // shared brackets closed (the last SyncForDevice on a buffer)
	AllocFallbacks  uint64 // sources SourceAuto tried and went past because they failed (no dma-heap here, an ioctl error)
	// FileBracketEnters counts EnterFileBracket calls: GStreamer maps of
	// the project's dma-buf memory, each a START or a join.
	FileBracketEnters uint64
	// Bounded fence waits (BeginCPUAccessTimeout): FenceWaits counts the
	// waits that blocked (the buffer was not ready at once), including
	// those that timed out; FenceWaitNanos their total time and
	// FenceWaitMaxNanos the longest; FenceTimeouts the waits that gave up.
	FenceWaits, FenceWaitNanos, FenceWaitMaxNanos, FenceTimeouts uint64
}

var counters struct {
	syncStart, syncEnd, syncRetries, syncErrors, syncNotTTY atomic.Uint64
	coherentSkips, noopSyncs, unbalanced                    atomic.Uint64
	bracketsOpened, bracketsJoined, bracketsWidened         atomic.Uint64
	bracketsClosed, allocFallbacks, fileEnters              atomic.Uint64
	fences                                                  FenceWaitCounter
}

// ReadStats returns the current counters.
func ReadStats() Stats {
	p := pin.ReadStats()
	fw, fn, fm, ft := counters.fences.Read()
	return Stats{
		Mmaps:           p.Maps,
		Munmaps:         p.Unmaps,
		SyncStart:       counters.syncStart.Load() + cCounter(bracketabi.SyncStart),
		SyncEnd:         counters.syncEnd.Load() + cCounter(bracketabi.SyncEnd),
		SyncRetries:     counters.syncRetries.Load() + cCounter(bracketabi.SyncRetries),
		SyncErrors:      counters.syncErrors.Load() + cCounter(bracketabi.SyncErrors),
		SyncNotTTY:      counters.syncNotTTY.Load() + cCounter(bracketabi.SyncNotTTY),
		CoherentSkips:   counters.coherentSkips.Load(),
		NoopSyncs:       counters.noopSyncs.Load() + cCounter(bracketabi.NoopSyncs),
		UnbalancedSyncs: counters.unbalanced.Load(),
		BracketsOpened:  counters.bracketsOpened.Load() + cCounter(bracketabi.BracketsOpened),
		BracketsJoined:  counters.bracketsJoined.Load() + cCounter(bracketabi.BracketsJoined),
		BracketsWidened: counters.bracketsWidened.Load() + cCounter(bracketabi.BracketsWidened),
		BracketsClosed:  counters.bracketsClosed.Load() + cCounter(bracketabi.BracketsClosed),
		AllocFallbacks:  counters.allocFallbacks.Load(),

		FileBracketEnters: counters.fileEnters.Load(),

		FenceWaits:        fw,
		FenceWaitNanos:    fn,
		FenceWaitMaxNanos: fm,
		FenceTimeouts:     ft,
	}
}
