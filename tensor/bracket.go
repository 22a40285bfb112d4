package tensor

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/internal/bracketabi"
)

// One bracket per buffer, shared by every import in the process.
//
// DMA_BUF_IOCTL_SYNC acts on the dma-buf, not on the fd: a START through
// one import and an END through another bracket the same memory. So a
// CPU-access bracket belongs to the buffer (its Identity), and every
// tensor over that buffer in this process — a source's own, each sink's
// import, every view and plane — shares it. The first SyncForCPU opens it
// (the START ioctl); later ones while it is open join it (no ioctl); each
// SyncForDevice leaves it, and only the last one out closes it (the END
// ioctl, with every access the bracket was used for). Readers in any
// number of pipeline branches therefore cost one START and one END per
// frame, and the END never comes while any of them is still inside.
//
// Each tensor still counts its own opens per access, so SyncForDevice
// without its SyncForCPU remains ErrUnbalancedSync.

// sharedBracket is the open bracket of one buffer.
type sharedBracket struct {
	mu sync.Mutex // serializes Go's changes of word, held across its ioctls: a join waits for the START
	// word: refs (SyncForCPU calls inside it, C's included), the union of
	// their accesses, and Busy while a START or END is issued, by Go or C
	// (bracketword.go).
	word  *bracketWord
	users int // holders (guarded by brackets.mu): each fd-backed storage of the buffer for its life, each file bracket while entered
	files int // file brackets entered and not yet left (guarded by brackets.mu)
}

// state returns the bracket's holders and access, waiting out a Busy
// word; b.mu is held.
func (b *sharedBracket) state() (refs int, a Access) {
	w := b.word.settled()
	return wordRefs(w), wordAccess(w)
}

var brackets struct {
	mu   sync.Mutex
	open map[Identity]*sharedBracket
	free []*sharedBracket // recycled records: a frame allocates nothing
}

// acquireBracket returns id's record, creating it, and counts a user.
func acquireBracket(id Identity) *sharedBracket {
	brackets.mu.Lock()
	defer brackets.mu.Unlock()
	if brackets.open == nil {
		brackets.open = make(map[Identity]*sharedBracket)
	}
	b := brackets.open[id]
	if b == nil {
		if n := len(brackets.free); n > 0 {
			b = brackets.free[n-1]
			brackets.free = brackets.free[:n-1]
			b.word.v.Store(0) // closed already: only closed records are recycled
		} else {
			b = &sharedBracket{word: newBracketWord()}
		}
		brackets.open[id] = b
	}
	b.users++
	return b
}

// releaseBracket drops a user of id's record, forgetting it with the last.
// A record forgotten with a bracket still open in it — its storage lost
// inside a bracket and released by the leak safety net — is not recycled:
// another buffer would join that bracket without a START.
func releaseBracket(id Identity, b *sharedBracket) {
	brackets.mu.Lock()
	defer brackets.mu.Unlock()
	b.users--
	if b.users == 0 {
		delete(brackets.open, id)
		b.mu.Lock() // never held by anyone waiting for brackets.mu
		refs, _ := b.state()
		b.mu.Unlock()
		closed := refs == 0
		if closed {
			brackets.free = append(brackets.free, b)
		}
	}
}

// lookupBracket returns id's record with a user counted, or nil.
func lookupBracket(id Identity) *sharedBracket {
	brackets.mu.Lock()
	defer brackets.mu.Unlock()
	b := brackets.open[id]
	if b != nil {
		b.users++
	}
	return b
}

// sharesBrackets reports whether the storage's brackets are shared by
// identity: fd-backed storage, which other imports can reach.
func (s *storage) sharesBrackets() bool {
	return s.backend == BackendDMABuf || s.backend == BackendSHM
}

