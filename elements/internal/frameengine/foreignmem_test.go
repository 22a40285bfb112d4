package frameengine

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// foreignCamera is a stand-in for a camera's buffer: one memory of
// GStreamer's own dma-buf allocator over a memfd (no dma-buf here; the
// brackets are counted, without ioctls, as on a dma-buf), and the
// tensor an element reading it would hold (the caller's bracket).
type foreignCamera struct {
	fd  int
	gb  *gst.Buffer       // the camera's buffer (its reference)
	buf gstglue.RawBuffer // the same, borrowed
	mem gstglue.RawMemory // its memory (borrowed from buf)
	id  tensor.Identity
	in  *tensor.Tensor // the reader's import
	b   CBracket       // the reader's bracket
}

func newForeignCamera(t *testing.T, size int) *foreignCamera {
	t.Helper()
	c := &foreignCamera{fd: newMemfd(t, pattern(size))}
	t.Cleanup(func() { unix.Close(c.fd) })
	m, err := NewGstDmabufMemory(c.fd, size)
	if err != nil {
		t.Fatal(err)
	}
	buf := gst.NewEmptyBuffer()
	if err := gstglue.AppendMemory(buf, m); err != nil {
		t.Fatal(err)
	}
	buf.SetPresentationTimestamp(gst.ClockTime(42 * time.Millisecond))
	c.gb, c.buf = buf, gstglue.BorrowBuffer(buf)
	c.mem = gstglue.PeekMemory(c.buf, 0)
	if c.id, err = tensor.IdentityOf(c.fd); err != nil {
		t.Fatal(err)
	}
	if c.in, err = tensor.ImportFD(c.fd, tensor.Layout{DType: tensor.U8, Shape: []int{size}}); err != nil {
		t.Fatal(err)
	}
	var ok bool
	if c.b, ok = NewCBracket(c.in); !ok {
		t.Fatal("a memfd tensor has no C bracket")
	}
	return c
}

// close drops the camera's buffer (its memory, and with it its wrapper)
// and the reader's tensor.
func (c *foreignCamera) close() {
	gstglue.UnrefBuffer(c.gb)
	c.b.Free()
	c.in.Close()
}

// enter opens (or joins) the reader's bracket for read and write, as
// tensorinfer does on an input it wraps.
func (c *foreignCamera) enter(t *testing.T) {
	t.Helper()
	for {
		ok, err := c.b.TryEnter(3)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
	}
}

func (c *foreignCamera) leave(t *testing.T) {
	t.Helper()
	if left, _, err := c.b.Leave(); !left || err != nil {
		t.Fatalf("leave: %v %v", left, err)
	}
}

func (c *foreignCamera) open() bool {
	_, open := tensor.OpenBracket(c.id)
	return open
}

