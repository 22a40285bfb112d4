package pipelines

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-gst/go-gst/gst"
)

// cancelMessage names the application message Run posts to its own bus
// to wake itself when ctx is cancelled.
const cancelMessage = "gst-tensorpin-pipelines-cancel"

// Run plays the pipeline until the stream ends and leaves it stopped
// (NULL), whatever happens. It returns:
//
//   - nil at EOS, once the application has released the frames it holds
//     (or ShutdownTimeout has passed: frames still held after it stay
//     valid, their CPU-access brackets closed by the sink's stop);
//   - the first ERROR message as an *Error (errors.Is(err, ErrPipeline);
//     element name, GError domain, code and message text);
//   - when ctx is cancelled: it sends EOS, waits up to ShutdownTimeout
//     for it to reach the sinks (a clean drain), then stops; the error
//     wraps context.Cause(ctx), and ErrShutdownTimeout if EOS did not come.
//
// Run consumes the pipeline's bus while it runs (see OnMessage). The
// PinSinks' frame channels are closed before Run returns. A Pipeline runs
// once: a second Run returns ErrAlreadyRun. Before it returns, Run
// releases every GStreamer reference the Pipeline holds, as Close does:
// element wrappers it handed out are invalid afterwards.
func (p *Pipeline) Run(ctx context.Context) error {
	p.mu.Lock()
	if p.ran {
		p.mu.Unlock()
		return ErrAlreadyRun
	}
	p.ran, p.running = true, true
	gp := p.p
	p.mu.Unlock()
	// Last: stopped, then every reference released (see Close).
	defer p.release()
	defer func() {
		p.mu.Lock()
		p.running = false
		p.mu.Unlock()
	}()
	defer p.stop()
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	bus := gp.GetPipelineBus()
	posted := make(chan struct{})
	wake := context.AfterFunc(ctx, func() {
		defer close(posted)
		msg := gst.NewApplicationMessage(gp, gst.NewStructure(cancelMessage))
		bus.Post(msg) // the bus takes a reference of its own
		releaseMessage(msg)
	})
	defer func() {
		// A wake-up already under way uses the pipeline and its bus:
		// wait for it before they are stopped and released.
		if !wake() {
			<-posted
		}
	}()

	if err := gp.SetState(gst.StatePlaying); err != nil {
		// The element that refused usually said why on the bus.
		if msg := bus.TimedPopFiltered(gst.ClockTime(100*time.Millisecond), gst.MessageError); msg != nil {
			defer releaseMessage(msg)
			e, _ := ErrorFromMessage(msg)
			return e
		}
		return fmt.Errorf("%w: %v", ErrStateChange, err)
	}
	for {
		msg := bus.TimedPopFiltered(gst.ClockTimeNone, gst.MessageAny)
		if msg == nil {
			continue
		}
		t, e := p.consume(msg)
		switch t {
		case gst.MessageEOS:
			p.drain(time.Now().Add(p.ShutdownTimeout))
			return nil
		case gst.MessageError:
			return e
		case gst.MessageApplication:
			return p.cancel(ctx, gp, bus)
		}
	}
}

// handle shows msg to the OnMessage hook and reports what Run must act
// on: EOS, Error, Application (our cancel message) or 0.
func (p *Pipeline) handle(msg *gst.Message) gst.MessageType {
	p.mu.Lock()
	h := p.onMessage
	p.mu.Unlock()
	t := msg.Type()
	if t == gst.MessageApplication {
		if st := msg.GetStructure(); st != nil && st.Name() == cancelMessage {
			return t
		}
	}
	if h != nil {
		h(msg)
	}
	switch t {
	case gst.MessageEOS, gst.MessageError:
		return t
	}
	return 0
}

// cancel sends EOS and waits for it (or an error) until the shutdown
// deadline. Sending EOS blocks while a source's streaming thread is
// blocked downstream — by a tensorpinsink whose frames the application
// does not release — so it is sent from its own goroutine; at the
// deadline the PinSinks are flushed, which wakes that thread and lets
// the send, and then the stop, complete.
func (p *Pipeline) cancel(ctx context.Context, gp *gst.Pipeline, bus *gst.Bus) error {
	cause := context.Cause(ctx)
	deadline := time.Now().Add(p.ShutdownTimeout)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		ev := gst.NewEOSEvent()
		gp.SendEvent(ev) // takes a reference of its own
		releaseEvent(ev)
	}()
	for {
		left := time.Until(deadline)
		var msg *gst.Message
		if left > 0 {
			msg = bus.TimedPopFiltered(gst.ClockTime(left), gst.MessageAny)
		}
		if msg == nil && time.Until(deadline) <= 0 {
			for _, k := range p.pinSinks() {
				k.flush()
			}
			select {
			case <-sent:
			case <-time.After(time.Second):
			}
			return fmt.Errorf("%w: %w (no EOS within %v)", cause, ErrShutdownTimeout, p.ShutdownTimeout)
		}
		if msg == nil {
			continue
		}
		t, e := p.consume(msg)
		switch t {
		case gst.MessageEOS:
			<-sent
			p.drain(deadline)
			return cause
		case gst.MessageError:
			return errors.Join(cause, e)
		}
	}
}

// consume handles a popped message and releases it (a message holds its
// source: dropped now, not at a GC), returning its type and, for an
// error, the error it carried.
func (p *Pipeline) consume(msg *gst.Message) (gst.MessageType, *Error) {
	t := p.handle(msg)
	var e *Error
	if t == gst.MessageError {
		e, _ = ErrorFromMessage(msg)
	}
	releaseMessage(msg)
	return t, e
}

// drain runs after EOS: every frame has been delivered, so the channels
// close; then it waits (until deadline) for the application to release
// the frames it holds, so that their brackets close on Release and not
// at the sinks' stop.
func (p *Pipeline) drain(deadline time.Time) {
	sinks := p.pinSinks()
	for _, k := range sinks {
		k.closeFrames()
	}
	for _, r := range p.resultTaps() {
		r.closeFrames()
	}
	for _, k := range sinks {
		for k.outstanding() > 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
}

// stop closes the frame channels (waking a delivery blocked on one), sets
// the pipeline to NULL, and detaches the PinSinks' handlers and the
// Results' probes: the element keeps its handler alive, so hooks that
// captured the PinSink or the Pipeline would otherwise keep the pipeline
// alive for good.
func (p *Pipeline) stop() {
	sinks, taps := p.pinSinks(), p.resultTaps()
	for _, k := range sinks {
		k.closeFrames()
	}
	for _, r := range taps {
		r.closeFrames()
	}
	if gp := p.pipeline(); gp != nil {
		gp.SetState(gst.StateNull)
	}
	for _, k := range sinks {
		k.sink.OnFrame(nil)
	}
	for _, r := range taps {
		r.detach()
	}
}

func (p *Pipeline) resultTaps() []*Results {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Results(nil), p.results...)
}

func (p *Pipeline) pinSinks() []*PinSink {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*PinSink(nil), p.sinks...)
}
