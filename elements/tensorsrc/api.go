package tensorsrc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Errors of the application API.
var (
	// ErrNotTensorSrc: FromElement was given another kind of element.
	ErrNotTensorSrc = errors.New("tensorsrc: element is not a tensorsrc")
	// ErrNotApp: the source's pattern is not "app".
	ErrNotApp = errors.New("tensorsrc: pattern is not app")
	// ErrStopped: the source was stopped (or its format renegotiated)
	// after it had started.
	ErrStopped = errors.New("tensorsrc: source stopped")
	// ErrEOS: EndOfStream was called.
	ErrEOS = errors.New("tensorsrc: end of stream")
	// ErrNotAcquired: Push or Discard of a slot the application does not
	// hold (never acquired, or already pushed or discarded).
	ErrNotAcquired = errors.New("tensorsrc: slot is not held by the application")
)

// Source is the application's handle on a tensorsrc element, for
// pattern=app: Acquire a slot, write its tensor, Push it; EndOfStream
// ends the stream. All methods are safe for concurrent use.
type Source struct{ el *element }

// FromElement returns the Source behind e, or ErrNotTensorSrc.
func FromElement(e *gst.Element) (*Source, error) {
	if e == nil {
		return nil, ErrNotTensorSrc
	}
	if t := glib.TypeFromName(Name); t == 0 || !e.IsA(t) {
		return nil, fmt.Errorf("%w: %s", ErrNotTensorSrc, e.GetName())
	}
	el, ok := glib.FromObjectUnsafePrivate(e.Unsafe()).(*element)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotTensorSrc, e.GetName())
	}
	return &Source{el: el}, nil
}

// Acquire waits for a free slot and returns it with its CPU bracket open
// (SyncForCPU(readwrite) done): write the tensor, then Push it. It waits
// while the source has not started or its caps are not negotiated yet
// (the ring is allocated at negotiation) and while every slot is in use
// (back-pressure). It fails with ctx's error, ErrNotApp, ErrEOS after
// EndOfStream, or ErrStopped once a started source has stopped.
func (s *Source) Acquire(ctx context.Context) (*Slot, error) {
	e := s.el
	stop := context.AfterFunc(ctx, func() {
		e.mu.Lock()
		e.cond.Broadcast()
		e.mu.Unlock()
	})
	defer stop()
	e.mu.Lock()
	waited := false
	for {
		if err := ctx.Err(); err != nil {
			e.mu.Unlock()
			return nil, err
		}
		st := e.st
		if st == nil && e.runs > 0 {
			e.mu.Unlock()
			return nil, ErrStopped
		}
		if st != nil {
			if st.pattern != patternApp {
				e.mu.Unlock()
				return nil, ErrNotApp
			}
			if st.eos {
				e.mu.Unlock()
				return nil, ErrEOS
			}
			if st.ring != nil {
				if sl := st.ring.takeFreeLocked(); sl != nil {
					sl.state = slotOpening
					e.mu.Unlock()
					return s.open(ctx, st, sl)
				}
				if !waited {
					waited = true
					st.stats.waits.Add(1)
				}
			}
		}
		e.cond.Wait()
	}
}

// open waits for the fences of sl, which Acquire took (slotOpening), with
// no lock held — a stop, a renegotiation or ctx ends the wait — then opens
// its bracket and hands it to the application.
func (s *Source) open(ctx context.Context, st *state, sl *Slot) (*Slot, error) {
	e := s.el
	stopped := func() bool { return ctx.Err() != nil || e.st != st || sl.r.closed }
	err := e.openForWrite(ctx, st, sl, stopped)
	e.mu.Lock()
	if err == nil && (e.st != st || sl.r.closed) {
		// Stopped (or the ring replaced) while we waited: the slot is
		// no use to the application any more.
		sl.open = true
		err = ErrStopped
	} else if err == nil {
		sl.state, sl.open = slotApp, true
		e.mu.Unlock()
		return sl, nil
	}
	drop := s.releaseLocked(sl)
	e.mu.Unlock()
	if drop {
		gstc.UnrefRingMemory(sl.m)
	}
	switch {
	case errors.Is(err, errWaitInterrupted) && ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, errWaitInterrupted), errors.Is(err, ErrStopped):
		return nil, ErrStopped
	}
	return nil, fmt.Errorf("tensorsrc: slot %d: %w", sl.idx, err)
}

