package pipelines

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
)

// Frame is one pinned frame from a PinSink: its tensor, pin, PTS and
// duration, pool slot, and Release. See tensorpinsink.Frame.
type Frame = tensorpinsink.Frame

// PinSink is the application's end of a tensorpinsink: frames on a
// channel (Frames) or a callback (OnFrame), and a hook (OnSlot) fired once
// per pool slot so a runtime can bind the slot's address once.
//
// Every frame must be released (Frame.Release). Frames not released hold
// back the producer: once the sink's max-leases frames (default 4) are
// held, its streaming thread waits for a Release, and upstream — with it
// a tensorsrc's ring, a camera's buffer pool — waits in turn. Nothing is
// dropped unless the sink's drop property is set.
type PinSink struct {
	elMu sync.RWMutex // write side: the Pipeline releasing el
	el   *gst.Element // owned by the Pipeline; nil once it released it
	sink *tensorpinsink.Sink
	*delivery
}

// element runs f with the sink element while the Pipeline has not
// released it, and reports whether it did.
func (k *PinSink) element(f func(*gst.Element)) bool {
	k.elMu.RLock()
	defer k.elMu.RUnlock()
	if k.el == nil {
		return false
	}
	f(k.el)
	return true
}

// releaseElement drops the Pipeline's reference on the sink element.
func (k *PinSink) releaseElement() {
	k.elMu.Lock()
	defer k.elMu.Unlock()
	releaseElement(k.el)
	k.el = nil
}

// delivery is what the element's frame handler reaches. It must hold no
// go-gst wrapper: the element keeps its handler alive, and a wrapper
// reachable from it would keep the element (and the pipeline) alive
// forever.
type delivery struct {
	ch      chan Frame
	onFrame atomic.Pointer[func(Frame)]
	onSlot  atomic.Pointer[func(int, []*pin.HostPin)]
	slots   atomic.Int64

	// mu orders deliveries (read side, on the streaming thread) before
	// the channel is closed (write side); stop wakes a delivery blocked
	// on a full channel.
	mu       sync.RWMutex
	closed   bool
	stop     chan struct{}
	stopOnce sync.Once
}

// PinSink returns the application's end of the tensorpinsink called name
// ("": the pipeline's only tensorpinsink) and turns the sink's
// enable-last-sample off, so that a released frame's buffer really goes
// back to its pool (GstBaseSink would keep the last one). Call it before
// Run. Frames go to the Frames channel unless OnFrame is set: receive
// them (and release them), or the pipeline stalls once max-leases frames
// wait there.
func (p *Pipeline) PinSink(name string) (*PinSink, error) {
	el, err := p.find(name, tensorpinsink.Name)
	if err != nil {
		return nil, err
	}
	s, err := tensorpinsink.FromElement(el)
	if err != nil {
		releaseElement(el)
		return nil, fmt.Errorf("%w: %v", ErrNoElement, err)
	}
	// Frames in the channel are frames not yet released, and the sink
	// never has more than max-leases of those: a channel that large never
	// blocks the streaming thread (the sink itself does the waiting).
	n := 4
	if v, err := el.GetProperty("max-leases"); err == nil {
		if u, ok := v.(uint); ok && u > 0 {
			n = int(u)
		}
	}
	// basesink's last sample would keep the last buffer out of its pool
	// after its frame is released; a Release must give the buffer back.
	if err := setProperty(el, "enable-last-sample", false); err != nil {
		defer releaseElement(el)
		return nil, fmt.Errorf("%w: %s: %v", ErrPipeline, el.GetName(), err)
	}
	d := &delivery{ch: make(chan Frame, n), stop: make(chan struct{})}
	k := &PinSink{el: el, sink: s, delivery: d}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		releaseElement(el)
		return nil, fmt.Errorf("%w: %s: pipeline closed", ErrNoElement, tensorpinsink.Name)
	}
	p.sinks = append(p.sinks, k)
	p.mu.Unlock()
	s.OnFrame(d.deliver)
	return k, nil
}

// Frames returns the channel the frames arrive on, in order. Receive them
// from another goroutine than Run's. The channel is closed when the
// stream ends: at EOS, once every frame before it has been sent, or when
// Run stops the pipeline for an error or a cancel. (It holds max-leases
// frames, as read when PinSink was called, so it never blocks the sink.)
func (k *PinSink) Frames() <-chan Frame { return k.ch }