// enterShared opens or joins the buffer's bracket with access a. It
// reports whether it joined one that was already open.
//
// With timeout > 0, when the call would issue a START (opening the
// bracket, or widening it) it first waits for the buffer's fences with
// the record's lock released — a stuck fence must not hold up joins of
// other buffers' or this one's open bracket — and retakes it to decide
// again, since the bracket may have been opened meanwhile (then it joins:
// that wait was for nothing, but harmless). A failed wait gives the
// record back: nothing is left open or recorded.
//
// The record is the storage's own user of it (s.rec, held from the
// storage's creation): no lookup in the process's table.
func (s *storage) enterShared(a Access, doIoctl bool, timeout time.Duration) (joined bool, waited time.Duration, err error) {
	b := s.rec
	b.mu.Lock()
	if refs, access := b.state(); doIoctl && timeout > 0 && (refs == 0 || access&a != a) {
		b.mu.Unlock()
		if waited, err = s.waitFences(a, timeout); err != nil {
			return false, waited, err
		}
		b.mu.Lock()
	}
	joined, err = b.enterLocked(a, doIoctl, &s.sync, s.fd)
	b.mu.Unlock()
	return joined, waited, err
}

// leaveShared leaves the buffer's bracket; the last one out does the END
// ioctl (through this import's fd) with the bracket's whole access. It
// reports whether it closed the bracket.
func (s *storage) leaveShared(doIoctl bool) (closed bool, err error) {
	b := s.rec
	b.mu.Lock()
	defer b.mu.Unlock()
	closed, err = b.leaveLocked(doIoctl, &s.sync, s.fd)
	if errors.Is(err, errNotOpen) {
		return false, fmt.Errorf("leave bracket on %v: no open bracket: %w", s.id, ErrUnbalancedSync)
	}
	return closed, err
}

// leaveFileBracket leaves a file bracket on id's open bracket through fd
// (the END, with the bracket's whole access, if this is the last one out)
// and drops the user its enter counted. Without a file bracket entered on
// id it is ErrUnbalancedSync and reaches no ioctl: a stray leave must not
// end a storage's bracket or take its user (the record would be forgotten
// under the storage, and recycled for another buffer).
func leaveFileBracket(id Identity, doIoctl bool, ss *syncState, fd int) (closed bool, err error) {
	// This leave claims one entered file bracket; the user that enter
	// counted keeps the record in the table until the releaseBracket
	// below.
	brackets.mu.Lock()
	b := brackets.open[id]
	if b == nil || b.files == 0 {
		brackets.mu.Unlock()
		return false, fmt.Errorf("leave bracket on %v: no file bracket entered: %w", id, ErrUnbalancedSync)
	}
	b.files--
	brackets.mu.Unlock()
	defer releaseBracket(id, b) // the user counted when we entered
	b.mu.Lock()
	defer b.mu.Unlock()
	closed, err = b.leaveLocked(doIoctl, ss, fd)
	if errors.Is(err, errNotOpen) {
		return false, fmt.Errorf("leave bracket on %v: no open bracket: %w", id, ErrUnbalancedSync)
	}
	return closed, err
}

// enterLocked opens the bracket (START through fd) or joins it, widening
// it (another START) when it is open for less than a; b.mu is held, so
// only C changes the word meanwhile: a join or a leave that is not the
// last (a compare-and-swap that fails is retried on the new word), or a
// START or END under Busy (waited out). Go's own ioctl is issued under
// Busy too, so C neither joins a bracket being opened nor leaves one
// being widened.
func (b *sharedBracket) enterLocked(a Access, doIoctl bool, ss *syncState, fd int) (joined bool, err error) {
	for {
		w := b.word.settled()
		refs, access := wordRefs(w), wordAccess(w)
		if refs > 0 && access&a == a {
			if !b.word.v.CompareAndSwap(w, w+1) {
				continue
			}
			counters.bracketsJoined.Add(1)
			return true, nil
		}
		// Open it, or widen it: a START for a, under Busy.
		if doIoctl {
			if !b.word.v.CompareAndSwap(w, w|bracketabi.Busy) {
				continue
			}
			err = ss.dmabufSync(fd, uint64(a)|dmaBufSyncStart)
			if err != nil {
				b.word.v.Store(w)
				return false, err
			}
			b.word.v.Store(packWord(refs+1, access|a))
		} else if !b.word.v.CompareAndSwap(w, packWord(refs+1, access|a)) {
			continue
		}
		if refs == 0 {
			counters.bracketsOpened.Add(1)
			return false, nil
		}
		// Open for less than a (a reader's bracket, a writer joining):
		// START for a too, and END with both at the close.
		counters.bracketsWidened.Add(1)
		counters.bracketsJoined.Add(1)
		return true, nil
	}
}

