package pin

import "sync/atomic"

// Stats are process-wide counters of this package. Compare two readings to
// count what an operation did.
type Stats struct {
	Maps     uint64 // successful mmap calls
	Unmaps   uint64 // successful munmap calls
	LivePins int64  // pin handles taken and not yet released
	Leaks    uint64 // owners found leaked by the safety net (released or quarantined)
	// Owners (mappings, pinned buffers) the safety net found leaked and kept
	// instead of freeing, and their bytes: they stay allocated until exit.
	Quarantined      uint64
	QuarantinedBytes uint64
}

var stats struct {
	maps, unmaps, leaks           atomic.Uint64
	quarantined, quarantinedBytes atomic.Uint64
	livePins                      atomic.Int64
}

// ReadStats returns the current counters.
func ReadStats() Stats {
	return Stats{
		Maps:     stats.maps.Load(),
		Unmaps:   stats.unmaps.Load(),
		LivePins: stats.livePins.Load(),
		Leaks:    stats.leaks.Load(),

		Quarantined:      stats.quarantined.Load(),
		QuarantinedBytes: stats.quarantinedBytes.Load(),
	}
}