// A camera's memory lent through its wrapper for a frame: the wrapper
// joins the bracket the reader opened for read and write, and holds it —
// and the camera's buffer — after the reader leaves, while any buffer
// holds it; a map of the wrapper for writing joins it (no second
// bracket) and writes the camera's pixels; a second lend of the same
// camera buffer shares the wrapper; the bracket closes, and only then is
// the camera's buffer released, when the last holder lets go; the next
// frame lends the same wrapper again (nothing made per frame); the
// wrapper and its tensor go when the camera's memory is freed.
func TestForeignWrapperLendsOneBracket(t *testing.T) {
	checkFds(t)
	const size = 4096
	before := ReadForeignCounts()
	c := newForeignCamera(t, size)
	if !ForeignCandidate(c.mem) {
		t.Fatal("GStreamer's own dma-buf memory is not a foreign candidate")
	}
	if made, err := WrapForeign(c.mem); !made || err != nil {
		t.Fatalf("WrapForeign: made %v, %v", made, err)
	}
	if made, err := WrapForeign(c.mem); made || err != nil {
		t.Fatalf("second WrapForeign: made %v, %v; want the first's wrapper kept", made, err)
	}
	w := ForeignWrapper(c.mem)
	if w.IsNil() || !w.IsDmabuf() || ForeignCandidate(w) {
		t.Fatalf("wrapper %v: dma-buf %v, foreign %v: want the project's own dma-buf memory", w.Unsafe(), w.IsDmabuf(), ForeignCandidate(w))
	}
	wid, err := tensor.IdentityOf(w.FD())
	if err != nil || wid != c.id || w.FD() == c.mem.FD() {
		t.Fatalf("wrapper fd %d identity %v (%v), camera fd %d identity %v: want a dup of the same file", w.FD(), wid, err, c.mem.FD(), c.id)
	}

	// Not inside a read-write bracket: nothing lent.
	if out := LendForeign(c.buf); !out.IsNil() {
		t.Fatal("lent outside a bracket")
	}
	s0 := tensor.ReadStats()
	for frame := range 3 {
		c.enter(t)
		out := LendForeign(c.buf)
		if out.IsNil() {
			t.Fatalf("frame %d: not lent inside the reader's read-write bracket", frame)
		}
		if m := gstglue.PeekMemory(out, 0); m.Unsafe() != w.Unsafe() || m.Size() != size || m.Offset() != 0 {
			t.Fatalf("frame %d: the buffer's memory %v (offset %d, size %d), want the wrapper %v whole", frame, m.Unsafe(), m.Offset(), m.Size(), w.Unsafe())
		}
		if gstglue.BufferPTS(out) != gstglue.BufferPTS(c.buf) {
			t.Errorf("frame %d: PTS %d, want the camera buffer's %d", frame, gstglue.BufferPTS(out), gstglue.BufferPTS(c.buf))
		}
		if n := c.buf.RefCount(); n != 2 {
			t.Errorf("frame %d: the camera's buffer has %d references, want 2 (the wrapper's)", frame, n)
		}
		c.leave(t)
		if !c.open() {
			t.Fatalf("frame %d: the bracket closed when the reader left: the wrapper holds it", frame)
		}
		// A writer downstream (tensoroverlay) maps the wrapper and draws:
		// inside the same bracket, into the camera's memory.
		ob := gst.ToGstBuffer(out.Unsafe())
		mi := ob.Map(gst.MapRead | gst.MapWrite)
		if mi == nil {
			t.Fatalf("frame %d: cannot map the wrapper for writing", frame)
		}
		mi.WriteAt(100, []byte{byte(frame), 0xAA, 0x55})
		ob.Unmap()
		got := make([]byte, 3)
		if _, err := unix.Pread(c.fd, got, 100); err != nil || !bytes.Equal(got, []byte{byte(frame), 0xAA, 0x55}) {
			t.Fatalf("frame %d: the camera's memory reads %v (%v) where the wrapper was written", frame, got, err)
		}
		// The same camera buffer lent again (a tee before two
		// tensorinfers): the same wrapper, inside the same bracket.
		c.enter(t)
		out2 := LendForeign(c.buf)
		c.leave(t)
		if out2.IsNil() || gstglue.PeekMemory(out2, 0).Unsafe() != w.Unsafe() {
			t.Fatalf("frame %d: a second lend of the same buffer got %v, want the wrapper shared", frame, out2.Unsafe())
		}
		// Another buffer holding the camera's memory while the wrapper
		// is lent: not lent (the wrapper holds one camera buffer).
		other := gst.NewEmptyBuffer()
		if err := gstglue.AppendMemory(other, gst.FromGstMemoryUnsafeNone(c.mem.Unsafe())); err != nil {
			t.Fatal(err)
		}
		c.enter(t)
		if o := LendForeign(gstglue.BorrowBuffer(other)); !o.IsNil() {
			t.Errorf("frame %d: lent with another buffer while lent", frame)
			gstglue.UnrefRawBuffer(o)
		}
		c.leave(t)
		gstglue.UnrefBuffer(other)
		gstglue.UnrefRawBuffer(out)
		if !c.open() || c.buf.RefCount() != 2 {
			t.Fatalf("frame %d: one holder left: bracket open %v, camera buffer references %d; want open, 2", frame, c.open(), c.buf.RefCount())
		}
		// Downstream shrank the memory on the way (gst_buffer_resize).
		gst.ToGstBuffer(out2.Unsafe()).Resize(16, 32)
		gstglue.UnrefRawBuffer(out2)
		if c.open() || c.buf.RefCount() != 1 {
			t.Fatalf("frame %d: the last holder left: bracket open %v, camera buffer references %d; want closed, then given back",
				frame, c.open(), c.buf.RefCount())
		}
	}
	s1 := tensor.ReadStats()
	// A frame: the reader's open, the wrapper's join, the write map's
	// join, the second lend's reader's join, the other buffer's reader's
	// join; one close. Never a second bracket.
	opened, closed := s1.BracketsOpened-s0.BracketsOpened, s1.BracketsClosed-s0.BracketsClosed
	widened, joined := s1.BracketsWidened-s0.BracketsWidened, s1.BracketsJoined-s0.BracketsJoined
	if opened != 3 || closed != 3 || widened != 0 || joined != 12 || s1.UnbalancedSyncs != s0.UnbalancedSyncs {
		t.Errorf("3 frames: %d brackets opened, %d closed, %d widened, %d joins, %d unbalanced; want 3, 3, 0, 12, 0",
			opened, closed, widened, joined, s1.UnbalancedSyncs-s0.UnbalancedSyncs)
	}
	if got := ReadForeignCounts(); got.Made-before.Made != 1 || got.Lent-before.Lent != 3 || got.Returned-before.Returned != 3 || got.Freed != before.Freed {
		t.Errorf("counts %+v (before %+v): want 1 wrapper made, lent 3 times, given back 3 times, not freed", got, before)
	}
	c.close()
	if got := ReadForeignCounts(); got.Freed-before.Freed != 1 {
		t.Errorf("the camera's memory freed: %d wrappers freed, want 1", got.Freed-before.Freed)
	}
}

