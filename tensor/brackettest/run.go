package brackettest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/internal/bracketabi"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Side is the implementation a holder uses.
type Side int

const (
	Go Side = iota
	C
)

func (s Side) String() string { return [...]string{"Go", "C"}[s] }

// Holder is one holder of the bracket: one import of the buffer, entering
// and leaving through one side's implementation.
type Holder interface {
	// Enter enters with a (ready: EnterReady, fences looked at). joined:
	// it joined a bracket already open (Go reports it; C does not).
	Enter(a Access, ready bool) (joined bool, o Outcome, err error)
	// Join is C's join (Go has none: never called on a Go holder).
	Join(a Access) (Outcome, error)
	// Leave leaves the bracket; a is the access this holder entered
	// with (Go's EndCPUAccess wants it). closed: this call closed it.
	Leave(a Access) (closed bool, o Outcome, err error)
	// CloseTensor closes the holder's tensor (Go only).
	CloseTensor()
	// Inside is how many brackets the holder counts as its own (Go's
	// OpenSyncs), or -1 (C counts none).
	Inside() int
}

// CSide is what a test binary with C brackets gives Run (frameengine's tests,
// through its seam).
type CSide struct {
	// Install stands in for the kernel under C's brackets (every SYNC
	// succeeds, fences signalled) and returns the function that undoes
	// it.
	Install func() (restore func())
	// Holder returns a C holder on tn's bracket (tn stays open; the
	// holder is freed at the test's end).
	Holder func(t *testing.T, tn *tensor.Tensor) Holder
	// Script sets the answers of C's next SYNC ioctls.
	Script func(answers []syscall.Errno)
	// Fences makes the fences C polls pending or signalled.
	Fences func(pending bool)
	// Drain returns C's SYNC ioctls since the last drain (flags and the
	// inode of the file each reached) and the poll events asked.
	Drain func() (calls []Call, inodes []uint64, polled int16)
}

// Run plays every case of Cases — with cside nil, with every holder on
// the Go side (package tensor's run); else on every assignment of the
// holders to sides that has a C holder (frameengine's run: C alone and C with
// Go on one word). An assignment that gives an operation to a side
// without it (Join to Go, CloseTensor to C, a leave by a C holder that is
// not inside an open bracket: C trusts its caller) is not played.
func Run(t *testing.T, cside *CSide) {
	played := 0
	for _, cs := range Cases {
		for _, sides := range assignments(cs.Holders, cside != nil) {
			if !playable(cs, sides) {
				continue
			}
			played++
			t.Run(cs.Name+"/"+sideNames(sides), func(t *testing.T) { play(t, cs, sides, cside) })
		}
	}
	if played == 0 {
		t.Fatal("no case was played")
	}
}

// assignments lists the holders' sides: all Go, or each with a C.
func assignments(n int, withC bool) [][]Side {
	if !withC {
		return [][]Side{make([]Side, n)}
	}
	var out [][]Side
	for bits := 1; bits < 1<<n; bits++ {
		s := make([]Side, n)
		for i := range s {
			if bits&(1<<i) != 0 {
				s[i] = C
			}
		}
		out = append(out, s)
	}
	return out
}

func sideNames(sides []Side) string {
	var b strings.Builder
	for _, s := range sides {
		b.WriteString(s.String())
	}
	return b.String()
}

// playable reports whether every step's operation exists on its
// holder's side.
func playable(cs Case, sides []Side) bool {
	inside := make([]int, cs.Holders)
	refs := 0
	for _, s := range cs.Steps {
		switch s.Op {
		case Join:
			if sides[s.Who] != C {
				return false
			}
		case CloseTensor:
			if sides[s.Who] != Go {
				return false
			}
		case Leave:
			if sides[s.Who] == C && inside[s.Who] == 0 && refs > 0 {
				return false
			}
		}
		if s.Want == OK {
			switch s.Op {
			case Enter, EnterReady, Join:
				inside[s.Who]++
			case Leave:
				inside[s.Who]--
			}
		} else if s.Op == Leave && s.Want == SyncError {
			inside[s.Who]--
		}
		refs = s.Refs
	}
	return true
}

