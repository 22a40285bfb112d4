package pipelines

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
)

// Seek is what OnSeek's handler learns of a seek. See tensorsrc.Seek.
type Seek = tensorsrc.Seek

// Slot is one pinned tensor of a TensorSrc's ring, held by the
// application between Next and Push (or Discard). See tensorsrc.Slot.
type Slot = tensorsrc.Slot

// TensorSrc is the application's end of a tensorsrc: take the next free
// pinned tensor of its ring (Next), fill it — with the CPU through
// Slot.Bytes, or by handing Slot.Pin's stable address (or the tensor's fd)
// to a device — and Push it; Close ends the stream (EOS after the frames
// pushed). The ring has pool-size tensors (default 4), pinned once for
// their life; when all of them are in flight downstream, Next waits for
// one to come back: that is the back-pressure, and no frame is dropped.
type TensorSrc struct {
	elMu sync.RWMutex // write side: the Pipeline releasing el
	el   *gst.Element // owned by the Pipeline; nil once it released it
	src  *tensorsrc.Source
}

// releaseElement drops the Pipeline's reference on the source element.
func (s *TensorSrc) releaseElement() {
	s.elMu.Lock()
	defer s.elMu.Unlock()
	releaseElement(s.el)
	s.el = nil
}

// TensorSrc returns the application's end of the tensorsrc called name
// ("": the pipeline's only tensorsrc) and sets its pattern to app. Call it before Run.
func (p *Pipeline) TensorSrc(name string) (*TensorSrc, error) {
	el, err := p.find(name, tensorsrc.Name)
	if err != nil {
		return nil, err
	}
	s, err := tensorsrc.FromElement(el)
	if err != nil {
		releaseElement(el)
		return nil, fmt.Errorf("%w: %v", ErrNoElement, err)
	}
	if err := setProperty(el, "pattern", "app"); err != nil {
		releaseElement(el)
		return nil, fmt.Errorf("%w: %s: %v", ErrPipeline, name, err)
	}
	ts := &TensorSrc{el: el, src: s}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		releaseElement(el)
		return nil, fmt.Errorf("%w: %s: pipeline closed", ErrNoElement, tensorsrc.Name)
	}
	p.srcs = append(p.srcs, ts)
	return ts, nil
}

// Next waits for the next free tensor of the ring and returns it with its
// CPU-access bracket open: write it, then Push it (or Discard it). It
// waits while the pipeline has not negotiated its caps yet (the ring is
// allocated then) and while every tensor is in flight. It fails with
// ctx's error, tensorsrc.ErrEOS after Close, or tensorsrc.ErrStopped once
// the pipeline has stopped.
func (s *TensorSrc) Next(ctx context.Context) (*Slot, error) {
	return s.src.Acquire(ctx)
}

// Push sends a slot from Next downstream as the next frame, with PTS pts
// (negative: none).
func (s *TensorSrc) Push(sl *Slot, pts time.Duration) error { return s.src.Push(sl, pts) }

// SetWriteFence marks a slot from Next as written by a device: syncFD, a
// sync_file signalled when the device's write is done, becomes the
// slot's write fence, and the slot's CPU bracket is closed, so readers
// downstream wait for the device (tensorpinsink's sync-timeout bounds
// that wait). syncFD stays the caller's to close. Needs a dma-buf ring
// (tensorsrc backend dma-heap or udmabuf). See tensorsrc.Source.SetWriteFence.
func (s *TensorSrc) SetWriteFence(sl *Slot, syncFD int) error { return s.src.SetWriteFence(sl, syncFD) }

// Discard gives a slot from Next back unsent.
func (s *TensorSrc) Discard(sl *Slot) error { return s.src.Discard(sl) }

// Send is Next, fill, Push: fill writes the slot; if it fails the slot is
// discarded and its error returned.
func (s *TensorSrc) Send(ctx context.Context, pts time.Duration, fill func(*Slot) error) error {
	sl, err := s.Next(ctx)
	if err != nil {
		return err
	}
	if err := fill(sl); err != nil {
		s.Discard(sl)
		return err
	}
	return s.Push(sl, pts)
}

// OnSeek sets h (nil: none) to be called when the pipeline is seeked
// (Pipeline's go-gst SeekSimple, a player, a test harness): on the
// seeking thread, after the flush and before streaming restarts. Push the
// frames of the new position from then on (Seek.Position; the next
// frame's seqnum is Seek.Frame). Slots you hold stay yours; slots you
// pushed that had not been sent are given back (Seek.Discarded). h must
// not wait for the pipeline (no Next): hand the news to the goroutine
// that produces. See tensorsrc.Source.OnSeek.
func (s *TensorSrc) OnSeek(h func(Seek)) { s.src.OnSeek(h) }

// Close ends the stream: EOS follows the frames already pushed, and Run
// returns nil once it has reached the sinks. Next fails with
// tensorsrc.ErrEOS afterwards.
func (s *TensorSrc) Close() error { return s.src.EndOfStream() }

// Element returns the tensorsrc element (borrowed: valid until Run
// returns or the Pipeline is closed; nil afterwards).
func (s *TensorSrc) Element() *gst.Element {
	s.elMu.RLock()
	defer s.elMu.RUnlock()
	return s.el
}
