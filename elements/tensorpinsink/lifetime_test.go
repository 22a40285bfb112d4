package tensorpinsink_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// A *HostPin saved from a frame either stays the pin of that frame's
// buffer or reads as released after the frame is gone — it never becomes
// the pin of the next buffer delivered through the same frame record
// (max-leases=1: every frame reuses record 0).
func TestSavedPinNeverNamesTheNextBuffer(t *testing.T) {
	fds := memfdPool(t, 2, 256)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink max-leases=1")
	frames := make(chan tensorpinsink.Frame, 2)
	k.OnFrame(func(f tensorpinsink.Frame) { frames <- f })
	src := appSrc(t, p)
	checked := make(chan struct{})
	go func() {
		pushFD(t, src, fds[0], 256, 0)
		pushFD(t, src, fds[1], 256, time.Millisecond)
		<-checked // the stream (and the sink's cache) lives until the checks are done
		src.EndStream()
	}()
	done := make(chan string)
	go func() { done <- run(t, p) }()

	first := <-frames
	saved, savedT := first.Pin(), first.Tensor()
	addr0 := saved.Addr()
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	second := <-frames
	addr1 := second.Pin().Addr()
	if addr1 == addr0 {
		t.Fatal("the two buffers share an address: the test cannot tell them apart")
	}
	if a := saved.Addr(); a != addr0 && a != 0 {
		t.Errorf("frame 0's saved pin now reads %#x (frame 1 is at %#x, frame 0 was at %#x)", a, addr1, addr0)
	}
	if b := saved.Bytes(); b != nil && b[0] != 1 {
		t.Errorf("frame 0's saved pin reads byte %d, buffer 0 holds 1", b[0])
	}
	if savedT != nil && savedT == second.Tensor() {
		t.Error("frame 0's saved tensor is frame 1's tensor")
	}
	close(checked)
	second.Release()
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}
}