// recorder is the Go side's stand-in for the kernel: every SYNC ioctl
// recorded with the inode its fd named, answered from a script; fences
// pending or not.
type recorder struct {
	answers []syscall.Errno
	calls   []Call
	inodes  []uint64
	pending atomic.Bool
	polled  atomic.Int32
}

func (r *recorder) sync(fd int, flags uint64) error {
	var st unix.Stat_t
	ino := uint64(0)
	if unix.Fstat(fd, &st) == nil {
		ino = st.Ino
	}
	r.calls = append(r.calls, Call(flags))
	r.inodes = append(r.inodes, ino)
	if len(r.answers) > 0 {
		e := r.answers[0]
		r.answers = r.answers[1:]
		if e != 0 {
			return e
		}
	}
	return nil
}

func (r *recorder) poll(fd int, events int16, timeout time.Duration) (bool, error) {
	for {
		p := r.polled.Load()
		if r.polled.CompareAndSwap(p, p|int32(events)) {
			break
		}
	}
	return !r.pending.Load(), nil
}

func (r *recorder) drain() (calls []Call, inodes []uint64, polled int16) {
	calls, inodes, r.calls, r.inodes = r.calls, r.inodes, nil, nil
	return calls, inodes, int16(r.polled.Swap(0))
}

// fenceLimit is Go's fence wait in EnterReady: short, the fake's fences
// never signal during it.
const fenceLimit = time.Millisecond

