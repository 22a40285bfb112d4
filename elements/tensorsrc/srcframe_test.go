package tensorsrc

import (
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// The patterns tensorsrc's frame writes, against a reference computed
// here byte by byte: byte i of frame n is n*7+i (counter), i (gradient),
// 0 (black); none leaves the bytes — at every size around the fill's
// 256-byte period and its doublings.
func TestSrcFillPatterns(t *testing.T) {
	for _, size := range []int{1, 255, 256, 257, 511, 513, 4096 + 3} {
		for _, c := range []struct {
			name    string
			pattern int
			want    func(n uint64, i int) byte
		}{
			{"counter", patCounter, func(n uint64, i int) byte { return byte(n*7) + byte(i) }},
			{"gradient", patGradient, func(_ uint64, i int) byte { return byte(i) }},
			{"black", patBlack, func(uint64, int) byte { return 0 }},
			{"none", patNone, func(uint64, int) byte { return 0xA5 }},
		} {
			b := make([]byte, size)
			for i := range b {
				b[i] = 0xA5
			}
			const n = 37
			fillPattern(b, c.pattern, n)
			for i, got := range b {
				if want := c.want(n, i); got != want {
					t.Fatalf("%s, %d bytes: byte %d is %#x, want %#x", c.name, size, i, got, want)
				}
			}
		}
	}
}

// Frame n's PTS is n×fpsD/fpsN s rounded down to the ns (no drift
// however far the stream runs), its duration the distance to the next;
// the frame at a stream time is the one showing then — frame n from 1 ns
// after its rounded PTS (its true start lies within that ns); an unknown
// rate has no times and a time past 64 bits none either.
func TestSrcFrameTimes(t *testing.T) {
	const fpsN, fpsD = 30000, 1001 // 29.97 fps
	for _, n := range []uint64{0, 1, 29, 30, 1_000_000, 1 << 30} {
		pts, dur := frameTimes(n, fpsN, fpsD)
		next, _ := frameTimes(n+1, fpsN, fpsD)
		// n×1001/30000 s in ns = n×1001×10⁵/3, rounded down.
		if want := n * 1001 * 100000 / 3; pts != want {
			t.Errorf("frame %d: PTS %d, want %d", n, pts, want)
		}
		if dur != next-pts {
			t.Errorf("frame %d: duration %d, want %d (the next frame's PTS less this one's)", n, dur, next-pts)
		}
		if at := frameAt(pts+1, fpsN, fpsD); at != n {
			t.Errorf("the frame 1 ns after frame %d's PTS is %d", n, at)
		}
		if pts > 0 {
			if at := frameAt(pts-1, fpsN, fpsD); at != n-1 {
				t.Errorf("the frame 1 ns before frame %d's PTS is %d, want %d", n, at, n-1)
			}
		}
		// A rate whose frames last whole ns has exact PTSs: the frame at
		// one is that frame.
		if p, _ := frameTimes(n, 25, 1); frameAt(p, 25, 1) != n {
			t.Errorf("at 25 fps the frame at frame %d's PTS is %d", n, frameAt(p, 25, 1))
		}
	}
	if pts, dur := frameTimes(5, 0, 1); pts != gstglue.ClockTimeNone || dur != gstglue.ClockTimeNone {
		t.Errorf("unknown rate: PTS %d, duration %d; want none", pts, dur)
	}
	if pts, _ := frameTimes(1<<62, 1, 100); pts != gstglue.ClockTimeNone {
		t.Errorf("a PTS past 64 bits is %d, want none", pts)
	}
	if at := frameAt(123456789, 0, 1); at != 0 {
		t.Errorf("unknown rate: frame %d at a time, want 0", at)
	}
}

// pattern=app's queue gives the slots the application pushed back to
// their ring, their write brackets left: at a seek (AppDrain, which
// counts them) and when the frame moves to another ring (SetRing). A
// slot left with the application stays taken.
func TestSrcAppQueueGivesSlotsBack(t *testing.T) {
	el, err := gst.NewElement("fakesrc") // stands in for a tensorsrc
	if err != nil {
		t.Fatal(err)
	}
	s := srcFrameOf(gstglue.BorrowElement(el))
	cc := frameengine.NewCounters()
	defer cc.Unref()
	r := newTestOutRing(t, cc, 4)
	s.SetRing(r.OutRing, cc)
	defer s.SetRing(nil, frameengine.Counters{})
	s.SetApp(true)
	push := func() int {
		i := r.mustTake(t)
		if err := r.OpenWrites(i); err != nil {
			t.Fatal(err)
		}
		s.AppPush(i, gstglue.ClockTimeNone)
		return i
	}
	a, b := push(), push()
	held := r.mustTake(t) // the application's, never pushed
	if n := s.AppDrain(); n != 2 {
		t.Fatalf("AppDrain gave back %d slots, want 2", n)
	}
	if busy := r.Busy(); busy != 1 {
		t.Fatalf("%d slots busy after the drain, want 1 (the one the application holds)", busy)
	}
	for _, i := range []int{a, b} {
		if _, open := tensor.OpenBracket(r.tensors[i].Identity()); open {
			t.Errorf("slot %d's write bracket is still open after the drain", i)
		}
	}
	if n := s.AppDrain(); n != 0 {
		t.Fatalf("a second drain gave back %d slots", n)
	}
	push()
	other := newTestOutRing(t, cc, 1)
	s.SetRing(other.OutRing, cc)
	if busy := r.Busy(); busy != 1 {
		t.Fatalf("%d slots of the old ring busy after SetRing, want 1: the queued one given back", busy)
	}
	r.Give(held)
}

// testOutRing is an OutRing of n slots of one memfd tensor each (a
// stand-in for the source's dma-heap ring: the same ring, no SYNC
// ioctls).
type testOutRing struct {
	*frameengine.OutRing
	tensors []*tensor.Tensor
}

func newTestOutRing(t *testing.T, cc frameengine.Counters, n int) *testOutRing {
	t.Helper()
	r := &testOutRing{OutRing: frameengine.NewOutRing(cc, frameengine.EndTally{})}
	for i := range n {
		tn, err := tensor.Alloc(tensor.Layout{DType: tensor.U8, Shape: []int{64}}, tensor.AllocOptions{Source: tensor.SourceMemfd})
		if err != nil {
			t.Fatal(err)
		}
		m, err := r.Wrap(false, tn.FD(), 64, i*frameengine.MaxOutTensors, func() { tn.Close() })
		if err != nil {
			tn.Close()
			t.Fatal(err)
		}
		id := tn.Identity()
		if got, err := r.AddSlot([]frameengine.OutTensor{{Mem: m, Tensor: tn, Dev: id.Dev, Ino: id.Ino}}); err != nil || got != i {
			t.Fatalf("AddSlot = %d, %v; want %d", got, err, i)
		}
		r.tensors = append(r.tensors, tn)
	}
	t.Cleanup(func() {
		r.Close()
		for i := range n { // a slot the test still holds keeps its memory until given back
			r.Give(i)
		}
	})
	return r
}

func (r *testOutRing) mustTake(t *testing.T) int {
	t.Helper()
	i := r.Take()
	if i < 0 {
		t.Fatal("Take: no free slot")
	}
	return i
}
