package tensorpinsink_test

import (
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// beginFor returns the begin event fields for fd's dma-buf at offset 0.
func beginFor(t *testing.T, fd int, seqnum uint32, pts time.Duration) tensorsync.Info {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	return tensorsync.Info{Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessReadWrite,
		Dev: st.Dev, Ino: st.Ino, PTS: uint64(pts), Seqnum: seqnum}
}

// oobBegin builds ts as an out-of-band custom downstream event (the wire
// format of tensorsync.NewEvent, but not serialized with the buffers).
func oobBegin(ts tensorsync.Info) *gst.Event {
	s := gst.NewStructure(tensorsync.StructureName)
	s.SetValue("phase", ts.Phase.String())
	s.SetValue("access", ts.Access.String())
	s.SetValue("dev", ts.Dev)
	s.SetValue("ino", ts.Ino)
	s.SetValue("offset", ts.Offset)
	s.SetValue("pts", ts.PTS)
	s.SetValue("seqnum", uint(ts.Seqnum))
	return gst.NewCustomEvent(gst.EventTypeCustomOOB, s)
}

// A GstTensorSync begin sent out of band reaches the sink's event handler
// on the sending thread, not the streaming thread: the sink refuses it
// (a begin only means something in order with the buffers) and counts it
// in begins-rejected; it never matches a buffer. Sent from another
// goroutine while frames stream, which under -race also shows the pending
// begins are not touched off the streaming thread.
func TestOutOfBandBeginsAreRejectedAndCounted(t *testing.T) {
	const frames, size = 40, 256
	fds := memfdPool(t, 2, size)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
	sinkElem, _ := p.GetElementByName("sink")
	sinkPad := sinkElem.GetStaticPad("sink")
	var mu sync.Mutex
	announced := 0
	k.OnFrame(func(f tensorpinsink.Frame) { f.Release() })
	src := appSrc(t, p)
	sent := make(chan struct{})
	stop := make(chan struct{})
	var oob int
	go func() {
		// Out-of-band begins for both buffers, as fast as they go, until
		// the stream is over.
		defer close(sent)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if sinkPad.SendEvent(oobBegin(beginFor(t, fds[i%2], uint32(i), 0))) {
				mu.Lock()
				announced++
				mu.Unlock()
			}
			oob++
			if i%8 == 7 {
				time.Sleep(100 * time.Microsecond) // let the streaming thread in
			}
		}
	}()
	go func() {
		for i := 0; i < frames; i++ {
			pushFD(t, src, fds[i%2], size, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
	}()
	msg := run(t, p)
	close(stop)
	<-sent
	if msg != "" {
		t.Fatal(msg)
	}
	s := k.Stats()
	if s.Frames != frames || s.BeginsMatched != 0 {
		t.Fatalf("stats %+v: want %d frames, none matched to an out-of-band begin", s, frames)
	}
	if s.BeginsRejected == 0 || announced != 0 {
		t.Fatalf("%d out-of-band begins sent, %d accepted; stats %+v: want every one rejected and counted", oob, announced, s)
	}
}

// With the seqnum in the buffer's offset (as tensorsrc sets it), a begin
// whose buffer was dropped before the sink (announced as seqnum 0) does not
// match a later buffer of the same dma-buf that was not announced (seqnum
// 5: pattern=app with SetWriteFence, whose bracket is closed): that frame
// sends no end event carrying seqnum 0 and frame 0's PTS, and the stale
// begin is counted as expired.
func TestStaleBeginDoesNotMatchALaterBufferOfTheSameSlot(t *testing.T) {
	const size = 256
	fds := memfdPool(t, 1, size)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink sync=false")
	srcElem, _ := p.GetElementByName("src")
	srcPad := srcElem.GetStaticPad("src")
	srcPad.AddProbe(gst.PadProbeTypeBuffer, func(pad *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		if info.GetBuffer().Offset() != 0 {
			return gst.PadProbeOK // seqnum 5: not announced
		}
		// Seqnum 0: announced, then lost on the way.
		ev, err := tensorsync.NewEvent(tensorsync.Downstream, beginFor(t, fds[0], 0, 0))
		if err != nil {
			t.Error(err)
		}
		pad.PushEvent(ev)
		return gst.PadProbeDrop
	})
	var mu sync.Mutex
	var ends []tensorsync.Info
	srcPad.AddProbe(gst.PadProbeTypeEventUpstream, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		if ts, ok := tensorsync.Parse(info.GetEvent()); ok && ts.Phase == tensorsync.PhaseEnd {
			mu.Lock()
			ends = append(ends, ts)
			mu.Unlock()
		}
		return gst.PadProbeOK
	})
	var delivered []time.Duration
	k.OnFrame(func(f tensorpinsink.Frame) {
		mu.Lock()
		delivered = append(delivered, f.PTS())
		mu.Unlock()
		f.Release()
	})
	src := appSrc(t, p)
	go func() {
		for _, seq := range []uint64{0, 5} {
			mem, err := gstglue.NewFdMemory(fds[0], size, nil)
			if err != nil {
				t.Error(err)
				return
			}
			buf := gst.NewEmptyBuffer()
			gstglue.AppendMemory(buf, mem)
			buf.SetPresentationTimestamp(gst.ClockTime(time.Duration(seq) * time.Second))
			gstglue.SetBufferOffset(gstglue.BorrowBuffer(buf), seq)
			src.PushBuffer(buf)
		}
		src.EndStream()
	}()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(delivered) != 1 || delivered[0] != 5*time.Second {
		t.Fatalf("delivered frames at %v, want one at 5s", delivered)
	}
	if len(ends) != 0 {
		t.Fatalf("end events %+v for a frame that was never announced", ends)
	}
	if s := k.Stats(); s.BeginsMatched != 0 || s.BeginsExpired != 1 {
		t.Fatalf("stats %+v: want no begin matched and the stale one expired", s)
	}
}