// A memory of the project's own allocators and a share of a foreign one
// are not wrapped.
func TestForeignWrapperCandidates(t *testing.T) {
	checkFds(t)
	fd := newMemfd(t, pattern(4096))
	defer unix.Close(fd)
	own, err := gstglue.WrapFd(true, fd, 4096, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer gstglue.ReleaseMemory(own)
	if ForeignCandidate(gstglue.BorrowMemory(own)) {
		t.Error("the project's bracket allocator's memory is a foreign candidate")
	}
	if made, err := WrapForeign(gstglue.BorrowMemory(own)); made || err != nil {
		t.Errorf("WrapForeign of the project's memory: %v %v", made, err)
	}
	m, err := NewGstDmabufMemory(fd, 4096)
	if err != nil {
		t.Fatal(err)
	}
	buf := gst.NewEmptyBuffer()
	if err := gstglue.AppendMemory(buf, m); err != nil {
		t.Fatal(err)
	}
	defer gstglue.UnrefBuffer(buf)
	if !ForeignCandidate(gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0)) {
		t.Error("GStreamer's own dma-buf memory is not a candidate")
	}
	region := buf.CopyRegion(gst.BufferCopyMemory, 0, 1024)
	defer gstglue.UnrefBuffer(region)
	if share := gstglue.PeekMemory(gstglue.BorrowBuffer(region), 0); share.IsNil() || ForeignCandidate(share) {
		t.Error("a share of a foreign memory is a candidate (it would be wrapped every frame)")
	}
}

