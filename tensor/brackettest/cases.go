// Package brackettest is the bracket rule's one set of cases, run
// against both of its implementations: package tensor's (Go:
// BeginCPUAccess, EndCPUAccess, on each buffer's record) and
// elements/internal/frameengine's cbracket.c (C: gstc_bracket_try_join,
// _try_enter, _try_enter_ready, _leave), which share one state word per
// buffer (internal/bracketabi). Each case is a sequence of steps by
// holders — each its own import of one buffer — with the SYNC ioctls
// every step must issue (START or END, with their access), its outcome
// and the bracket's state after it; Run plays every case with its holders
// on every assignment to the sides the test binary drives: all Go in
// package tensor's tests, and each assignment with a C holder — C alone,
// Go opening and C joining, C opening and Go closing — in frameengine's.
//
// Why cases and not one implementation: the rule is in both languages on
// purpose. Package tensor is pure Go, for Go applications with no
// GStreamer; a call from its per-frame bracket into C would cost a cgo
// transition (≈40-100 ns) and make it a cgo package. frameengine's frames run
// in C on GStreamer's streaming threads; a call into Go per frame costs
// more than the bracket. So the rule lives twice, and this table is
// where it is written once.
//
// It imports package tensor, so package tensor runs it from an external
// test (tensor_test); the seams it needs from package tensor come through
// internal/bracketabi.Seam.
package brackettest

import (
	"fmt"
	"syscall"
)

// Access is a bracket's access: DMA_BUF_SYNC_READ and _WRITE.
type Access uint8

const (
	R  Access = 1
	W  Access = 2
	RW Access = 3
)

func (a Access) String() string {
	switch a {
	case R:
		return "R"
	case W:
		return "W"
	case RW:
		return "RW"
	}
	return "-"
}

// The SYNC ioctl's direction flags.
const (
	syncStart = 0
	syncEnd   = 4
)

// Call is one DMA_BUF_IOCTL_SYNC's flags: START or END with an access.
type Call uint64

// Start and End are the calls of a START and an END for a.
func Start(a Access) Call { return Call(uint64(a) | syncStart) }
func End(a Access) Call   { return Call(uint64(a) | syncEnd) }

func (c Call) String() string {
	if c&syncEnd != 0 {
		return "END|" + Access(c&3).String()
	}
	return "START|" + Access(c&3).String()
}

// Op is what a step does.
type Op int

const (
	// Enter opens the bracket (a START), joins it (no ioctl) or widens
	// it (a START for the access it lacks). Go: BeginCPUAccess; C:
	// gstc_bracket_try_enter.
	Enter Op = iota
	// EnterReady is Enter that first looks at the buffer's fences when
	// it would START: not signalled, it is refused with nothing changed;
	// a join does not look. Go: BeginCPUAccessTimeout with a short
	// limit; C: gstc_bracket_try_enter_ready (one poll, no wait).
	EnterReady
	// Join joins an open bracket with at least the access, never an
	// ioctl, and is refused otherwise. C only: gstc_bracket_try_join.
	Join
	// Leave leaves the bracket; the last one out ENDs it with every
	// access it was opened or widened for. Go: EndCPUAccess with the
	// access the holder entered with; C: gstc_bracket_leave.
	Leave
	// CloseTensor closes the holder's tensor while it is inside: its
	// bracket keeps the file, and its END reaches it. Go only (a C holder
	// keeps its tensor open by contract).
	CloseTensor
	// Fences makes the buffer's fences pending (Pending) or signalled,
	// for both sides. No holder.
	Fences
)

