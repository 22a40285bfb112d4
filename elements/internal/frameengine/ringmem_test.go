package frameengine

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
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
	ring := NewMemRing(EndTally{}, func(slot int, seq uint32) bool {
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

	ts := tensorsync.Info{Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessReadWrite, Dev: 1, Ino: 2, PTS: 1000, Seqnum: 7}
	buf := gst.ToGstBuffer(NewFrameBuffer(m, 1000, 33, 7, ts, true).Unsafe()) // owns the reference, no finalizer
	if buf.PresentationTimestamp() != 1000 || buf.Duration() != 33 || buf.Offset() != 7 || buf.OffsetEnd() != 8 {
		t.Errorf("times %v %v offsets %d %d", buf.PresentationTimestamp(), buf.Duration(), buf.Offset(), buf.OffsetEnd())
	}
	if gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0) != m || m.RefCount() != 1 {
		t.Errorf("the buffer does not own the ring's reference (refcount %d)", m.RefCount())
	}
	if slot, st, pending, ok := ringMemoryState(m); !ok || slot != 3 || st != ts || !pending {
		t.Errorf("ringMemoryState = %d %+v %v %v", slot, st, pending, ok)
	}
	cp := buf.Copy() // shares the memory, as gst_buffer_make_writable does
	gstglue.UnrefBuffer(buf)
	if r := got(); r != "[]" {
		t.Fatalf("returned %s while a copy still holds the memory", r)
	}
	gstglue.UnrefBuffer(cp)
	if r := got(); r != "[3/7]" || m.RefCount() != 1 || released != 0 {
		t.Fatalf("returns %s, refcount %d, released %d", r, m.RefCount(), released)
	}
	if v, ok := testKey.Get(m); !ok || v != "sink pin" {
		t.Error("qdata lost across the return")
	}
	// The same memory again, for the next frame.
	ts.Seqnum = 8
	gstglue.UnrefRawBuffer(NewFrameBuffer(m, gstglue.ClockTimeNone, gstglue.ClockTimeNone, 8, ts, false))
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
	ring := NewMemRing(EndTally{}, func(int, uint32) bool { return false })
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
			} else if ts, ok := tensorsync.Parse(info.GetEvent()); ok {
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
			tensorsync.Info{Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessReadWrite, Seqnum: uint32(i), PTS: 999}, i != 1)
		src.PushBuffer(gst.ToGstBuffer(buf.Unsafe())) // takes its own reference
		gstglue.UnrefRawBuffer(buf)
	}
	src.EndStream()
	if msg := runToEnd(t, p); msg.Type() != gst.MessageEOS {
		t.Fatalf("got %v", msg)
	}
	p.SetState(gst.StateNull)
	runtime.KeepAlive(p) // go-gst may finalize p during the call otherwise
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(seq, " ")
	want := "stream-start caps segment begin#0@0 buffer@0 buffer@10 begin#2@20 buffer@20 eos"
	if got != want {
		t.Errorf("sink saw\n %s\nwant\n %s", got, want)
	}
}
