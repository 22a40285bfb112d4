package tensorpinsink_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
)

// A producer that announces each buffer with GstTensorSync begin (as
// tensorsrc does) gets one end event back per buffer, upstream, after
// every element in between, and before the buffer is released; the sink
// adopts the bracket instead of opening its own.
func TestAnnouncedBracketsAreAdoptedAndClosedUpstream(t *testing.T) {
	const pool, frames, size = 3, 60, 256
	fds := memfdPool(t, pool, size)
	ids := make([]tensorsync.Info, pool)
	for i, fd := range fds {
		var st unix.Stat_t
		unix.Fstat(fd, &st)
		ids[i] = tensorsync.Info{Phase: tensorsync.PhaseBegin, Access: tensorsync.AccessReadWrite, Dev: st.Dev, Ino: st.Ino}
	}
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! queue ! identity ! queue ! tensorpinsink name=sink")
	srcElem, _ := p.GetElementByName("src")
	srcPad := srcElem.GetStaticPad("src")

	var mu sync.Mutex
	var order []string
	n := 0
	// Before each buffer leaves appsrc, announce its bracket.
	srcPad.AddProbe(gst.PadProbeTypeBuffer, func(pad *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		mu.Lock()
		ts := ids[n%pool]
		ts.Seqnum = uint32(n)
		n++
		order = append(order, fmt.Sprintf("begin %d", ts.Seqnum))
		mu.Unlock()
		ev, err := tensorsync.NewEvent(tensorsync.Downstream, ts)
		if err != nil {
			t.Error(err)
		}
		pad.PushEvent(ev)
		return gst.PadProbeOK
	})
	srcPad.AddProbe(gst.PadProbeTypeEventUpstream, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		if ts, ok := tensorsync.Parse(info.GetEvent()); ok {
			mu.Lock()
			if ts.Phase != tensorsync.PhaseEnd || ts.Dev != ids[ts.Seqnum%pool].Dev || ts.Ino != ids[ts.Seqnum%pool].Ino {
				t.Errorf("upstream event %+v does not close bracket %d", ts, ts.Seqnum)
			}
			order = append(order, fmt.Sprintf("end %d", ts.Seqnum))
			mu.Unlock()
		}
		return gst.PadProbeOK
	})
	var released []string
	k.OnFrame(func(f tensorpinsink.Frame) {
		mu.Lock()
		released = append(released, fmt.Sprint(f.PTS()))
		mu.Unlock()
		f.Release()
	})
	src := appSrc(t, p)
	go func() {
		for i := 0; i < frames; i++ {
			pushFD(t, src, fds[i%pool], size, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
	}()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	s := k.Stats()
	if s.BeginsMatched != frames || s.BeginsExpired != 0 || s.Frames != frames {
		t.Fatalf("stats %+v, want %d begins matched, none expired", s, frames)
	}
	// Each bracket ends after it begins, and brackets end in order.
	mu.Lock()
	defer mu.Unlock()
	begun := map[string]bool{}
	lastEnd := -1
	for _, o := range order {
		var seq int
		if _, err := fmt.Sscanf(o, "begin %d", &seq); err == nil {
			begun[fmt.Sprint(seq)] = true
			continue
		}
		fmt.Sscanf(o, "end %d", &seq)
		if !begun[fmt.Sprint(seq)] || seq != lastEnd+1 {
			t.Fatalf("bracket %d ended out of order: %s", seq, strings.Join(order, ", "))
		}
		lastEnd = seq
	}
	if lastEnd != frames-1 {
		t.Fatalf("%d brackets ended, want %d", lastEnd+1, frames)
	}
}

// Frames still held when the pipeline stops have their brackets closed at
// stop, once; a later Release does not close them again.
func TestBracketsOfHeldFramesCloseAtStop(t *testing.T) {
	p, k := pipeline(t, "videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=8,height=8 ! tensorpinsink name=sink")
	var held []tensorpinsink.Frame
	var copies [][]byte
	var mu sync.Mutex
	k.OnFrame(func(f tensorpinsink.Frame) {
		mu.Lock()
		held = append(held, f)
		copies = append(copies, append([]byte(nil), f.Bytes()...))
		mu.Unlock()
	})
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	s := k.Stats()
	if s.BracketsClosedAtStop != 3 || s.LeasesOutstanding != 3 {
		t.Fatalf("stats %+v, want 3 brackets closed at stop and 3 leases still out", s)
	}
	for i, f := range held {
		if f.Tensor().OpenSyncs() != 0 {
			t.Error("a held frame's bracket is still open after stop")
		}
		// Still mapped and still this frame's bytes after the pipeline
		// stopped (the copy path's memory is not reused while held).
		if !bytes.Equal(f.Bytes(), copies[i]) || len(copies[i]) != 64 {
			t.Errorf("frame %d reads %d other bytes after stop", i, len(f.Bytes()))
		}
		if err := f.Release(); err != nil {
			t.Error(err)
		}
		if err := f.Release(); !errors.Is(err, tensorpinsink.ErrStaleFrame) {
			t.Errorf("second Release: %v, want ErrStaleFrame", err)
		}
	}
	if s := k.Stats(); s.LeasesOutstanding != 0 || s.Syncs != 6 {
		t.Fatalf("after release: stats %+v, want no leases and 6 syncs (3 begin, 3 end)", s)
	}
}

// 100 NULL<->PLAYING cycles: fds and fd-backed mappings return to the
// baseline every time.
func TestStateCyclesReturnToBaseline(t *testing.T) {
	fds := memfdPool(t, 2, 256)
	base := pintest.Take()
	for cycle := 0; cycle < 100; cycle++ {
		p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
		k.OnFrame(func(f tensorpinsink.Frame) { f.Release() })
		src := appSrc(t, p)
		go func() {
			for i := 0; i < 4; i++ {
				pushFD(t, src, fds[i%2], 256, time.Duration(i)*time.Millisecond)
			}
			src.EndStream()
		}()
		if msg := run(t, p); msg != "" {
			t.Fatal(msg)
		}
	}
	if leaks := base.Leaks(); leaks != "" {
		t.Fatalf("after 100 cycles: %s", leaks)
	}
}

// The stats property and the new-frame signal serve non-Go users.
func TestStatsPropertyAndSignal(t *testing.T) {
	p, _ := pipeline(t, "videotestsrc num-buffers=5 ! video/x-raw,format=NV12,width=8,height=8 ! tensorpinsink name=sink emit-signals=true propose-pool=false")
	e, _ := p.GetElementByName("sink")
	// The sink keeps no buffer beyond the frames it hands out.
	if v, err := e.GetProperty("enable-last-sample"); err != nil || v != false {
		t.Errorf("enable-last-sample = %v (%v), want false by default", v, err)
	}
	var addrs []uint64
	var mu sync.Mutex
	if _, err := e.Connect("new-frame", func(_ *gst.Element, b *gst.Buffer, addr, size uint64, slot uint, planes *gst.Structure) {
		mu.Lock()
		addrs = append(addrs, addr)
		mu.Unlock()
		if size != 64 {
			t.Errorf("signal size %d, want 64 (the luma plane)", size)
		}
		// Every plane, for Python and C handlers: NV12 8x8 is luma
		// (64 bytes, stride 8) and chroma (4 rows of 8: 32 bytes).
		text := planes.String()
		for _, want := range []string{"tensorpinsink-planes", "n-planes=(uint)2", "size=(guint64)< 64, 32 >",
			"stride=(uint)< 8, 8 >", fmt.Sprintf("address=(guint64)< %d, %d >", addr, addr+64)} {
			if !strings.Contains(text, want) {
				t.Errorf("planes %s lack %q", text, want)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	if len(addrs) != 5 || addrs[0] == 0 {
		t.Fatalf("signal addresses %v", addrs)
	}
	st, err := gstglue.GetStructureProperty(e, "stats")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Free()
	if v, _ := st.GetValue("frames"); v != uint64(5) {
		t.Errorf("stats frames = %v (%s)", v, st)
	}
	if v, _ := st.GetValue("copies"); v != uint64(5) {
		t.Errorf("stats copies = %v", v)
	}
}
