package frameengine

// cbracket.go: package tensor's CPU-access brackets entered and left from
// C (internal/bracketabi has the shared state word and its protocol), so
// that a frame done in C (steady.go) and a memory's return (outring.go)
// bracket the memory as Go code would, sharing each bracket with every
// Go holder of the same dma-buf.

/*
#cgo nocallback gstc_bracket_try_enter
#cgo nocallback gstc_bracket_try_enter_ready
#cgo nocallback gstc_bracket_leave
#include "cbracket.h"

// The test seam (below): a stand-in for a dma-buf's driver and fences.

#include <sys/stat.h>

#define SEAM_MAX 1100

typedef struct
{
  guint64 flags;
  guint64 ino;
} GstcSeamCall;

static struct
{
  int answers[SEAM_MAX];
  int n_answers, next;
  GstcSeamCall calls[SEAM_MAX];
  int n_calls;
  gboolean pending;
  short polled;
  int (*sync) (int fd, guint64 flags);
  gboolean (*fences) (int fd, short events);
} seam;

static int
seam_sync (int fd, guint64 flags)
{
  struct stat st;

  if (seam.n_calls < SEAM_MAX) {
    seam.calls[seam.n_calls].flags = flags;
    seam.calls[seam.n_calls].ino = fstat (fd, &st) == 0 ? st.st_ino : 0;
    seam.n_calls++;
  }
  if (seam.next < seam.n_answers)
    return seam.answers[seam.next++];
  return 0;
}

static gboolean
seam_fences (int fd, short events)
{
  seam.polled |= events;
  return !seam.pending;
}

static void
seam_install (void)
{
  seam.sync = gstc_bracket_sync_ioctl;
  seam.fences = gstc_bracket_fences_ready;
  seam.n_answers = seam.next = seam.n_calls = 0;
  seam.pending = FALSE;
  seam.polled = 0;
  gstc_bracket_sync_ioctl = seam_sync;
  gstc_bracket_fences_ready = seam_fences;
}

static void
seam_restore (void)
{
  gstc_bracket_sync_ioctl = seam.sync;
  gstc_bracket_fences_ready = seam.fences;
}

static void
seam_script (const int *answers, int n)
{
  int i;

  for (i = 0; i < n && i < SEAM_MAX; i++)
    seam.answers[i] = answers[i];
  seam.n_answers = i;
  seam.next = 0;
}

static void
seam_fences_pending (gboolean pending)
{
  seam.pending = pending;
}

static int
seam_drain (GstcSeamCall * out, int max, short *polled)
{
  int n = seam.n_calls < max ? seam.n_calls : max;
  int i;

  for (i = 0; i < n; i++)
    out[i] = seam.calls[i];
  seam.n_calls = 0;
  *polled = seam.polled;
  seam.polled = 0;
  return n;
}
*/
import "C"

import (
	"fmt"
	"syscall"
	"testing"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/internal/bracketabi"
)

func init() {
	C.gstc_bracket_counters = (*C.guint64)(bracketabi.Counters)
}

// cBracket returns t's bracket (t a *tensor.Tensor) as C holds it; false
// if t's memory shares no brackets (Go heap) or t is closed. The caller
// keeps t open while C uses it (it borrows t's fd).
func cBracket(t any) (C.GstcBracket, bool) {
	b, ok := bracketabi.Of(t)
	if !ok {
		return C.GstcBracket{}, false
	}
	return C.GstcBracket{word: (*C.guint64)(b.Word), fd: C.int(b.FD), ioctl: cbool(b.Ioctl)}, true
}

// CBracket is a tensor's bracket entered from C (for tests of the
// protocol: Go and C on one bracket).
type CBracket struct{ b *C.GstcBracket }

// NewCBracket returns t's bracket (t a *tensor.Tensor, kept open by the
// caller while the CBracket is used); false as cBracket. Free it.
func NewCBracket(t any) (CBracket, bool) {
	b, ok := cBracket(t)
	if !ok {
		return CBracket{}, false
	}
	p := (*C.GstcBracket)(C.malloc(C.size_t(unsafe.Sizeof(b))))
	*p = b
	return CBracket{p}, true
}

