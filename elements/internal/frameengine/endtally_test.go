package frameengine

import (
	"runtime"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// An end event is a reader end only while a tracked memory is in flight
// with the bracket it names: not before the frame buffer is made, not
// with another seqnum or dma-buf, not after the memory came back, and not
// once the memory is freed.
func TestEndTallyCountsFramesInFlight(t *testing.T) {
	checkFds(t)
	el, err := gst.NewElement("fakesrc")
	if err != nil {
		t.Fatal(err)
	}
	// The element holds a reference of the tally: kept until the end.
	defer runtime.KeepAlive(el)
	tally := EndTallyOf(gstglue.RawElementOf(el.Unsafe()))
	if again := EndTallyOf(gstglue.RawElementOf(el.Unsafe())); again != tally {
		t.Fatal("a second EndTallyOf attached another tally")
	}
	cc := NewCounters()
	defer cc.Unref()
	ring := NewOutRing(cc, tally)
	ot, _ := wrapOutTensor(t, ring, 4096, 0, nil)
	if sl, err := ring.AddSlot([]OutTensor{ot}); err != nil || sl != 0 {
		t.Fatalf("AddSlot = %d, %v", sl, err)
	}
	m := ot.Mem
	var rest [MaxOutTensors - 1]gstglue.RawMemory
	push := func() {
		t.Helper()
		if sl := ring.Take(); sl != 0 {
			t.Fatalf("took slot %d, want 0", sl)
		}
		if pm, _ := ring.Push(0, &rest); pm != m {
			t.Fatal("Push handed out another memory")
		}
	}
	frame := tensorsync.Info{Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessReadWrite, Dev: 5, Ino: 6, Offset: 64, Seqnum: 9}
	end := frame
	end.Phase = tensorsync.PhaseEnd
	step := func(what string, ts tensorsync.Info, reader bool) {
		t.Helper()
		r0, o0 := tally.Read()
		if got := tally.count(ts); got != reader {
			t.Errorf("%s: reader end %v, want %v", what, got, reader)
		}
		r1, o1 := tally.Read()
		if reader && (r1 != r0+1 || o1 != o0) || !reader && (o1 != o0+1 || r1 != r0) {
			t.Errorf("%s: counts (%d,%d) → (%d,%d)", what, r0, o0, r1, o1)
		}
	}
	step("before the frame", end, false)
	push()
	buf := NewFrameBuffer(m, 0, gstglue.ClockTimeNone, 9, frame, false)
	step("in flight", end, true)
	step("twice (a second reader)", end, true)
	for what, mod := range map[string]func(*tensorsync.Info){
		"another seqnum": func(i *tensorsync.Info) { i.Seqnum++ },
		"another ino":    func(i *tensorsync.Info) { i.Ino++ },
		"another dev":    func(i *tensorsync.Info) { i.Dev++ },
		"another offset": func(i *tensorsync.Info) { i.Offset++ },
	} {
		ts := end
		mod(&ts)
		step(what, ts, false)
	}
	// A frame of an earlier run (a restart while it is downstream) is not
	// the new run's; the next frame made is.
	tally.NewRun()
	step("a frame of the last run", end, false)
	gstglue.UnrefRawBuffer(buf) // the memory comes back to the ring
	step("returned", end, false)
	frame.Seqnum, end.Seqnum = 10, 10
	push()
	buf = NewFrameBuffer(m, 0, gstglue.ClockTimeNone, 10, frame, false)
	step("a frame of the new run", end, true)
	gstglue.UnrefRawBuffer(buf)
	ring.Close() // the memory it holds is freed: no longer tracked
	step("freed", end, false)
	if r, o := tally.Read(); r != 3 || o != 8 {
		t.Errorf("totals (%d,%d), want (3,8)", r, o)
	}
}
