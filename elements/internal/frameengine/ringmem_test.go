package frameengine

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// A ring memory comes back to its ring when its last user drops it —
// also when a buffer copy downstream shares it — and is the same object
// afterwards, qdata included; once the ring is closed the memory it
// holds is freed.
func TestRingMemoryRecycles(t *testing.T) {
	checkFds(t)
	cc := NewCounters()
	defer cc.Unref()
	r := NewOutRing(cc, EndTally{})
	var released atomic.Int32
	ot, _ := wrapOutTensor(t, r, 4096, 0, &released)
	if sl, err := r.AddSlot([]OutTensor{ot}); err != nil || sl != 0 {
		t.Fatalf("AddSlot = %d, %v", sl, err)
	}
	m := ot.Mem
	testKey.Set(m, "sink pin", nil)
	frame := func(seq uint32, announce bool) *gst.Buffer {
		t.Helper()
		if sl := r.Take(); sl != 0 {
			t.Fatalf("took slot %d, want 0", sl)
		}
		var rest [MaxOutTensors - 1]gstglue.RawMemory
		if pm, n := r.Push(0, &rest); pm != m || n != 1 {
			t.Fatalf("Push = %v, %d; want the slot's memory", pm, n)
		}
		ts := tensorsync.Info{Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessReadWrite, Dev: 1, Ino: 2, PTS: 1000, Seqnum: seq}
		buf := gst.ToGstBuffer(NewFrameBuffer(m, 1000, 33, uint64(seq), ts, announce).Unsafe()) // owns the reference, no finalizer
		if id, st, pending, ok := ringMemoryState(m); !ok || id != 0 || st != ts || pending != announce {
			t.Errorf("ringMemoryState = %d %+v %v %v", id, st, pending, ok)
		}
		return buf
	}
	buf := frame(7, true)
	if buf.PresentationTimestamp() != 1000 || buf.Duration() != 33 || buf.Offset() != 7 || buf.OffsetEnd() != 8 {
		t.Errorf("times %v %v offsets %d %d", buf.PresentationTimestamp(), buf.Duration(), buf.Offset(), buf.OffsetEnd())
	}
	if gstglue.PeekMemory(gstglue.BorrowBuffer(buf), 0) != m || m.RefCount() != 1 {
		t.Errorf("the buffer does not own the ring's reference (refcount %d)", m.RefCount())
	}
	cp := buf.Copy() // shares the memory, as gst_buffer_make_writable does
	gstglue.UnrefBuffer(buf)
	if r.Busy() != 1 {
		t.Fatal("the slot came back while a copy still holds its memory")
	}
	gstglue.UnrefBuffer(cp)
	if r.Busy() != 0 || m.RefCount() != 1 || released.Load() != 0 {
		t.Fatalf("after the last unref: %d slots busy, refcount %d, %d freed; want the memory back in the ring", r.Busy(), m.RefCount(), released.Load())
	}
	if v, ok := testKey.Get(m); !ok || v != "sink pin" {
		t.Error("qdata lost across the return")
	}
	// The same memory again, for the next frame.
	gstglue.UnrefBuffer(frame(8, false))
	if r.Busy() != 0 || released.Load() != 0 {
		t.Fatalf("second frame: %d busy, %d freed", r.Busy(), released.Load())
	}
	// Retired: the memory the ring holds is freed.
	r.Close()
	if released.Load() != 1 {
		t.Errorf("%d memories freed by the close, want 1", released.Load())
	}
}

// The announcer pushes a tagged buffer's GstTensorSync right before it,
// after the segment, with the PTS the buffer carries when pushed.
func TestTensorSyncAnnouncer(t *testing.T) {
	checkFds(t)
	fd := newMemfd(t, pattern(4096))
	defer unix.Close(fd)
	cc := NewCounters()
	defer cc.Unref()
	ring := NewOutRing(cc, EndTally{})
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

// runToEnd plays p until EOS or an error and returns that message.
func runToEnd(t *testing.T, p *gst.Pipeline) *gst.Message {
	t.Helper()
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(10*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS or error within 10s")
	}
	return msg
}