func play(t *testing.T, cs Case, sides []Side, cside *CSide) {
	rec := &recorder{}
	t.Cleanup(bracketabi.Seam.SetSyncIoctl(rec.sync))
	t.Cleanup(bracketabi.Seam.SetPollFence(rec.poll))
	if cside != nil {
		t.Cleanup(cside.Install())
	}
	// The buffer: a memfd standing in for a dma-buf, one import per
	// holder (each its own storage, all on one record).
	lay := tensor.Layout{DType: tensor.U8, Shape: []int{4096}}
	first, err := tensor.Alloc(lay, tensor.AllocOptions{Source: tensor.SourceMemfd})
	if err != nil {
		t.Fatal(err)
	}
	bracketabi.Seam.AsDMABuf(first)
	t.Cleanup(func() { first.Close() })
	ino := first.Identity().Ino
	word := (*atomic.Uint64)(mustBracket(t, first).Word)
	holders := make([]Holder, cs.Holders)
	for i, side := range sides {
		tn, err := tensor.ImportFD(first.FD(), lay)
		if err != nil {
			t.Fatal(err)
		}
		bracketabi.Seam.AsDMABuf(tn)
		t.Cleanup(func() { tn.Close() })
		if side == Go {
			holders[i] = &goHolder{t: t, tn: tn}
		} else {
			holders[i] = cside.Holder(t, tn)
		}
	}
	entered := make([][]Access, cs.Holders) // each holder's accesses inside, last on top
	for k, s := range cs.Steps {
		what := fmt.Sprintf("step %d (%s", k+1, s.Op)
		if s.Op != Fences {
			what += fmt.Sprintf(" by %c on %v", 'a'+s.Who, sides[s.Who])
		}
		if s.Access != 0 {
			what += " " + s.Access.String()
		}
		what += ")"
		if s.Answers != nil {
			if sides[s.Who] == Go {
				rec.answers = slices.Clone(s.Answers)
			} else {
				cside.Script(s.Answers)
			}
		}
		before := tensor.ReadStats()
		w0 := word.Load()
		var got Outcome
		var closed, joined bool
		switch s.Op {
		case Fences:
			rec.pending.Store(s.Pending)
			if cside != nil {
				cside.Fences(s.Pending)
			}
		case Enter, EnterReady:
			joined, got, err = holders[s.Who].Enter(s.Access, s.Op == EnterReady)
		case Join:
			got, err = holders[s.Who].Join(s.Access)
		case Leave:
			in := entered[s.Who]
			access := R
			if len(in) > 0 {
				access = in[len(in)-1]
			}
			closed, got, err = holders[s.Who].Leave(access)
		case CloseTensor:
			holders[s.Who].CloseTensor()
		}
		if got != s.Want {
			t.Fatalf("%s: %v (%v), want %v", what, got, err, s.Want)
		}
		if got == SyncError && !errors.Is(err, s.Answers[len(s.Calls)-1]) {
			t.Fatalf("%s: the error %v does not wrap the ioctl's %v", what, err, s.Answers[len(s.Calls)-1])
		}
		if s.Answers != nil {
			rec.answers = nil
			if cside != nil {
				cside.Script(nil)
			}
		}
		// The ioctls, on the buffer's file, from either side.
		calls, inodes, polled := rec.drain()
		if cside != nil {
			cc, ci, cp := cside.Drain()
			calls, inodes, polled = append(calls, cc...), append(inodes, ci...), polled|cp
		}
		if !slices.Equal(calls, s.Calls) {
			t.Fatalf("%s: SYNC ioctls %v, want %v", what, calls, s.Calls)
		}
		for i, n := range inodes {
			if n != ino {
				t.Fatalf("%s: %v reached inode %d, not the buffer's (%d)", what, calls[i], n, ino)
			}
		}
		if polled != s.Polled {
			t.Fatalf("%s: polled for events %#x, want %#x", what, polled, s.Polled)
		}
		// The shared word.
		w := word.Load()
		refs, open := int(w&bracketabi.RefsMask), Access(w>>bracketabi.AccessShift)&RW
		if w&bracketabi.Busy != 0 || refs != s.Refs || open != s.Open {
			t.Fatalf("%s: bracket %d holders %v (word %#x), want %d %v", what, refs, open, w, s.Refs, s.Open)
		}
		// The holders' own count, and the counters both sides add to.
		r0, a0 := int(w0&bracketabi.RefsMask), Access(w0>>bracketabi.AccessShift)&RW
		if s.Op == Leave && got != Unbalanced && closed != (refs == 0 && r0 > 0) {
			t.Fatalf("%s: reported closed=%v with %d holders left", what, closed, refs)
		}
		if (s.Op == Enter || s.Op == EnterReady) && got == OK && sides[s.Who] == Go && joined != (r0 > 0) {
			t.Fatalf("%s: reported joined=%v on a bracket of %d holders", what, joined, r0)
		}
		after := tensor.ReadStats()
		checkCounters(t, what, before, after, s.Op, got, r0, a0, refs, open)
		checkSyncCounters(t, what, before, after, calls, s.Answers)
		if got == OK || (s.Op == Leave && got == SyncError) {
			switch s.Op {
			case Enter, EnterReady, Join:
				entered[s.Who] = append(entered[s.Who], s.Access)
			case Leave:
				entered[s.Who] = entered[s.Who][:len(entered[s.Who])-1]
			}
		}
		for i, h := range holders {
			if n := h.Inside(); n >= 0 && n != len(entered[i]) {
				t.Fatalf("%s: holder %c counts %d brackets of its own, want %d", what, 'a'+i, n, len(entered[i]))
			}
		}
	}
}

// checkCounters checks Stats' bracket counters against the step's change
// of the word: an open, a join, a widening (a join too) or a close.
func checkCounters(t *testing.T, what string, before, after tensor.Stats, op Op, got Outcome, r0 int, a0 Access, r1 int, a1 Access) {
	t.Helper()
	var opened, joined, widened, closed uint64
	switch {
	case op == Leave && r0 > 0 && r1 == 0:
		closed = 1
	case (op == Enter || op == EnterReady || op == Join) && got == OK:
		switch {
		case r0 == 0:
			opened = 1
		case a1 != a0:
			widened, joined = 1, 1
		default:
			joined = 1
		}
	}
	d := [4]uint64{after.BracketsOpened - before.BracketsOpened, after.BracketsJoined - before.BracketsJoined,
		after.BracketsWidened - before.BracketsWidened, after.BracketsClosed - before.BracketsClosed}
	if want := [4]uint64{opened, joined, widened, closed}; d != want {
		t.Fatalf("%s: brackets opened, joined, widened, closed counted %v, want %v", what, d, want)
	}
}

