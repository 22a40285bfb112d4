package tensortrack_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensortrack"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensortrack/internal/tracktest"
)

func TestMain(m *testing.M) { gsttest.Main(m, func() bool { return tensortrack.Register(nil) }) }

// frameW, frameH is the tests' frame size.
const frameW, frameH = 640, 480

const videoCaps = "video/x-raw,format=GRAY8,width=640,height=480,framerate=30/1"

// obj is a detection: a region with a "detection" structure.
type obj struct {
	x, y, w, h uint
	class      int
	label      string
	conf       float64
}

func (o obj) roi() gstglue.ROI {
	typ := o.label
	if typ == "" {
		typ = "thing"
	}
	return gstglue.ROI{Type: typ, X: o.x, Y: o.y, W: o.w, H: o.h, ParentID: -1, Detection: true, Label: o.label, ClassID: o.class, Confidence: o.conf}
}

// plain is a region without params, its id and parent id given, or
// (childOf > 0) the parent being detection childOf-1 of its frame.
type plain struct {
	typ        string
	x, y, w, h uint
	id, parent int
	childOf    int
}

// tframe is one input frame: its detections (ids 0, 1, … in order), its
// plain regions, its detector run (0: no GstTensorPinMeta) and the
// name of the element that made it, and a later result's run (0: none).
type tframe struct {
	dets     []obj
	plain    []plain
	run      uint64
	producer string
	laterRun uint64
}

// ended is a tensortrack-ended message.
type ended struct {
	ID, FirstPTS, LastPTS, FramesSeen uint64
	X, Y, W, H                        uint
	Label                             string
	HasLabel                          bool
	ClassID                           int
}

// session is a pipeline appsrc ! tensortrack ! appsink under test.
type session struct {
	t    *testing.T
	p    *gst.Pipeline
	src  *app.Source
	sink *app.Sink
	el   *gst.Element
	n    int
}

// newSession plays "appsrc srcProps ! tensortrack props ! appsink", after
// setup (if any) had the session; the pipeline goes to NULL at the
// test's end.
func newSession(t *testing.T, props string, srcProps string, setup ...func(*session)) *session {
	t.Helper()
	desc := "appsrc name=src format=time " + srcProps + " ! tensortrack name=tr " + props + " ! appsink name=sink sync=false wait-on-eos=false"
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	s := &session{t: t, p: p}
	t.Cleanup(func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) })
	get := func(name string) *gst.Element {
		e, err := p.GetElementByName(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return e
	}
	s.src, s.sink, s.el = app.SrcFromElement(get("src")), app.SinkFromElement(get("sink")), get("tr")
	c := gst.NewCapsFromString(videoCaps)
	s.src.SetCaps(c)
	gstglue.ReleaseCaps(c)
	for _, f := range setup {
		f(s)
	}
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatalf("PLAYING: %v", err)
	}
	return s
}

// pts is frame i's time.
func pts(i int) uint64 { return uint64(i) * uint64(33*time.Millisecond) }

