package tensorpublish

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/results"
)

// destination is where the messages go: a file or an MQTT broker, each
// with its queue and its goroutine.
type destination interface {
	// queue is the destination's queue, which the streaming thread pushes
	// each message into.
	queue() *queue
	// addStats adds the destination's counters to s.
	addStats(s *Stats)
	// close stops the goroutine and releases the destination's fd or
	// connection; what it still held is dropped and counted. Idempotent.
	close()
}

// publisher is the streaming state of one run (start to stop): the
// destinations, and the streaming thread's reused frame, reader and line.
type publisher struct {
	self         unsafe.Pointer // the GstElement (borrowed: it outlives the run)
	source       string
	flushTimeout time.Duration
	dests        []destination

	// The streaming thread's: reused every frame.
	reader results.Reader
	frame  results.Frame
	line   []byte

	messages atomic.Uint64
}

// publish makes one frame's JSON line from the regions read in C (see
// results.Reader.Borrow) and queues it to every destination. It
// allocates nothing once its buffers are as large as the frames', and
// never waits.
func (p *publisher) publish(pts uint64, width, height int, rois unsafe.Pointer, n int, classes unsafe.Pointer, nc int) {
	f := &p.frame
	f.PTS, f.HasPTS = time.Duration(pts), pts != gstglue.ClockTimeNone
	if !f.HasPTS {
		f.PTS = 0
	}
	f.Width, f.Height, f.Source = width, height, p.source
	p.reader.Borrow(f, rois, n, classes, nc)
	p.line = append(f.AppendJSON(p.line[:0]), '\n')
	// The objects borrow the buffer's strings: not kept past the call.
	f.Objects = nil
	for _, d := range p.dests {
		d.queue().push(p.line)
	}
	p.messages.Add(1)
}

// flush waits, at EOS, until every destination has sent what it holds,
// or flushTimeout has passed.
func (p *publisher) flush() {
	deadline := time.Now().Add(p.flushTimeout)
	for _, d := range p.dests {
		for d.queue().held() > 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
}

// stats returns the run's counters so far.
func (p *publisher) stats() Stats {
	c := readCStats(p.self)
	s := Stats{Frames: c.frames, Objects: c.objects, FrameTime: c.frameTime, Messages: p.messages.Load()}
	for _, d := range p.dests {
		d.addStats(&s)
		q := d.queue()
		s.Dropped += q.dropped.Load()
		s.Queued += uint64(q.held())
	}
	return s
}

// close stops every destination.
func (p *publisher) close() {
	for _, d := range p.dests {
		d.close()
	}
}