// Push queues an acquired slot as the next frame, with PTS pts (negative:
// none). The bracket opened by Acquire stays open while the buffer
// travels. If the source has stopped, reached EndOfStream or replaced its
// ring, the slot is released (bracket closed) and the error says why.
func (s *Source) Push(sl *Slot, pts time.Duration) error {
	e := s.el
	e.mu.Lock()
	if sl == nil || sl.r.el != e || sl.state != slotApp {
		e.mu.Unlock()
		return ErrNotAcquired
	}
	st := e.st
	var err error
	switch {
	case st == nil || sl.r.closed || st.ring != sl.r:
		err = ErrStopped
	case st.eos:
		err = ErrEOS
	}
	if err != nil {
		drop := s.releaseLocked(sl)
		e.mu.Unlock()
		if drop {
			gstc.UnrefRingMemory(sl.m)
		}
		return err
	}
	sl.pts = gstc.ClockTimeNone
	if pts >= 0 {
		sl.pts = uint64(pts)
	}
	sl.state = slotQueued
	st.queue = append(st.queue, sl)
	e.cond.Broadcast()
	e.mu.Unlock()
	return nil
}

// Discard gives an acquired slot back without pushing it; its bracket is
// closed.
func (s *Source) Discard(sl *Slot) error {
	e := s.el
	e.mu.Lock()
	if sl == nil || sl.r.el != e || sl.state != slotApp {
		e.mu.Unlock()
		return ErrNotAcquired
	}
	drop := s.releaseLocked(sl)
	e.mu.Unlock()
	if drop {
		gstc.UnrefRingMemory(sl.m)
	}
	return nil
}

// releaseLocked closes an app-held slot's bracket and frees it; for a
// retired ring it reports that the memory reference the slot kept must be
// dropped (outside the lock).
func (s *Source) releaseLocked(sl *Slot) (drop bool) {
	sl.closeBracketLocked()
	sl.freeLocked()
	s.el.cond.Broadcast()
	if !sl.r.closed || !sl.held {
		return false
	}
	sl.held = false
	return true
}

// EndOfStream makes the source send EOS after the frames already pushed;
// Acquire and Push fail with ErrEOS from now until the next start.
func (s *Source) EndOfStream() error {
	e := s.el
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st == nil {
		return ErrStopped
	}
	e.st.eos = true
	e.cond.Broadcast()
	return nil
}

// SetWriteFence marks an acquired slot as written by a device rather than
// the CPU: it attaches the sync_file syncFD — the fence of the device's
// write, signalled when the device is done — to the slot's dma-buf as a
// write fence (DMA_BUF_IOCTL_IMPORT_SYNC_FILE), and closes the CPU bracket
// Acquire opened, since CPU access must not overlap the device's write.
// Push the slot as usual: downstream, tensorpinsink's bounded wait
// (sync-timeout) covers the device's write, and the slot's next Acquire
// waits for it too (this element's sync-timeout) if it is still pending.
//
// syncFD stays the caller's (the kernel takes its own reference on the
// fences): close it when convenient. Only a dma-buf slot can carry a
// fence (backend dma-heap or udmabuf, or auto where a dma-heap exists);
// a memfd slot is tensor.ErrNotSupported. On error the slot is untouched
// (still held, bracket still open). Slot not held: ErrNotAcquired.
func (s *Source) SetWriteFence(sl *Slot, syncFD int) error {
	e := s.el
	e.mu.Lock()
	defer e.mu.Unlock()
	if sl == nil || sl.r.el != e || sl.state != slotApp {
		return ErrNotAcquired
	}
	if err := sl.t.ImportSyncFile(tensor.AccessWrite, syncFD); err != nil {
		return fmt.Errorf("tensorsrc: slot %d: %w", sl.idx, err)
	}
	sl.r.stats.fencesAttached.Add(1)
	sl.closeBracketLocked()
	return nil
}

// OnSeek sets h (nil: none) to be called at every seek of the source
// (pattern=app), on the thread that seeks, after the flush and before
// streaming restarts, with no lock of the element held. From then on the
// application should push the frames of the new position (Seek.Position;
// the next frame's seqnum is Seek.Frame). Slots it holds (acquired, not
// pushed) stay its own; slots it pushed that were not sent yet were
// given back to the ring (Seek.Discarded). h must return without waiting
// for the pipeline (no Acquire that could wait for a free slot); hand the
// news to the producing goroutine instead.
func (s *Source) OnSeek(h func(Seek)) {
	if h == nil {
		s.el.onSeek.Store(nil)
		return
	}
	s.el.onSeek.Store(&h)
}

// Tensor returns the slot's tensor (borrowed: do not close or reshape it).
func (sl *Slot) Tensor() *tensor.Tensor { return sl.t }

// Pin returns the slot's pin (borrowed: do not release it). Its address
// is the same every time the slot comes round, for the tensor's life.
func (sl *Slot) Pin() *pin.HostPin { return &sl.pin }

// Index returns the slot's position in the ring.
func (sl *Slot) Index() int { return sl.idx }

// Bytes returns a writable view of the tensor's bytes (the pin's window):
// valid while the application holds the slot.
func (sl *Slot) Bytes() []byte { return sl.pin.Bytes() }