func (o Op) String() string {
	if names := [...]string{"enter", "enter-ready", "join", "leave", "close-tensor", "fences"}; o >= 0 && int(o) < len(names) {
		return names[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Outcome is how a step ended.
type Outcome int

const (
	OK         Outcome = iota
	Refused            // nothing changed: Join's closed or narrower bracket, fences not signalled
	Unbalanced         // a leave with no one inside (Go: ErrUnbalancedSync; C: not left)
	SyncError          // the ioctl failed (Go: ErrSync with the errno; C: the errno)
)

func (o Outcome) String() string {
	if names := [...]string{"ok", "refused", "unbalanced", "sync error"}; o >= 0 && int(o) < len(names) {
		return names[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Step is one operation of a case and what it must do.
type Step struct {
	Op     Op
	Who    int    // the holder (0, 1, 2: a, b, c)
	Access Access // Enter, EnterReady, Join
	// Answers are the acting holder's side's next SYNC answers, in order
	// (0: success); after them every call succeeds.
	Answers []syscall.Errno
	Pending bool // Fences

	// Want is the outcome; Calls the SYNC ioctls the step issues, in
	// order (each must reach the buffer's file); Polled the fence poll
	// events it asks (OR-ed: POLLIN a reader's, POLLOUT a writer's; 0:
	// none); Refs and Open the bracket's holders and access after it.
	Want   Outcome
	Calls  []Call
	Polled int16
	Refs   int
	Open   Access
}

// Case is a named sequence of steps by Holders holders of one buffer.
type Case struct {
	Name    string
	Holders int
	Steps   []Step
}

// Poll events (POLLIN, POLLOUT).
const (
	pollIn  int16 = 0x1
	pollOut int16 = 0x4
)

// Step constructors: the holder, the access, then what it must do.
func enter(who int, a Access, want Outcome, refs int, open Access, calls ...Call) Step {
	return Step{Op: Enter, Who: who, Access: a, Want: want, Calls: calls, Refs: refs, Open: open}
}

func enterReady(who int, a Access, want Outcome, polled int16, refs int, open Access, calls ...Call) Step {
	return Step{Op: EnterReady, Who: who, Access: a, Want: want, Calls: calls, Polled: polled, Refs: refs, Open: open}
}

func join(who int, a Access, want Outcome, refs int, open Access) Step {
	return Step{Op: Join, Who: who, Access: a, Want: want, Refs: refs, Open: open}
}

func leave(who int, want Outcome, refs int, open Access, calls ...Call) Step {
	return Step{Op: Leave, Who: who, Want: want, Calls: calls, Refs: refs, Open: open}
}

func answering(s Step, errnos ...syscall.Errno) Step { s.Answers = errnos; return s }

func closeTensor(who int, refs int, open Access) Step {
	return Step{Op: CloseTensor, Who: who, Refs: refs, Open: open}
}

func fences(pending bool, refs int, open Access) Step {
	return Step{Op: Fences, Pending: pending, Refs: refs, Open: open}
}

// maxSyncRetries is both sides' bound on EINTR and EAGAIN retries.
const maxSyncRetries = 1000

const (
	a = 0
	b = 1
	c = 2
)

// Cases is the bracket rule.
var Cases = func() []Case {
	var cs []Case
	// One holder: START then END, with the same access.
	for _, x := range []Access{R, W, RW} {
		cs = append(cs, Case{"open and close " + x.String(), 1, []Step{
			enter(a, x, OK, 1, x, Start(x)),
			leave(a, OK, 0, 0, End(x)),
		}})
	}
	cs = append(cs,
		// A join costs nothing, and the END comes with the last one out,
		// through its own file, with the opener's access.
		Case{"join: the last one out ENDs", 2, []Step{
			enter(a, RW, OK, 1, RW, Start(RW)),
			enter(b, R, OK, 2, RW),
			leave(a, OK, 1, RW),
			leave(b, OK, 0, 0, End(RW)),
		}},
		Case{"join: the opener is last out", 2, []Step{
			enter(a, R, OK, 1, R, Start(R)),
			enter(b, R, OK, 2, R),
			leave(b, OK, 1, R),
			leave(a, OK, 0, 0, End(R)),
		}},
		// More access than the bracket's widens it: a START for the
		// access asked, and the END covers both.
		Case{"widen: a writer joins a reader", 2, []Step{
			enter(a, R, OK, 1, R, Start(R)),
			enter(b, W, OK, 2, RW, Start(W)),
			leave(a, OK, 1, RW),
			leave(b, OK, 0, 0, End(RW)),
		}},
		Case{"widen: readwrite over write", 2, []Step{
			enter(a, W, OK, 1, W, Start(W)),
			enter(b, RW, OK, 2, RW, Start(RW)),
			leave(b, OK, 1, RW),
			leave(a, OK, 0, 0, End(RW)),
		}},
		// Join (C's per-frame input bracket) never issues an ioctl: a
		// closed or narrower bracket refuses it, with nothing changed.
		Case{"join only an open bracket with the access", 2, []Step{
			join(b, R, Refused, 0, 0),
			enter(a, R, OK, 1, R, Start(R)),
			join(b, RW, Refused, 1, R),
			join(b, R, OK, 2, R),
			leave(a, OK, 1, R),
			leave(b, OK, 0, 0, End(R)),
		}},
		// A leave with no one inside is refused and reaches no ioctl.
		Case{"leave with no one inside", 2, []Step{
			leave(a, Unbalanced, 0, 0),
			enter(a, R, OK, 1, R, Start(R)),
			leave(a, OK, 0, 0, End(R)),
			leave(b, Unbalanced, 0, 0),
		}},
		// EINTR and EAGAIN are retried with the same flags.
		Case{"EINTR and EAGAIN retried", 1, []Step{
			answering(enter(a, R, OK, 1, R, Start(R), Start(R), Start(R), Start(R)), syscall.EINTR, syscall.EAGAIN, syscall.EINTR),
			answering(leave(a, OK, 0, 0, End(R), End(R)), syscall.EAGAIN),
		}},
		// Each holder counts its own brackets: leaving twice is refused
		// and does not end the bracket another is in.
		Case{"leaving twice is refused", 2, []Step{
			enter(a, RW, OK, 1, RW, Start(RW)),
			enter(b, R, OK, 2, RW),
			leave(b, OK, 1, RW),
			leave(b, Unbalanced, 1, RW),
			leave(a, OK, 0, 0, End(RW)),
		}},
		// ENOTTY: not a dma-buf after all — the bracket opens, and that
		// holder makes no more SYNC ioctls; the other still does.
		Case{"ENOTTY: that holder is coherent", 2, []Step{
			answering(enter(a, R, OK, 1, R, Start(R)), syscall.ENOTTY),
			leave(a, OK, 0, 0),
			enter(a, RW, OK, 1, RW),
			leave(a, OK, 0, 0),
			enter(b, R, OK, 1, R, Start(R)),
			leave(b, OK, 0, 0, End(R)),
		}},
		Case{"ENOTTY at the END of the last one out", 2, []Step{
			enter(a, RW, OK, 1, RW, Start(RW)),
			enter(b, R, OK, 2, RW),
			leave(a, OK, 1, RW),
			answering(leave(b, OK, 0, 0, End(RW)), syscall.ENOTTY),
			enter(b, R, OK, 1, R),
			leave(b, OK, 0, 0),
		}},
		// A START that fails leaves nothing: no bracket, or the narrower
		// one as it was.
		Case{"START fails: nothing opened", 1, []Step{
			answering(enter(a, RW, SyncError, 0, 0, Start(RW)), syscall.EIO),
			enter(a, RW, OK, 1, RW, Start(RW)),
			leave(a, OK, 0, 0, End(RW)),
		}},
		Case{"widening START fails: the reader's bracket kept", 2, []Step{
			enter(a, R, OK, 1, R, Start(R)),
			answering(enter(b, W, SyncError, 1, R, Start(W)), syscall.EIO),
			leave(a, OK, 0, 0, End(R)),
		}},
		// An END that fails closes the bracket all the same.
		Case{"END fails: closed all the same", 2, []Step{
			enter(a, RW, OK, 1, RW, Start(RW)),
			answering(leave(a, SyncError, 0, 0, End(RW)), syscall.EIO),
			enter(b, R, OK, 1, R, Start(R)),
			leave(b, OK, 0, 0, End(R)),
		}},
		// A tensor closed inside its bracket: the END still reaches the
		// file the START did (never a file given the fd's number since).
		Case{"a closed tensor's END", 1, []Step{
			enter(a, W, OK, 1, W, Start(W)),
			closeTensor(a, 1, W),
			leave(a, OK, 0, 0, End(W)),
		}},
		Case{"a closed tensor's END, another inside", 2, []Step{
			enter(a, RW, OK, 1, RW, Start(RW)),
			enter(b, R, OK, 2, RW),
			closeTensor(a, 2, RW),
			leave(b, OK, 1, RW),
			leave(a, OK, 0, 0, End(RW)),
		}},
		// Fences: a START waits for them (Go: bounded; C: one poll, else
		// refused) — a reader for the writers' (POLLIN), a writer for
		// every fence (POLLOUT); a join does not look at them.
		Case{"fences: an open waits, a join does not, a widening does", 3, []Step{
			fences(true, 0, 0),
			enterReady(a, R, Refused, pollIn, 0, 0),
			fences(false, 0, 0),
			enterReady(a, R, OK, pollIn, 1, R, Start(R)),
			fences(true, 1, R),
			enterReady(b, R, OK, 0, 2, R),
			enterReady(c, W, Refused, pollOut, 2, R),
			fences(false, 2, R),
			enterReady(c, W, OK, pollOut, 3, RW, Start(W)),
			leave(a, OK, 2, RW),
			leave(c, OK, 1, RW),
			leave(b, OK, 0, 0, End(RW)),
		}},
		Case{"fences: a writer's open polls every fence", 1, []Step{
			fences(true, 0, 0),
			enterReady(a, RW, Refused, pollOut, 0, 0),
			fences(false, 0, 0),
			enterReady(a, RW, OK, pollOut, 1, RW, Start(RW)),
			leave(a, OK, 0, 0, End(RW)),
		}},
	)
	// EINTR without end: given up after 1000 retries, an error with
	// nothing opened.
	endless := make([]syscall.Errno, maxSyncRetries+1)
	starts := make([]Call, maxSyncRetries+1)
	for i := range endless {
		endless[i], starts[i] = syscall.EINTR, Start(W)
	}
	cs = append(cs, Case{"endless EINTR: given up", 1, []Step{
		answering(enter(a, W, SyncError, 0, 0, starts...), endless...),
		enter(a, W, OK, 1, W, Start(W)),
		leave(a, OK, 0, 0, End(W)),
	}})
	// Three holders, every order of leaving: one START, one END by the
	// last one out, never one while anyone is inside.
	for _, order := range [][3]int{{a, b, c}, {a, c, b}, {b, a, c}, {b, c, a}, {c, a, b}, {c, b, a}} {
		steps := []Step{
			enter(a, RW, OK, 1, RW, Start(RW)),
			enter(b, R, OK, 2, RW),
			enter(c, R, OK, 3, RW),
		}
		for k, who := range order {
			if k == 2 {
				steps = append(steps, leave(who, OK, 0, 0, End(RW)))
			} else {
				steps = append(steps, leave(who, OK, 2-k, RW))
			}
		}
		cs = append(cs, Case{"END by the last of three, leaving " + string(rune('a'+order[0])) +
			string(rune('a'+order[1])) + string(rune('a'+order[2])), 3, steps})
	}
	return cs
}()
