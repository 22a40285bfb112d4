package gstc

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"
)

// A ring memory comes back when its last user drops it — also when a
// buffer copy downstream shares it — and is the same object afterwards,
// qdata included.
func TestRingMemoryRecycles(t *testing.T) {
	checkFds(t)
	fd := newMemfd(t, pattern(4096))
	defer unix.Close(fd)
	var mu sync.Mutex
	var returns []string
	keep := true
	released := 0
	ring := NewMemRing(func(slot int, seq uint32) bool {
		mu.Lock()
		defer mu.Unlock()
		returns = append(returns, fmt.Sprintf("%d/%d", slot, seq))
		return keep
	})
	m, err := ring.Wrap(false, fd, 4096, 3, func() { released++ })
	if err != nil {
		t.Fatal(err)
	}
	got := func() string { mu.Lock(); defer mu.Unlock(); return fmt.Sprint(returns) }
	testKey.Set(m, "sink pin", nil)

	ts := TensorSync{Phase: PhaseBegin, Access: AccessReadWrite, Dev: 1, Ino: 2, PTS: 1000, Seqnum: 7}
	buf := NewFrameBuffer(m, 1000, 33, 7, ts, true)
	if buf.PresentationTimestamp() != 1000 || buf.Duration() != 33 || buf.Offset() != 7 || buf.OffsetEnd() != 8 {
		t.Errorf("times %v %v offsets %d %d", buf.PresentationTimestamp(), buf.Duration(), buf.Offset(), buf.OffsetEnd())
	}
	if PeekMemory(buf, 0) != m || m.RefCount() != 1 {
		t.Errorf("the buffer does not own the ring's reference (refcount %d)", m.RefCount())
	}
	if slot, st, pending, ok := RingMemoryState(m); !ok || slot != 3 || st != ts || !pending {
		t.Errorf("RingMemoryState = %d %+v %v %v", slot, st, pending, ok)
	}
	cp := buf.Copy() // shares the memory, as gst_buffer_make_writable does
	UnrefBuffer(buf)
	if r := got(); r != "[]" {
		t.Fatalf("returned %s while a copy still holds the memory", r)
	}
	UnrefBuffer(cp)
	if r := got(); r != "[3/7]" || m.RefCount() != 1 || released != 0 {
		t.Fatalf("returns %s, refcount %d, released %d", r, m.RefCount(), released)
	}
	if v, ok := testKey.Get(m); !ok || v != "sink pin" {
		t.Error("qdata lost across the return")
	}
	// The same memory again, for the next frame.
	ts.Seqnum = 8
	UnrefBuffer(NewFrameBuffer(m, ClockTimeNone, ClockTimeNone, 8, ts, false))
	if r := got(); r != "[3/7 3/8]" {
		t.Fatalf("returns %s", r)
	}
	// Retired: the last unref frees it.
	mu.Lock()
	keep = false
	mu.Unlock()
	ring.Close()
	UnrefRingMemory(m)
	if r := got(); r != "[3/7 3/8 3/8]" || released != 1 {
		t.Errorf("returns %s, released %d", r, released)
	}
	if _, err := ring.Wrap(false, fd, 4096, 0, nil); err == nil {
		t.Error("Wrap after Close")
	}
}

