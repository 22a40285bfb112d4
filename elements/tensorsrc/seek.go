package tensorsrc

import (
	"fmt"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// Seeking.
//
// GstBaseSrc does the mechanics (a flushing seek pushes FLUSH_START,
// unlocks create, takes the stream lock, calls do_seek, pushes FLUSH_STOP
// and a new SEGMENT, restarts the task; a non-flushing one pauses the
// task instead of flushing; a segment seek posts SEGMENT_DONE instead of
// EOS at its stop). tensorsrc says it is seekable, converts BUFFERS and
// DEFAULT (frames) to and from TIME at the negotiated frame rate, and in
// do_seek moves its frame counter: the next frame is the one at the seek
// position (floor, as videotestsrc does), its PTS that frame's time and
// its seqnum and offset that frame's number; the pattern restarts there.
//
// Brackets need nothing special: a flush drops the buffers queued
// downstream, and each slot's memory comes back when its last holder lets
// go — a queue at the flush, a tee branch, the application releasing a
// frame it held across the seek, on any goroutine — and its bracket ends
// then, once (the C ring's return). Sinks expire the begin events whose buffers the
// flush dropped.

// formatBuffers is GST_FORMAT_BUFFERS (go-gst v1.4.0 lacks the constant).
const formatBuffers = gst.Format(4)

// Seek tells a pattern=app application that the source was seeked; see
// Source.OnSeek.
type Seek struct {
	// Position is where the stream restarts (the new segment's start).
	Position time.Duration
	// Stop is the segment's stop, or -1 when it has none.
	Stop time.Duration
	// Rate is the segment's playback rate (> 0).
	Rate float64
	// Flush: a flushing seek (everything downstream was dropped).
	// Segment: a segment seek (SEGMENT_DONE instead of EOS at Stop).
	Flush, Segment bool
	// Frame is the number (seqnum, buffer offset) of the next frame: the
	// one at Position at the negotiated frame rate (0 when the rate is
	// not known or variable).
	Frame uint64
	// Discarded counts the slots the application had pushed and the
	// source had not sent yet: they belonged before the seek and were
	// given back to the ring, their brackets closed.
	Discarded int
}

// seekEvent handles a SEEK event before GstBaseSrc does. A reverse seek
// is refused here, before anything is flushed. For a non-flushing seek
// GstBaseSrc pauses the task and waits for the streaming thread to leave
// create before it unlocks it — a create waiting for a free slot, an
// application push or a slot's fences would hold the seek until then —
// so the waits in create are ended first (FLUSHING: the task pauses, and
// GstBaseSrc restarts it after the seek). A buffer being pushed still
// holds the seek until downstream takes it, as for any GstBaseSrc.
func (e *element) seekEvent(self *base.GstBaseSrc, ev *gst.Event) bool {
	rate, format, flags, _, _, _, _ := ev.ParseSeek()
	if rate <= 0 {
		cat.LogInfo(fmt.Sprintf("refused a seek with rate %v: tensorsrc plays forward only", rate), self.Object)
		return false
	}
	if flags&gst.SeekFlagFlush == 0 {
		e.mu.Lock()
		// Only a seek GstBaseSrc will get to do_seek with: one in frames
		// needs the frame rate (else the conversion fails before the
		// task is paused, and nothing would restart it).
		if st := e.st; st != nil && (format == gst.FormatTime || (isFrames(format) && st.fpsN > 0 && st.fpsD > 0)) {
			st.wake.SetSeeking(true)
		}
		e.mu.Unlock()
		defer func() {
			e.mu.Lock()
			if e.st != nil {
				e.st.wake.SetSeeking(false)
			}
			e.mu.Unlock()
		}()
	}
	return parentEvent(self, ev)
}

// IsSeekable implements base.GstBaseSrc: tensorsrc can restart anywhere.
func (e *element) IsSeekable(self *base.GstBaseSrc) bool { return true }

// DoSeek implements base.GstBaseSrc: the next frame is the one at the
// segment's position. GstBaseSrc calls it with the streaming thread
// stopped — at start (with its default segment, or a seek sent before
// start) and for every seek. A seek (any but the start's default) gives
// back the slots the application pushed that were not sent yet and tells
// the application (OnSeek, the seek signal), with no lock held.
func (e *element) DoSeek(self *base.GstBaseSrc, segment *gst.Segment) (ret bool) {
	defer gstglue.Guard(self.Element, "do-seek", &ret, false)
	if segment.GetFormat() != gst.FormatTime {
		return false
	}
	rate := segment.GetRate()
	if rate <= 0 {
		cat.LogInfo(fmt.Sprintf("refused a seek with rate %v: tensorsrc plays forward only", rate), self.Object)
		return false
	}
	pos, stop := segment.GetPosition(), segment.GetStop()
	if pos == gstglue.ClockTimeNone {
		pos = segment.GetStart()
	}
	flags := segment.GetFlags()
	e.mu.Lock()
	st := e.st
	if st == nil {
		e.mu.Unlock()
		return false
	}
	first := !st.seeked
	st.seeked = true
	// GstBaseSrc restarts the task once this returns, before seekEvent
	// does: the C frame's waits must not end at once then.
	st.wake.SetSeeking(false)
	// The next frame is the one at pos, placed by the C frame once it
	// knows the rate (the stream lock is held: no create runs).
	st.frame.SetSeek(pos)
	notify := !first || pos != 0 || flags&(gst.SegmentFlagReset|gst.SegmentFlagSegment) != 0 || stop != gstglue.ClockTimeNone
	sk := Seek{Position: time.Duration(pos), Stop: -1, Rate: rate,
		Flush: flags&gst.SegmentFlagReset != 0, Segment: flags&gst.SegmentFlagSegment != 0,
		Frame: frameAt(pos, st.fpsN, st.fpsD)}
	if stop != gstglue.ClockTimeNone {
		sk.Stop = time.Duration(stop)
	}
	if notify {
		st.stats.seeks.Add(1)
		// Pushed, not sent: frames of before the seek. The slots go back
		// to the ring (their frees wake an Acquire); those the
		// application holds stay its own.
		sk.Discarded = st.frame.AppDrain()
		st.stats.seekDiscarded.Add(uint64(sk.Discarded))
	}
	app := st.pattern == patternApp
	e.mu.Unlock()
	if !notify {
		return true
	}
	cat.LogInfo(fmt.Sprintf("seek to %v (frame %d, stop %v, rate %v, flush %v, segment %v); %d pushed slot(s) not sent given back",
		sk.Position, sk.Frame, sk.Stop, sk.Rate, sk.Flush, sk.Segment, sk.Discarded), self.Object)
	if app {
		if h := e.onSeek.Load(); h != nil {
			(*h)(sk)
		}
	}
	if err := seekSignal.Emit(self.Element, uint64(pos), stop, rate, sk.Flush, sk.Segment, sk.Frame); err != nil {
		cat.LogWarning("seek signal: " + err.Error())
	}
	return true
}

// Query implements base.GstBaseSrc: CONVERT between TIME and frames
// (BUFFERS, DEFAULT) at the negotiated frame rate — what GstBaseSrc uses
// to turn a seek in frames into one in TIME; everything else is
// GstBaseSrc's.
func (e *element) Query(self *base.GstBaseSrc, q *gst.Query) (ret bool) {
	defer gstglue.Guard(self.Element, "query", &ret, false)
	if q.Type() == gst.QueryConvert {
		sf, df, sv, _ := q.ParseConvert()
		e.mu.Lock()
		fpsN, fpsD := 0, 0
		if e.st != nil {
			fpsN, fpsD = e.st.fpsN, e.st.fpsD
		}
		e.mu.Unlock()
		if dv, ok := convert(sf, sv, df, fpsN, fpsD); ok {
			q.SetConvert(sf, df, sv, dv)
			return true
		}
	}
	return parentQuery(self, q)
}

func isFrames(f gst.Format) bool { return f == formatBuffers || f == gst.FormatDefault }

// convert converts v from format sf to df (TIME and frames), or reports
// false.
func convert(sf gst.Format, v int64, df gst.Format, fpsN, fpsD int) (int64, bool) {
	switch {
	case sf == df || (isFrames(sf) && isFrames(df)):
		return v, true
	case sf != gst.FormatTime && !isFrames(sf), df != gst.FormatTime && !isFrames(df):
		return 0, false
	case v == -1:
		return -1, true
	case v < 0, fpsN <= 0, fpsD <= 0:
		return 0, false
	case sf == gst.FormatTime:
		return int64(frameAt(uint64(v), fpsN, fpsD)), true
	}
	pts, _ := frameTimes(uint64(v), fpsN, fpsD)
	if pts == gstglue.ClockTimeNone || pts > 1<<63-1 {
		return 0, false
	}
	return int64(pts), true
}