// checkSyncCounters checks Stats' SYNC counters against the step's
// ioctls and their answers: a success counts a START or an END, EINTR or
// EAGAIN followed by another try a retry, ENOTTY a not-TTY, anything else
// an error.
func checkSyncCounters(t *testing.T, what string, before, after tensor.Stats, calls []Call, answers []syscall.Errno) {
	t.Helper()
	var want [5]uint64 // start, end, retries, notty, errors
	for i, c := range calls {
		var e syscall.Errno
		if i < len(answers) {
			e = answers[i]
		}
		switch {
		case e == 0 && c&syncEnd != 0:
			want[1]++
		case e == 0:
			want[0]++
		case (e == syscall.EINTR || e == syscall.EAGAIN) && i < len(calls)-1:
			want[2]++
		case e == syscall.ENOTTY:
			want[3]++
		default:
			want[4]++
		}
	}
	d := [5]uint64{after.SyncStart - before.SyncStart, after.SyncEnd - before.SyncEnd, after.SyncRetries - before.SyncRetries,
		after.SyncNotTTY - before.SyncNotTTY, after.SyncErrors - before.SyncErrors}
	if d != want {
		t.Fatalf("%s: SYNC starts, ends, retries, not-TTYs, errors counted %v, want %v", what, d, want)
	}
}

func mustBracket(t *testing.T, tn *tensor.Tensor) bracketabi.Bracket {
	b, ok := bracketabi.Of(tn)
	if !ok {
		t.Fatal("a memfd tensor has no shared bracket")
	}
	return b
}

// goHolder is a holder on package tensor's side.
type goHolder struct {
	t   *testing.T
	tn  *tensor.Tensor
	fds []int
}

func goOutcome(err error) (Outcome, error) {
	switch {
	case err == nil:
		return OK, nil
	case errors.Is(err, tensor.ErrFenceTimeout):
		return Refused, err
	case errors.Is(err, tensor.ErrUnbalancedSync):
		return Unbalanced, err
	case errors.Is(err, tensor.ErrSync):
		return SyncError, err
	}
	return -1, err
}

func (h *goHolder) Enter(a Access, ready bool) (joined bool, o Outcome, err error) {
	if ready {
		joined, _, err = h.tn.BeginCPUAccessTimeout(tensor.Access(a), fenceLimit)
	} else {
		joined, err = h.tn.BeginCPUAccess(tensor.Access(a))
	}
	o, err = goOutcome(err)
	return joined, o, err
}

func (h *goHolder) Inside() int { return h.tn.OpenSyncs() }

func (h *goHolder) Join(Access) (Outcome, error) { panic("brackettest: Go has no Join") }

func (h *goHolder) Leave(a Access) (bool, Outcome, error) {
	closed, err := h.tn.EndCPUAccess(tensor.Access(a))
	o, err := goOutcome(err)
	return closed, o, err
}

// CloseTensor closes the tensor, then makes files until one would take
// its fd's number — which one does only if the storage let it go inside
// its bracket: then the END would reach that file, and the step's inode
// check fails.
func (h *goHolder) CloseTensor() {
	fd := h.tn.FD()
	if err := h.tn.Close(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		for _, f := range h.fds {
			unix.Close(f)
		}
	})
	for range 16 {
		f, err := unix.MemfdCreate("brackettest-other", unix.MFD_CLOEXEC)
		if err != nil {
			h.t.Fatal(err)
		}
		h.fds = append(h.fds, f)
		if f == fd {
			break
		}
	}
}