// push pushes f (the session's next frame).
func (s *session) push(f tframe) {
	s.t.Helper()
	buf := gst.NewBufferWithSize(16)
	buf.SetPresentationTimestamp(gst.ClockTime(pts(s.n)))
	s.n++
	var ids []int
	for _, o := range f.dets {
		id, err := gstglue.AddROI(gstglue.BorrowBuffer(buf), o.roi())
		if err != nil {
			s.t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, p := range f.plain {
		parent := p.parent
		if p.childOf > 0 {
			parent = ids[p.childOf-1]
		}
		tracktest.AddPlain(buf, p.typ, p.x, p.y, p.w, p.h, p.id, parent)
	}
	if f.run > 0 {
		tracktest.AddRun(buf, f.run, f.producer)
	}
	if f.laterRun > 0 { // a later tensorinfer's result, every frame its own run
		tracktest.AddRun(buf, f.laterRun, "later")
	}
	if ret := gsttest.PushOwned(s.src, buf); ret != gst.FlowOK {
		s.t.Fatalf("push: %v", ret)
	}
}

// pull returns the regions of the next n frames out.
func (s *session) pull(n int) [][]tracktest.Region {
	s.t.Helper()
	var out [][]tracktest.Region
	for i := range n {
		smp := s.sink.TryPullSample(gst.ClockTime(10 * time.Second))
		if smp == nil {
			s.t.Fatalf("frame %d of %d: none out within 10 s", i, n)
		}
		b := smp.GetBuffer()
		out = append(out, tracktest.Regions(b))
		gstglue.UnrefBuffer(b)
		runtime.SetFinalizer(smp, nil)
		smp.Unref()
	}
	return out
}

// run pushes frames and returns the regions of each, out.
func (s *session) run(frames []tframe) [][]tracktest.Region {
	s.t.Helper()
	for _, f := range frames {
		s.push(f)
	}
	return s.pull(len(frames))
}

// messages pops the tensortrack-ended messages on the bus (waiting up
// to wait for the first), until none is pending; with untilEOS, every
// message until EOS, which must come.
func (s *session) messages(untilEOS bool) []ended {
	s.t.Helper()
	bus := s.p.GetPipelineBus()
	var out []ended
	for {
		timeout := gst.ClockTime(0)
		if untilEOS {
			timeout = gst.ClockTime(10 * time.Second)
		}
		msg := bus.TimedPopFiltered(timeout, gst.MessageElement|gst.MessageEOS|gst.MessageError)
		if msg == nil {
			if untilEOS {
				s.t.Fatal("no EOS within 10 s")
			}
			return out
		}
		switch msg.Type() {
		case gst.MessageError:
			ge, _ := gstglue.ParseErrorMessage(msg)
			s.t.Fatalf("error: %s (%s)", ge.Message, ge.Debug)
		case gst.MessageEOS:
			return out
		}
		st := msg.GetStructure()
		if st == nil || st.Name() != "tensortrack-ended" {
			continue
		}
		out = append(out, parseEnded(s.t, st))
	}
}

func parseEnded(t *testing.T, st *gst.Structure) ended {
	t.Helper()
	get := func(k string) any {
		v, err := st.GetValue(k)
		if err != nil {
			t.Fatalf("tensortrack-ended without %s: %v", k, err)
		}
		return v
	}
	e := ended{ID: get("id").(uint64), FirstPTS: get("first-pts").(uint64), LastPTS: get("last-pts").(uint64),
		FramesSeen: get("frames-seen").(uint64), X: uint(get("x").(uint)), Y: uint(get("y").(uint)), W: uint(get("w").(uint)),
		H: uint(get("h").(uint)), ClassID: get("class-id").(int)}
	if v, err := st.GetValue("label"); err == nil {
		e.Label, e.HasLabel = v.(string), true
	}
	return e
}

// stats reads the element's counters.
func (s *session) stats() tensortrack.Stats {
	s.t.Helper()
	st, err := tensortrack.ReadStats(s.el)
	if err != nil {
		s.t.Fatal(err)
	}
	return st
}

// tracked returns the regions of rs that carry a track, by track id;
// the test fails if a track has two regions in one frame.
func tracked(t *testing.T, what string, rs []tracktest.Region) map[uint64]tracktest.Region {
	t.Helper()
	m := map[uint64]tracktest.Region{}
	ids := map[int]bool{}
	for _, r := range rs {
		if ids[r.ID] {
			t.Fatalf("%s: region id %d twice in the buffer: %+v", what, r.ID, rs)
		}
		ids[r.ID] = true
		if !r.HasTracking {
			continue
		}
		if _, dup := m[r.TrackID]; dup {
			t.Fatalf("%s: track %d has two regions: %+v", what, r.TrackID, rs)
		}
		if r.ID != int((r.TrackID-1)%(1<<31-1)+1) {
			t.Fatalf("%s: region id %d for track %d", what, r.ID, r.TrackID)
		}
		if r.State != "tracked" && r.State != "predicted" {
			t.Fatalf("%s: state %q", what, r.State)
		}
		m[r.TrackID] = r
	}
	return m
}
