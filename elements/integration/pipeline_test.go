package integration_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

func TestMain(m *testing.M) {
	gsttest.Main(m, func() bool {
		return tensorpinsink.Register(nil) && tensorsrc.Register(nil) && tensorinfer.Register(nil) &&
			tensordecode.Register(nil) && tensoroverlay.Register(nil)
	})
}

func play(t testing.TB, desc string, onFrame func(tensorpinsink.Frame)) (*gst.Pipeline, tensorpinsink.Stats) {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := p.GetElementByName("sink")
	k, err := tensorpinsink.FromElement(e)
	if err != nil {
		t.Fatal(err)
	}
	k.OnFrame(onFrame)
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	p.SetState(gst.StatePlaying)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(60*time.Second), gst.MessageEOS|gst.MessageError)
	if msg == nil {
		t.Fatal("no EOS within 60 s")
	}
	if msg.Type() == gst.MessageError {
		ge, _ := gstglue.ParseErrorMessage(msg)
		t.Fatalf("pipeline error: %+v", ge)
	}
	return p, k.Stats()
}

// 1000 frames from a ring of 4: each slot's address is the same every time
// it comes back, the stream costs one mmap in the sink per slot it sees —
// as many as were in flight at once (the ring hands out the slot freed
// last), at most 4 — the bytes are the source's, and nothing is copied.
func TestSourceToSinkPinsEachSlotOnce(t *testing.T) {
	const frames, pool = 1000, 4
	var mu sync.Mutex
	addrBySlot := map[int]uintptr{}
	var problems []string
	var first byte
	seen := 0
	before := tensor.ReadStats()
	_, s := play(t, fmt.Sprintf("tensorsrc num-buffers=%d pool-size=%d pattern=counter ! "+
		"other/tensors,format=static,num_tensors=1,dimensions=3:32:32:1,types=uint8 ! queue ! tensorpinsink name=sink sync=false max-leases=3", frames, pool),
		func(f tensorpinsink.Frame) {
			defer f.Release()
			mu.Lock()
			defer mu.Unlock()
			if a, ok := addrBySlot[f.Slot()]; ok && a != f.Pin().Addr() {
				problems = append(problems, fmt.Sprintf("slot %d moved from %#x to %#x", f.Slot(), a, f.Pin().Addr()))
			}
			addrBySlot[f.Slot()] = f.Pin().Addr()
			if f.Copied() {
				problems = append(problems, "a tensorsrc buffer was copied")
			}
			b := f.Bytes()
			if len(b) != 32*32*3 {
				problems = append(problems, fmt.Sprintf("frame of %d bytes", len(b)))
				return
			}
			// tensorsrc's counter pattern: byte i of frame n is n*7+i.
			if seen > 0 && b[0] != first+byte(7*seen) {
				problems = append(problems, fmt.Sprintf("frame %d starts with %d, want %d", seen, b[0], first+byte(7*seen)))
			}
			for _, i := range []int{1, 255, 256, 1000, len(b) - 1} {
				if b[i] != b[0]+byte(i) {
					problems = append(problems, fmt.Sprintf("frame %d byte %d is %d, want %d", seen, i, b[i], b[0]+byte(i)))
				}
			}
			if seen == 0 {
				first = b[0]
			}
			seen++
		})
	if len(problems) > 0 {
		t.Fatalf("%d problems; first: %s", len(problems), problems[0])
	}
	slots := uint64(len(addrBySlot))
	if slots == 0 || slots > pool {
		t.Errorf("%d slots, want 1 to %d (the ring)", slots, pool)
	}
	if s.Frames != frames || s.Mmaps != slots || s.CacheMisses != slots || s.Copies != 0 {
		t.Errorf("sink stats %+v, want %d frames, %d mmaps and misses (one per slot seen), no copies", s, frames, slots)
	}
	if s.BracketsJoined != frames || s.BeginsMatched != frames {
		t.Errorf("%d brackets joined, %d begins matched from tensorsrc, want %d", s.BracketsJoined, s.BeginsMatched, frames)
	}
	// Source and sink together: the ring's own pins (pool) plus the sink's
	// imports (pool); nothing per frame.
	if d := tensor.ReadStats().Mmaps - before.Mmaps; d > 2*pool {
		t.Errorf("%d mmaps for %d frames, want at most %d", d, frames, 2*pool)
	}
}

// With queues and an identity (standing in for an inference element)
// between source and sink, every buffer is preceded by its begin event at
// the identity, and the end event reaches the source after the buffer has
// passed the identity — the bracket spans it.
func TestBracketSpansElementsBetween(t *testing.T) {
	p, err := gst.NewPipelineFromString("tensorsrc num-buffers=100 pool-size=3 ! queue ! identity name=infer ! queue ! tensorpinsink name=sink sync=false")
	if err != nil {
		t.Fatal(err)
	}
	infer, _ := p.GetElementByName("infer")
	var mu sync.Mutex
	var log []string
	pad := infer.GetStaticPad("sink")
	pad.AddProbe(gst.PadProbeTypeBuffer|gst.PadProbeTypeEventDownstream|gst.PadProbeTypeEventUpstream,
		func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
			mu.Lock()
			defer mu.Unlock()
			if info.Type()&gst.PadProbeTypeBuffer != 0 {
				log = append(log, "buffer")
			} else if ts, ok := tensorsync.Parse(info.GetEvent()); ok {
				log = append(log, fmt.Sprintf("%v %d", ts.Phase, ts.Seqnum))
			}
			return gst.PadProbeOK
		})
	e, _ := p.GetElementByName("sink")
	k, _ := tensorpinsink.FromElement(e)
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	p.SetState(gst.StatePlaying)
	if msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(60*time.Second), gst.MessageEOS|gst.MessageError); msg == nil || msg.Type() != gst.MessageEOS {
		t.Fatalf("pipeline did not reach EOS: %v", msg)
	}
	mu.Lock()
	defer mu.Unlock()
	begun, ended := map[string]int{}, map[string]int{}
	buffersAfterBegin := 0
	last := ""
	for i, l := range log {
		var seq int
		if _, err := fmt.Sscanf(l, "begin %d", &seq); err == nil {
			begun[fmt.Sprint(seq)] = i
		} else if _, err := fmt.Sscanf(l, "end %d", &seq); err == nil {
			b, ok := begun[fmt.Sprint(seq)]
			if !ok || b > i {
				t.Fatalf("end %d before its begin", seq)
			}
			ended[fmt.Sprint(seq)] = i
			// End events travel upstream on another thread and may land
			// between a begin and its buffer: they do not break the
			// downstream order checked here.
			continue
		} else if l == "buffer" && len(last) > 5 && last[:5] == "begin" {
			buffersAfterBegin++
		}
		last = l
	}
	if len(begun) != 100 || len(ended) != 100 {
		t.Fatalf("%d begins and %d ends seen at the identity, want 100 each", len(begun), len(ended))
	}
	if buffersAfterBegin < 99 {
		t.Errorf("only %d buffers came right after their begin event", buffersAfterBegin)
	}
	if s := k.Stats(); s.BracketsJoined != 100 || s.BeginsExpired != 0 {
		t.Errorf("sink stats %+v", s)
	}
}
