package pipelines

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gst-tensorpin/gst-tensorpin/elements/results"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish"
)

// ResultFrame is one frame's results: PTS, size, source and objects
// (results.Frame: the type tensorpublish's JSON lines are made from).
type ResultFrame = results.Frame

// Object is one region of interest of a ResultFrame: box, label,
// class-id, confidence, track, classifications (results.Object).
type Object = results.Object

// DefaultResultsQueue is the number of frames a Results channel holds.
const DefaultResultsQueue = 16

// Results is the application's end of an element's results: every frame
// leaving the element's src pad, with the objects of its regions of
// interest (as tensordecode, a classifier or a tracker left them), on a
// channel (Frames) or a callback (OnFrame). Read from the same metas,
// with the same fields, as tensorpublish's JSON.
//
// Lifetimes: a ResultFrame is the application's (its memory is its own:
// keep it as long as you like). The probe is on the pad from Results
// until Run returns (or Close): the pipeline's stop removes it. Every
// frame, with or without objects, is delivered, in order. The channel
// holds DefaultResultsQueue frames; when it is full the streaming
// thread waits for the application to receive one (back-pressure, as
// PinSink's frames; a Run that stops ends the wait, and the frames not
// received are dropped). The channel is closed when the stream ends.
type Results struct {
	ch      chan ResultFrame
	onFrame atomic.Pointer[func(ResultFrame)]
	remove  func()

	// mu orders deliveries (read side, on the streaming thread) before
	// the channel is closed (write side); stop wakes a delivery blocked
	// on a full channel.
	mu       sync.RWMutex
	closed   bool
	stop     chan struct{}
	stopOnce sync.Once
}

// Results returns the results of the element called name — each frame
// leaving its src pad: name a tensordecode (the boxes), an element after
// it (a classifier, a tracker), or a tensorpublish (its source property
// is then each frame's Source, and the frames are those of its JSON).
// Call it before Run.
func (p *Pipeline) Results(name string) (*Results, error) {
	if name == "" {
		return nil, fmt.Errorf("%w: Results needs the name of the element whose frames to read", ErrNoElement)
	}
	el, err := p.element(name)
	if err != nil {
		return nil, err
	}
	defer releaseElement(el)
	pad := el.GetStaticPad("src")
	if pad == nil {
		return nil, fmt.Errorf("%w: %s has no src pad", ErrNoElement, name)
	}
	defer releasePad(pad)
	source := ""
	if f := el.GetFactory(); f != nil && f.GetName() == tensorpublish.Name {
		if v, err := el.GetProperty("source"); err == nil {
			source, _ = v.(string)
		}
	}
	r := &Results{ch: make(chan ResultFrame, DefaultResultsQueue), stop: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("%w: %s: pipeline closed", ErrNoElement, name)
	}
	r.remove = results.Tap(pad, source, r.deliver)
	p.results = append(p.results, r)
	p.mu.Unlock()
	return r, nil
}

// Frames returns the channel the frames arrive on, in order. Receive them
// from another goroutine than Run's. It is closed when the stream ends
// (at EOS, once every frame before it was sent) or when Run stops.
func (r *Results) Frames() <-chan ResultFrame { return r.ch }

// OnFrame has h receive each frame instead of the channel, on the
// streaming thread, before the buffer goes on downstream (a slow h slows
// the stream). nil goes back to the channel.
func (r *Results) OnFrame(h func(ResultFrame)) {
	if h == nil {
		r.onFrame.Store(nil)
		return
	}
	r.onFrame.Store(&h)
}

// deliver runs on the streaming thread for every frame.
func (r *Results) deliver(f ResultFrame) {
	if h := r.onFrame.Load(); h != nil {
		(*h)(f)
		return
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return
	}
	select {
	case r.ch <- f:
	case <-r.stop:
	}
}

// closeFrames ends deliveries to the channel and closes it (idempotent).
func (r *Results) closeFrames() {
	r.stopOnce.Do(func() { close(r.stop) })
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		close(r.ch)
	}
}

// detach removes the probe (after the pipeline stopped): the callback
// and the pad are let go.
func (r *Results) detach() {
	r.closeFrames()
	r.remove()
	r.onFrame.Store(nil)
}