// What a frame hands out cannot break the sink: Close, Reshape and
// SyncForDevice on Frame.Tensor() are refused with tensor.ErrLent, and
// every later frame of the slot has its tensor, layout and balanced
// brackets.
func TestFrameTensorCannotBreakTheSink(t *testing.T) {
	fds := memfdPool(t, 1, 256)
	before := tensor.ReadStats()
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
	var mu sync.Mutex
	var problems []string
	n, shape := 0, ""
	k.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		defer mu.Unlock()
		n++
		tn := f.Tensor()
		if shape == "" {
			shape = fmt.Sprint(tn.Shape())
		} else if s := fmt.Sprint(tn.Shape()); s != shape {
			problems = append(problems, "a later frame's tensor has shape "+s+", the first had "+shape)
		}
		if b := f.Bytes(); len(b) != 256 || b[0] != 1 {
			problems = append(problems, "a later frame's bytes are wrong")
		}
		if p, err := tn.PinHost(); err != nil {
			problems = append(problems, "PinHost on a frame's tensor: "+err.Error())
		} else {
			p.Release()
		}
		for what, err := range map[string]error{
			"SyncForDevice": tn.SyncForDevice(tensor.AccessRead),
			"Reshape":       tn.Reshape(tensor.Layout{DType: tensor.U8, Shape: []int{8}}),
			"Close":         tn.Close(),
			"SyncForCPU":    tn.SyncForCPU(tensor.AccessRead),
		} {
			if !errors.Is(err, tensor.ErrLent) {
				problems = append(problems, what+" on a frame's tensor: not ErrLent")
			}
		}
		// A guard is allowed: it joins the frame's bracket, balanced.
		g, err := tn.Map(tensor.AccessRead)
		if err != nil {
			problems = append(problems, "Map on a frame's tensor: "+err.Error())
		} else {
			g.Close()
		}
	})
	src := appSrc(t, p)
	go func() {
		for i := range 5 {
			pushFD(t, src, fds[0], 256, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
	}()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 5 || len(problems) > 0 {
		t.Fatalf("%d frames; problems: %v", n, problems)
	}
	if d := tensor.ReadStats().UnbalancedSyncs - before.UnbalancedSyncs; d != 0 {
		t.Errorf("%d unbalanced bracket ends", d)
	}
}

// Getters of a copy of a frame, racing its Release on another goroutine
// and the streaming thread refilling the record with the next buffer,
// read the frame or nothing — never the next buffer, and without a data
// race (-race reports one on an unsynchronised read).
func TestGettersRacingReleaseReadTheFrameOrNothing(t *testing.T) {
	const frames = 200
	fds := memfdPool(t, 2, 256)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink max-leases=1")
	var bad sync.Map
	k.OnFrame(func(f tensorpinsink.Frame) {
		want := f.Bytes()[0] // buffer i is filled with i+1
		pts := f.PTS()
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if b := f.Bytes(); b != nil && b[0] != want {
					bad.Store("Bytes named another buffer", true)
				}
				if pp := f.Pin(); pp.Valid() && pp.Bytes()[0] != want {
					bad.Store("Pin named another buffer", true)
				}
				if got := f.PTS(); got != -1 && got != pts {
					bad.Store("PTS of another frame", true)
				}
				_ = f.Slot()
				_ = f.Caps()
			}
		}()
		go f.Release() // the next frame may now refill the record
		wg.Wait()
	})
	src := appSrc(t, p)
	go func() {
		for i := range frames {
			pushFD(t, src, fds[i%2], 256, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
	}()
	if msg := run(t, p); msg != "" {
		t.Fatal(msg)
	}
	bad.Range(func(k, _ any) bool { t.Error(k); return true })
}

// A handler that panics loses its frame to the sink, not to the void:
// the error is posted, the frame's lease, buffer and cache entry are
// released and counted, and the producer's buffer comes back.
func TestPanickingHandlerReleasesItsFrame(t *testing.T) {
	fds := memfdPool(t, 2, 256)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
	k.OnFrame(func(f tensorpinsink.Frame) {
		panic("application bug")
	})
	src := appSrc(t, p)
	go func() {
		pushFD(t, src, fds[0], 256, 0)
		src.EndStream()
	}()
	msg := run(t, p)
	if msg == "" {
		t.Fatal("a panicking handler posted no error")
	}
	s := k.Stats()
	if s.LeasesOutstanding != 0 || s.HandlerPanics != 1 || s.Syncs != 2 {
		t.Fatalf("after the panic: %q; stats %+v: want no lease outstanding, 1 handler panic, both bracket halves", msg, s)
	}
}

// Slot numbers are unique for as long as any pin of the slot lives, across
// a stop and a restart of the same sink: a clone of run 1's slot 0 still
// alive in run 2 keeps slot 0 from naming another address.
func TestSlotsStayUniqueAcrossRestarts(t *testing.T) {
	run1, run2 := memfdPool(t, 2, 256), memfdPool(t, 2, 256)
	p, k := pipeline(t, "appsrc name=src format=time caps="+tensorCaps+" ! tensorpinsink name=sink")
	defer runtime.KeepAlive(p)
	kept := map[int]*pin.HostPin{}
	defer func() {
		for _, c := range kept {
			c.Release()
		}
	}()
	var mu sync.Mutex
	var clash []string
	round := 1
	k.OnFrame(func(f tensorpinsink.Frame) {
		defer f.Release()
		mu.Lock()
		defer mu.Unlock()
		slot := f.Slot()
		if c, ok := kept[slot]; ok {
			if c.Addr() != f.Pin().Addr() {
				clash = append(clash, "run 2 reused a live slot for another address")
			}
			return
		}
		if round == 1 {
			c, err := f.Pin().Clone()
			if err != nil {
				t.Error(err)
				return
			}
			moved := c.Move()
			kept[slot] = &moved
		}
	})
	for r, fds := range [][]int{run1, run2} {
		mu.Lock()
		round = r + 1
		mu.Unlock()
		// appsrc takes buffers only once started: PLAYING first.
		if err := p.SetState(gst.StatePlaying); err != nil {
			t.Fatal(err)
		}
		src := appSrc(t, p)
		for i := range 4 {
			pushFD(t, src, fds[i%2], 256, time.Duration(i)*time.Millisecond)
		}
		src.EndStream()
		msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(20*time.Second), gst.MessageEOS|gst.MessageError)
		p.SetState(gst.StateNull)
		if msg == nil || msg.Type() != gst.MessageEOS {
			t.Fatalf("run %d: no EOS: %v", r+1, msg)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kept) != 2 {
		t.Fatalf("%d slots kept from run 1, want 2", len(kept))
	}
	if len(clash) > 0 {
		t.Fatal(clash[0])
	}
}

// A bus sync handler that releases a frame when the sink posts (a bracket
// phase message at stop) runs on the posting thread: the sink must not
// hold its lease lock while it posts, or stop deadlocks.
func TestBusHandlerReleasingAtStopDoesNotDeadlock(t *testing.T) {
	p, k := pipeline(t, "videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,width=16,height=16 ! "+
		"tensorpinsink name=sink max-leases=2 post-sync-messages=true sync=false")
	defer runtime.KeepAlive(p)
	frames := make(chan tensorpinsink.Frame, 2)
	k.OnFrame(func(f tensorpinsink.Frame) { frames <- f })
	var held []tensorpinsink.Frame
	var heldMu sync.Mutex
	p.GetPipelineBus().SetSyncHandler(func(msg *gst.Message) gst.BusSyncReply {
		if msg.Type() == gst.MessageElement {
			if st := msg.GetStructure(); st != nil && st.Name() == "GstTensorSync" {
				if v, _ := st.GetValue("phase"); v == "end" {
					heldMu.Lock()
					fs := held
					held = nil
					heldMu.Unlock()
					for _, f := range fs {
						f.Release() // from the thread that posted
					}
				}
			}
		}
		return gst.BusPass
	})
	p.SetState(gst.StatePlaying)
	for range 2 {
		select {
		case f := <-frames:
			heldMu.Lock()
			held = append(held, f)
			heldMu.Unlock()
		case <-time.After(10 * time.Second):
			t.Fatal("frames not delivered")
		}
	}
	stopped := make(chan struct{})
	go func() {
		p.SetState(gst.StateNull)
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(20 * time.Second):
		t.Fatal("NULL deadlocked: the sink posted while holding its lease lock")
	}
	heldMu.Lock()
	for _, f := range held {
		f.Release()
	}
	heldMu.Unlock()
	if s := k.Stats(); s.LeasesOutstanding != 0 {
		t.Errorf("%d leases outstanding after stop", s.LeasesOutstanding)
	}
}