// OnFrame has h receive each frame instead of the channel, on the
// streaming thread; h owns the frame and must Release it, now or later
// from any goroutine. nil goes back to the channel. It saves the
// goroutine switch the channel costs per frame when its receiver is
// idle (docs/benchmarks.md measures both).
func (k *PinSink) OnFrame(h func(Frame)) {
	if h == nil {
		k.onFrame.Store(nil)
		return
	}
	k.onFrame.Store(&h)
}

// OnSlot installs h, called on the streaming thread right before the
// first frame of each new pool slot is delivered: the moment to bind the
// slot's addresses in a runtime (an input tensor over planes[i].Pointer()).
// planes has one pin per tensor of the frame (Frame.Planes): one for
// packed video and a single tensor, one per plane for NV12 or I420, one
// per tensor of other/tensors. Every later frame of that slot
// (Frame.Slot, the slot of plane 0's memory) has the same addresses for
// as long as the slot lives; h fires again for a slot number only if the
// sink re-imported it (its pin cache evicted the buffer, or the caps
// changed) — rebind then. The pins are borrowed for the call: Clone them
// to keep the addresses valid for as long as the binding lives, after the
// frame, the sink and the pipeline.
func (k *PinSink) OnSlot(h func(slot int, planes []*pin.HostPin)) {
	if h == nil {
		k.onSlot.Store(nil)
		return
	}
	k.onSlot.Store(&h)
}

// Slots counts the OnSlot events so far (slots imported and pinned).
func (k *PinSink) Slots() int { return int(k.slots.Load()) }

// Stats reads the sink's counters: frames, mmaps, syncs, copies, ...
func (k *PinSink) Stats() tensorpinsink.Stats { return k.sink.Stats() }

// Element returns the tensorpinsink element (borrowed: valid until Run
// returns or the Pipeline is closed; nil afterwards).
func (k *PinSink) Element() *gst.Element {
	k.elMu.RLock()
	defer k.elMu.RUnlock()
	return k.el
}

// Caps returns the caps negotiated on the sink's pad (nil before
// negotiation, and once the Pipeline has been released). Every frame
// until a renegotiation has them; the layout they describe is the frame's
// Tensor(). The caps are the caller's.
func (k *PinSink) Caps() *gst.Caps {
	var caps *gst.Caps
	k.element(func(el *gst.Element) {
		if pad := el.GetStaticPad("sink"); pad != nil {
			caps = pad.GetCurrentCaps()
			releasePad(pad)
		}
	})
	return caps
}

// flush sends FLUSH_START to the sink: its streaming thread stops waiting
// for the application to release frames (the frame it was about to
// deliver is dropped). Used only to force a stop.
func (k *PinSink) flush() {
	k.closeFrames()
	k.element(func(el *gst.Element) {
		if pad := el.GetStaticPad("sink"); pad != nil {
			ev := gst.NewFlushStartEvent()
			pad.SendEvent(ev)
			releaseEvent(ev)
			releasePad(pad)
		}
	})
}

// deliver runs on the streaming thread for every frame.
func (k *delivery) deliver(f Frame) {
	k.slotHook(f)
	if h := k.onFrame.Load(); h != nil {
		(*h)(f)
		return
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	if k.closed {
		f.Release()
		return
	}
	select {
	case k.ch <- f:
	case <-k.stop:
		f.Release()
	}
}

func (k *delivery) slotHook(f Frame) {
	isNew := false
	for i := 0; i < f.Planes(); i++ {
		isNew = isNew || f.PlaneNewSlot(i)
	}
	if !isNew {
		return
	}
	k.slots.Add(1)
	if h := k.onSlot.Load(); h != nil {
		pins := make([]*pin.HostPin, f.Planes()) // once per slot, not per frame
		for i := range pins {
			pins[i] = f.PlanePin(i)
		}
		(*h)(f.Slot(), pins)
	}
}

// closeFrames ends deliveries to the channel and closes it (idempotent):
// later frames are released on arrival.
func (k *delivery) closeFrames() {
	k.stopOnce.Do(func() { close(k.stop) })
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.closed {
		k.closed = true
		close(k.ch)
	}
}

// outstanding is the number of frames the application holds (including
// frames in the channel not yet received).
func (k *PinSink) outstanding() int64 { return k.sink.Stats().LeasesOutstanding }