// errNotOpen: a leave found no holder inside the bracket.
var errNotOpen = errors.New("no open bracket")

// leaveLocked leaves the bracket; the last one out ENDs it through fd
// with the bracket's whole access (under Busy). b.mu is held.
func (b *sharedBracket) leaveLocked(doIoctl bool, ss *syncState, fd int) (closed bool, err error) {
	for {
		w := b.word.settled()
		refs, access := wordRefs(w), wordAccess(w)
		switch {
		case refs <= 0:
			return false, errNotOpen
		case refs > 1:
			if !b.word.v.CompareAndSwap(w, w-1) {
				continue
			}
			return false, nil
		case doIoctl:
			if !b.word.v.CompareAndSwap(w, w|bracketabi.Busy) {
				continue
			}
			err = ss.dmabufSync(fd, uint64(access)|dmaBufSyncEnd)
			b.word.v.Store(0)
		default:
			if !b.word.v.CompareAndSwap(w, 0) {
				continue
			}
		}
		counters.bracketsClosed.Add(1)
		return true, err
	}
}

// OpenBracket reports whether the buffer with identity id has a CPU-access
// bracket open in this process, and with which access.
func OpenBracket(id Identity) (Access, bool) {
	b := lookupBracket(id)
	if b == nil {
		return AccessNone, false
	}
	b.mu.Lock()
	refs, a := b.state()
	b.mu.Unlock()
	releaseBracket(id, b)
	return a, refs > 0
}

// EnterFileBracket opens or joins the process's CPU-access bracket on the
// dma-buf whose file is id, through fd — for memory that is not a Tensor
// of this package: a GstMemory of the project's allocators that a
// GStreamer element maps (gstglue's bracket allocator calls it from its map).
// A map inside a bracket some tensor (or another map) has open costs no
// ioctl; otherwise it is the START GStreamer's own dma-buf map would
// issue. fd is borrowed and must stay open until the matching
// LeaveFileBracket. It does not wait for fences (GStreamer's map does
// not either: the START itself waits).
func EnterFileBracket(fd int, id Identity, a Access) (joined bool, err error) {
	if !a.valid() {
		return false, fmt.Errorf("enter bracket on %v with access %v: %w", id, a, ErrAccess)
	}
	b := acquireBracket(id)
	b.mu.Lock()
	joined, err = b.enterLocked(a, true, &fileSync, fd)
	b.mu.Unlock()
	if err != nil {
		releaseBracket(id, b)
	} else {
		brackets.mu.Lock()
		b.files++ // held by its user: still id's record
		brackets.mu.Unlock()
	}
	counters.fileEnters.Add(1)
	return joined, err
}

// LeaveFileBracket leaves a bracket EnterFileBracket entered; the last
// one out ENDs it through fd (which must be a file of the same dma-buf)
// with every access the bracket was used for. It reports whether this
// call closed the bracket.
func LeaveFileBracket(fd int, id Identity) (closed bool, err error) {
	closed, err = leaveFileBracket(id, true, &fileSync, fd)
	if errors.Is(err, ErrUnbalancedSync) {
		counters.unbalanced.Add(1)
	}
	return closed, err
}

// fileSync is the sync state of file brackets: the ioctl's retry loop and
// counters. Its coherent flag is never consulted for a decision that
// matters: the project's allocators give it only real dma-bufs.
var fileSync syncState