// Free releases the C copy of the bracket (not the bracket).
func (b CBracket) Free() { C.free(unsafe.Pointer(b.b)) }

// TryJoin joins the bracket if it is open with at least access (1 read,
// 2 write, 3 both), without an ioctl.
func (b CBracket) TryJoin(access int) bool {
	return C.gstc_bracket_try_join(b.b, C.int(access)) != 0
}

// TryEnter joins or opens (a START) the bracket; false with err nil when
// it is open for less or Busy.
func (b CBracket) TryEnter(access int) (ok bool, err error) {
	var e C.int
	ok = C.gstc_bracket_try_enter(b.b, C.int(access), &e) != 0
	if e != 0 {
		err = fmt.Errorf("DMA_BUF_IOCTL_SYNC start: %w", syscall.Errno(e))
	}
	return ok, err
}

// TryEnterReady is TryEnter on a dma-buf only once its fences have
// signalled (a join does not look at them); false with err nil when they
// have not.
func (b CBracket) TryEnterReady(access int) (ok bool, err error) {
	var e C.int
	ok = C.gstc_bracket_try_enter_ready(b.b, C.int(access), &e) != 0
	if e != 0 {
		err = fmt.Errorf("DMA_BUF_IOCTL_SYNC start: %w", syscall.Errno(e))
	}
	return ok, err
}

// Leave leaves the bracket (the END if this is the last one out).
func (b CBracket) Leave() (left, closed bool, err error) {
	var c C.gboolean
	var e C.int
	left = C.gstc_bracket_leave(b.b, &c, &e) != 0
	if e != 0 {
		err = fmt.Errorf("DMA_BUF_IOCTL_SYNC end: %w", syscall.Errno(e))
	}
	return left || e != 0, c != 0, err
}

// The test seam of C's brackets: a stand-in for a dma-buf's driver (each
// DMA_BUF_IOCTL_SYNC recorded with the file its fd named, answered from a
// script) and for its fences (ready or not), so that internal/
// brackettest's cases run against cbracket.c as they do against package
// tensor (whose own seams are its syncIoctl and pollFence). cgo is not
// allowed in test files, hence here; it panics outside a test binary.

// CSyncCall is one DMA_BUF_IOCTL_SYNC that C's brackets issued under the
// seam: its flags and the inode of the file its fd named then.
type CSyncCall struct{ Flags, Ino uint64 }

func seamOnlyInTests() {
	if !testing.Testing() {
		panic("gstc: the C bracket seam used outside a test binary")
	}
}

// InstallCBracketSeam makes C's brackets issue their SYNC ioctls and
// fence polls to the seam (every SYNC succeeds, fences are signalled,
// until told otherwise) and returns the function that puts back what it
// replaced. Process-wide: not for tests running in parallel with C
// brackets.
func InstallCBracketSeam() (restore func()) {
	seamOnlyInTests()
	C.seam_install()
	return func() { C.seam_restore() }
}

// CBracketSeamScript sets the answers of C's next SYNC ioctls, in order
// (0: success); after them every call succeeds.
func CBracketSeamScript(answers []syscall.Errno) {
	seamOnlyInTests()
	a := make([]C.int, len(answers)+1)
	for i, e := range answers {
		a[i] = C.int(e)
	}
	C.seam_script(&a[0], C.int(len(answers)))
}

// CBracketSeamFences makes the fences pending (polls say not ready) or
// signalled.
func CBracketSeamFences(pending bool) {
	seamOnlyInTests()
	C.seam_fences_pending(cbool(pending))
}

// CBracketSeamDrain returns the SYNC ioctls issued since the last drain,
// in order, and the poll events asked since then (OR-ed).
func CBracketSeamDrain() (calls []CSyncCall, polled int16) {
	seamOnlyInTests()
	buf := make([]C.GstcSeamCall, C.SEAM_MAX)
	var p C.short
	n := int(C.seam_drain(&buf[0], C.SEAM_MAX, &p))
	for _, c := range buf[:n] {
		calls = append(calls, CSyncCall{Flags: uint64(c.flags), Ino: uint64(c.ino)})
	}
	return calls, int16(p)
}