// The announcer pushes a tagged buffer's GstTensorSync right before it,
// after the segment, with the PTS the buffer carries when pushed.
func TestTensorSyncAnnouncer(t *testing.T) {
	checkFds(t)
	fd := newMemfd(t, pattern(4096))
	defer unix.Close(fd)
	ring := NewMemRing(func(int, uint32) bool { return false })
	defer ring.Close()
	p, err := gst.NewPipelineFromString("appsrc name=src format=time ! fakesink name=sink")
	if err != nil {
		t.Fatal(err)
	}
	srcEl, _ := p.GetElementByName("src")
	sinkEl, _ := p.GetElementByName("sink")
	InstallTensorSyncAnnouncer(srcEl.GetStaticPad("src"))
	var mu sync.Mutex
	var seq []string
	sinkEl.GetStaticPad("sink").AddProbe(gst.PadProbeTypeBuffer|gst.PadProbeTypeEventDownstream,
		func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
			mu.Lock()
			defer mu.Unlock()
			if info.Type()&gst.PadProbeTypeBuffer != 0 {
				seq = append(seq, fmt.Sprintf("buffer@%d", info.GetBuffer().PresentationTimestamp()))
			} else if ts, ok := ParseTensorSyncEvent(info.GetEvent()); ok {
				seq = append(seq, fmt.Sprintf("%s#%d@%d", ts.Phase, ts.Seqnum, ts.PTS))
			} else {
				seq = append(seq, info.GetEvent().Type().String())
			}
			return gst.PadProbeOK
		})
	src := app.SrcFromElement(srcEl)
	src.SetCaps(gst.NewCapsFromString("application/x-test"))
	for i := 0; i < 3; i++ {
		m, err := ring.Wrap(false, fd, 4096, i, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Frame 1 is not announced.
		buf := NewFrameBuffer(m, uint64(i)*10, 10, uint64(i),
			TensorSync{Phase: PhaseBegin, Access: AccessReadWrite, Seqnum: uint32(i), PTS: 999}, i != 1)
		src.PushBuffer(buf) // takes its own reference
		UnrefBuffer(buf)
	}
	src.EndStream()
	if msg := runToEnd(t, p); msg.Type() != gst.MessageEOS {
		t.Fatalf("got %v", msg)
	}
	p.SetState(gst.StateNull)
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(seq, " ")
	want := "stream-start caps segment begin#0@0 buffer@0 buffer@10 begin#2@20 buffer@20 eos"
	if got != want {
		t.Errorf("sink saw\n %s\nwant\n %s", got, want)
	}
}

func TestFixateCaps(t *testing.T) {
	targets := map[string]FixateTarget{
		"video/x-raw": {
			Ints:      map[string]int{"width": 320, "height": 240},
			Fractions: map[string][2]int{"framerate": {30, 1}},
			Strings:   map[string]string{"format": "RGBA"},
		},
		"other/tensors": {Strings: map[string]string{"dimensions": "3:4:5:1", "types": "uint8"}},
	}
	for _, c := range []struct{ in, want string }{
		{"video/x-raw, format={ RGB, RGBA }, width=[1, 100], height=[1, 10000], framerate=[0/1, 60/1]; other/tensors",
			"video/x-raw, format=(string)RGBA, width=(int)100, height=(int)240, framerate=(fraction)30/1"},
		{"video/x-raw(memory:DMABuf), format=BGR, width=[400, 500], height=240",
			"video/x-raw(memory:DMABuf), format=(string)BGR, width=(int)400, height=(int)240, framerate=(fraction)30/1"},
		{"other/tensors, format=static, types=float32",
			"other/tensors, format=(string)static, types=(string)float32, dimensions=(string)3:4:5:1"},
		{"EMPTY", "EMPTY"},
	} {
		out := FixateCaps(gst.NewCapsFromString(c.in), targets)
		got := out.String()
		out.Unref()
		if got != c.want {
			t.Errorf("FixateCaps(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	caps := gst.NewCapsFromString("video/x-raw, framerate=30000/1001")
	if n, d, ok := CapsFraction(caps, 0, "framerate"); !ok || n != 30000 || d != 1001 {
		t.Errorf("CapsFraction = %d/%d %v", n, d, ok)
	}
	if _, _, ok := CapsFraction(caps, 1, "framerate"); ok {
		t.Error("CapsFraction of a missing structure")
	}
}

func TestFractionValue(t *testing.T) {
	v, err := NewFractionValue(30000, 1001)
	if err != nil {
		t.Fatal(err)
	}
	if n, d, ok := ValueFraction(v); !ok || n != 30000 || d != 1001 {
		t.Errorf("ValueFraction = %d/%d %v", n, d, ok)
	}
	if _, err := NewFractionValue(1, 0); err == nil {
		t.Error("accepted a zero denominator")
	}
	ps := NewFractionParam("rate", "Rate", "A rate", [2]int{0, 1}, [2]int{100, 1}, [2]int{25, 1}, 3)
	if ps.Name() != "rate" || ps.Blurb() != "A rate" {
		t.Errorf("param spec %s: %s", ps.Name(), ps.Blurb())
	}
}
