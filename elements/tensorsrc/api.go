package tensorsrc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
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
	el, err := gstglue.ElementOf[*element](e, ErrNotTensorSrc)
	if err != nil {
		return nil, err
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
	// A cancelled ctx ends the wait in C like any interrupt (a ctx that
	// cannot be cancelled registers nothing: no allocation a frame).
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, e.appWake.Interrupt)()
	}
	waited := false
	for {
		// Read before looking (ctx too): an interrupt after the look — a
		// start, a stop, a new ring, the end of the stream, ctx done —
		// ends the wait below.
		gen := e.appWake.Gen()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e.mu.Lock()
		st := e.st
		var r *ring
		var err error
		var growAfter time.Duration
		switch {
		case st == nil && e.runs > 0:
			err = ErrStopped
		case st == nil:
		case st.pattern != patternApp:
			err = ErrNotApp
		case st.eos:
			err = ErrEOS
		case st.ring != nil:
			r = st.ring
			if i := r.out.Take(); i >= 0 {
				sl := r.slots[i] // under e.mu: the ring may grow
				e.mu.Unlock()
				r.tookSlot()
				return s.open(ctx, st, sl, gen)
			}
			if !waited {
				waited = true
				st.stats.waits.Add(1)
			}
			growAfter = r.acquireGrowAfter()
		}
		e.mu.Unlock()
		if err != nil {
			return nil, err
		}
		// In C, with no lock held: a free of the ring's (whose wake this
		// is) wakes it without a call into Go; with no ring yet, only an
		// interrupt does. A ring that may grow is waited for growAfter
		// at a time (grow.go).
		var out *frameengine.OutRing
		if r != nil {
			out = r.out
		}
		i, timedOut := -1, false
		if growAfter > 0 {
			i, timedOut = out.TakeUntilInterruptedFor(e.appWake, gen, growAfter)
		} else {
			i = out.TakeUntilInterrupted(e.appWake, gen)
		}
		if i >= 0 {
			e.mu.Lock()
			sl := r.slots[i]
			e.mu.Unlock()
			r.tookSlot()
			return s.open(ctx, st, sl, gen)
		}
		if timedOut && e.prerollWaits() {
			// Every slot downstream while a sink waits for its preroll:
			// one more slot, this Acquire's.
			if sl := e.grow(gstglue.RawElementOf(e.self), r, false); sl != nil {
				r.grewForAcquire()
				return s.open(ctx, st, sl, gen)
			}
		}
	}
}

// open waits for the fences of sl, which Acquire took, with no lock held
// — an interrupt of the application's wake after gen for a stop, a
// renegotiation or ctx ends the wait — then opens its bracket and hands
// it to the application.
func (s *Source) open(ctx context.Context, st *state, sl *Slot, gen int32) (*Slot, error) {
	e := s.el
	stopped := func() bool { return ctx.Err() != nil || e.st != st || sl.r.closed }
	err := e.openForWrite(st, sl, gen, stopped)
	e.mu.Lock()
	if err == nil && (e.st != st || sl.r.closed) {
		// Stopped (or the ring replaced) while we waited: the slot is
		// no use to the application any more.
		err = ErrStopped
	} else if err == nil {
		sl.acquired = true
		e.mu.Unlock()
		return sl, nil
	}
	e.mu.Unlock()
	sl.release()
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
	if !s.letGo(sl) {
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
	default:
		at := gstglue.ClockTimeNone
		if pts >= 0 {
			at = uint64(pts)
		}
		// Into the C frame's queue, under e.mu: a new ring or a stop
		// (which give the queue back) cannot come between the check
		// above and this.
		st.frame.AppPush(sl.idx, at)
	}
	e.mu.Unlock()
	if err != nil {
		sl.release()
	}
	return err
}

// letGo ends the application's hold on sl: false if it holds none (nil,
// another source's slot, never acquired, or already pushed or
// discarded). The caller holds e.mu.
func (s *Source) letGo(sl *Slot) bool {
	if sl == nil || sl.r.el != s.el || !sl.acquired {
		return false
	}
	sl.acquired = false
	return true
}

// Discard gives an acquired slot back without pushing it; its bracket is
// closed.
func (s *Source) Discard(sl *Slot) error {
	e := s.el
	e.mu.Lock()
	if !s.letGo(sl) {
		e.mu.Unlock()
		return ErrNotAcquired
	}
	e.mu.Unlock()
	sl.release()
	return nil
}

// EndOfStream makes the source send EOS after the frames already pushed;
// Acquire and Push fail with ErrEOS from now until the next start.
func (s *Source) EndOfStream() error {
	e := s.el
	e.mu.Lock()
	st := e.st
	if st != nil {
		st.eos = true
		st.frame.AppSetEOS(true)
	}
	e.mu.Unlock()
	if st == nil {
		return ErrStopped
	}
	e.appWake.Interrupt()
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
	if sl == nil || sl.r.el != e || !sl.acquired {
		return ErrNotAcquired
	}
	if err := sl.t.ImportSyncFile(tensor.AccessWrite, syncFD); err != nil {
		return fmt.Errorf("tensorsrc: slot %d: %w", sl.idx, err)
	}
	sl.r.stats.fencesAttached.Add(1)
	// Under e.mu, as Push's check: the slot is not queued meanwhile.
	sl.r.out.CloseWrites(sl.idx)
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
