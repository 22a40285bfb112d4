// Package bracketabi is the part of package tensor's CPU-access bracket
// records that C reaches: a state word per record and a block of
// counters, both in memory that Go's collector neither moves nor frees,
// so that a GStreamer streaming thread in C (elements/internal/frameengine) can
// join, open and leave a bracket that Go code shares, without a call into
// Go. Package tensor owns the memory and fills in Of and Counters at
// init; nothing outside this module sees it.
//
// # The state word
//
// One uint64 per record (one per dma-buf or file identity in the
// process): the number of holders inside the bracket (RefsMask), the
// access it was opened or widened for (DMA_BUF_SYNC_READ and _WRITE,
// shifted by AccessShift), and Busy while a holder issues the START or
// END ioctl that moves the bracket between closed and open (or widens
// it). Every change is a compare-and-swap of the whole word; only the
// one who set Busy changes a Busy word (and clears Busy), so an ioctl
// never races a join or a leave. Go serializes its own changes of one
// record under the record's mutex (held across its ioctls, as before);
// C takes no lock. Either side that finds a word Busy waits for it to
// clear (a START or an END: the time of one ioctl).
//
// The rule is package tensor's: the first one in STARTs (opens), a join
// of an open bracket is free, one that needs more access STARTs for it
// (widens), and the last one out ENDs with every access the bracket was
// used for.
//
// # Lifetime
//
// A record's word lives as long as the process (records are recycled,
// never freed). A Bracket's FD is the storage's own: borrowed, valid
// while the tensor it came from is open — its holder must keep the
// tensor open while it uses the Bracket.
package bracketabi

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The state word's fields.
const (
	RefsMask    = 1<<32 - 1 // holders inside the bracket
	AccessShift = 32        // (word >> AccessShift) & 3: the bracket's access
	Busy        = 1 << 40   // a START or END in progress
)

// Indices of the counter block's uint64s, each added into the field of
// tensor.Stats of the same name.
const (
	SyncStart = iota
	SyncEnd
	SyncRetries
	SyncErrors
	SyncNotTTY
	NoopSyncs
	BracketsOpened
	BracketsJoined
	BracketsWidened
	BracketsClosed
	NumCounters
)

// Bracket is what C needs to enter and leave one tensor's bracket.
type Bracket struct {
	// Word is the record's state word (a *uint64).
	Word unsafe.Pointer
	// FD is the tensor's storage fd (borrowed: see Lifetime).
	FD int
	// Ioctl: the storage is a dma-buf whose syncs reach the kernel; false
	// for memfd and for a dma-buf that answered ENOTTY (coherent).
	Ioctl bool
}

// Of returns the bracket of t, a *tensor.Tensor; false if t's storage
// shares no brackets (Go heap memory) or is closed. Set by package
// tensor's init.
var Of func(t any) (Bracket, bool)

// Counters is the counter block: NumCounters uint64s in an anonymous
// mapping (never unmapped), mapped here rather than by package tensor so
// that it exists before any package's init hands it to C.
var Counters = MapWords(NumCounters)

// MapWords maps n zeroed uint64s that the collector neither moves nor
// frees (an anonymous mapping, never unmapped).
func MapWords(n int) unsafe.Pointer {
	mem, err := unix.Mmap(-1, 0, n*8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		// An anonymous page the process cannot map: nothing works then.
		panic("bracketabi: cannot map bracket state words: " + err.Error())
	}
	return unsafe.Pointer(&mem[0])
}

// Seam is package tensor's test seams, for the bracket rule's cases
// (tensor/brackettest) run from other packages' tests against package
// tensor and C together. Package tensor's init fills it in; each function
// panics outside a test binary.
var Seam struct {
	// AsDMABuf makes t, a *tensor.Tensor over a memfd, take the dma-buf
	// code path (its SYNC ioctls reach SetSyncIoctl's stand-in, its fence
	// waits SetPollFence's); call it before t is used.
	AsDMABuf func(t any)
	// SetSyncIoctl replaces package tensor's DMA_BUF_IOCTL_SYNC (one try:
	// nil or its errno) and returns the function that puts back what it
	// replaced.
	SetSyncIoctl func(f func(fd int, flags uint64) error) (restore func())
	// SetPollFence replaces the poll of package tensor's fence waits
	// (whether fd is ready for events within timeout).
	SetPollFence func(f func(fd int, events int16, timeout time.Duration) (bool, error)) (restore func())
}