// The race of a lend sharing a lent wrapper with the wrapper's last
// holder letting go: either the lend shares it (and the bracket stays
// open until its buffer goes) or it waits for the dispose and lends it
// afresh — never a wrapper shared after its bracket was left.
func TestForeignWrapperShareRacesDispose(t *testing.T) {
	checkFds(t)
	c := newForeignCamera(t, 4096)
	defer c.close()
	if _, err := WrapForeign(c.mem); err != nil {
		t.Fatal(err)
	}
	second, err := tensor.ImportFD(c.fd, tensor.Layout{DType: tensor.U8, Shape: []int{4096}})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	b2, _ := NewCBracket(second)
	defer b2.Free()
	// Each round the dispose waits 2 ms before it takes the wrapper's
	// lock, and the second lend comes in that time: it must not share a
	// wrapper at zero references.
	holdForeignDispose(2 * time.Millisecond)
	defer holdForeignDispose(0)
	const rounds = 50
	bad := 0
	for range rounds {
		c.enter(t)
		out := LendForeign(c.buf)
		c.leave(t)
		if out.IsNil() {
			t.Fatal("not lent")
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			gstglue.UnrefRawBuffer(out)
		}()
		for !foreignDisposing() {
			runtime.Gosched()
		}
		for {
			if ok, err := b2.TryEnter(3); err != nil {
				t.Fatal(err)
			} else if ok {
				break
			}
		}
		out2 := LendForeign(c.buf)
		b2.Leave()
		if out2.IsNil() {
			t.Fatal("the second lend failed")
		}
		// The first holder's dispose is over: the second's buffer still
		// holds the wrapper, so the bracket must still be open.
		wg.Wait()
		if !c.open() {
			bad++
		}
		gstglue.UnrefRawBuffer(out2)
		if c.open() || c.buf.RefCount() != 1 {
			t.Fatalf("after both: bracket open %v, camera buffer references %d", c.open(), c.buf.RefCount())
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d rounds: a lent wrapper outside its bracket", bad, rounds)
	}
}

// The wrapper is lent writable only when the camera's buffer was its
// caller's alone: with another holder (a tee's other branch), a writer
// downstream copies the frame — as it would copy the camera's buffer —
// and never draws on the pixels that holder reads.
func TestForeignWrapperReadOnlyWhenShared(t *testing.T) {
	checkFds(t)
	c := newForeignCamera(t, 4096)
	defer c.close()
	if _, err := WrapForeign(c.mem); err != nil {
		t.Fatal(err)
	}
	w := ForeignWrapper(c.mem)
	write := func(shared bool) (landed, replaced bool) {
		var other gstglue.Lease
		if shared {
			other = gstglue.LeaseBuffer(c.buf)
			defer other.Release()
		}
		c.enter(t)
		out := LendForeign(c.buf)
		c.leave(t)
		if out.IsNil() {
			t.Fatal("not lent")
		}
		defer gstglue.UnrefRawBuffer(out)
		ob := gst.ToGstBuffer(out.Unsafe())
		mi := ob.Map(gst.MapRead | gst.MapWrite)
		if mi == nil {
			t.Fatal("cannot map the lent buffer for writing")
		}
		mark := []byte{0xDE, 0xAD, byte(len(t.Name()))}
		mi.WriteAt(200, mark)
		ob.Unmap()
		got := make([]byte, 3)
		if _, err := unix.Pread(c.fd, got, 200); err != nil {
			t.Fatal(err)
		}
		return bytes.Equal(got, mark), gstglue.PeekMemory(out, 0).Unsafe() != w.Unsafe()
	}
	if landed, replaced := write(true); landed || !replaced {
		t.Errorf("camera buffer shared: the write landed in the camera's memory %v, the memory was copied %v; want a copy", landed, replaced)
	}
	if c.open() {
		t.Error("bracket open after the frame")
	}
	if landed, replaced := write(false); !landed || replaced {
		t.Errorf("camera buffer the caller's alone: the write landed %v, copied %v; want written in place", landed, replaced)
	}
}
