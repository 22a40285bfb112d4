package tensortrack_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensortrack/internal/tracktest"
)

// box is a region's rectangle as floats, for overlaps.
type box struct{ x, y, w, h float64 }

func (r obj) box() box { return box{float64(r.x), float64(r.y), float64(r.w), float64(r.h)} }

func regionBox(r tracktest.Region) box {
	return box{float64(r.X), float64(r.Y), float64(r.W), float64(r.H)}
}

func overlap(a, b box) float64 {
	iw := math.Min(a.x+a.w, b.x+b.w) - math.Max(a.x, b.x)
	ih := math.Min(a.y+a.h, b.y+b.h) - math.Max(a.y, b.y)
	if iw <= 0 || ih <= 0 {
		return 0
	}
	return iw * ih / (a.w*a.h + b.w*b.h - iw*ih)
}

// Two people walk head-on and pass over each other; the one behind is
// not detected for 8 frames at the crossing, and the other is missed for
// 10 frames later. Each keeps its id from the first frame to the last,
// and has exactly one region on every frame, on its true box (IoU ≥ 0.5):
// detected ("tracked", the detector's box as it was) or predicted (added,
// "predicted").
func TestTensorTrackIDsStableThroughCrossingsAndGaps(t *testing.T) {
	s := newSession(t, "", "")
	truth := func(i int) (a, b obj) {
		return obj{x: uint(50 + 6*i), y: 200, w: 40, h: 80, class: 0, label: "person", conf: 0.9},
			obj{x: uint(500 - 6*i), y: 206, w: 40, h: 80, class: 0, label: "person", conf: 0.8}
	}
	const n = 75
	var frames []tframe
	for i := range n {
		a, b := truth(i)
		var f tframe
		if i < 55 || i >= 65 {
			f.dets = append(f.dets, a)
		}
		if i < 34 || i >= 42 {
			f.dets = append(f.dets, b)
		}
		frames = append(frames, f)
	}
	out := s.run(frames)
	var idA, idB uint64
	for i, rs := range out {
		a, b := truth(i)
		missA, missB := i >= 55 && i < 65, i >= 34 && i < 42
		tr := tracked(t, fmt.Sprintf("frame %d", i), rs)
		if len(tr) != 2 || len(rs) != 2 {
			t.Fatalf("frame %d: %d regions, %d tracks: %+v", i, len(rs), len(tr), rs)
		}
		for id, r := range tr {
			// Whose region: a detection's is its box exactly; a
			// predicted one is the missed object's.
			isA := r.State == "tracked" && r.X == a.x && r.Y == a.y || r.State == "predicted" && missA
			isB := r.State == "tracked" && r.X == b.x && r.Y == b.y || r.State == "predicted" && missB
			switch {
			case isA && !isB:
				if idA == 0 {
					idA = id
				}
				if id != idA {
					t.Fatalf("frame %d: A's region has track %d, it had %d", i, id, idA)
				}
				checkState(t, i, r, a, missA)
			case isB && !isA:
				if idB == 0 {
					idB = id
				}
				if id != idB {
					t.Fatalf("frame %d: B's region has track %d, it had %d", i, id, idB)
				}
				checkState(t, i, r, b, missB)
			default:
				t.Fatalf("frame %d: region %+v is not A's %+v nor B's %+v", i, r, a, b)
			}
		}
	}
	if idA == idB {
		t.Fatalf("one id for both: %d", idA)
	}
	if st := s.stats(); st.Frames != n || st.TracksStarted != 2 || st.TracksAlive != 2 || st.TracksEnded != 0 || st.PredictedRegions != 18 {
		t.Errorf("stats %+v: want %d frames, 2 tracks started and alive, none ended, 18 predicted regions", st, n)
	}
}

// checkState checks region r of frame i against its object o: detected,
// the detector's box untouched and "tracked"; missed, an added region,
// "predicted", with o's detection structure.
func checkState(t *testing.T, i int, r tracktest.Region, o obj, missed bool) {
	t.Helper()
	if v := overlap(regionBox(r), o.box()); v < 0.5 {
		t.Fatalf("frame %d: region %+v, its object %+v (IoU %.2f)", i, r, o, v)
	}
	if !missed {
		if r.State != "tracked" || r.X != o.x || r.Y != o.y || r.W != o.w || r.H != o.h {
			t.Fatalf("frame %d: detected region %+v, want state tracked on %+v", i, r, o)
		}
		return
	}
	if r.State != "predicted" || !r.HasDetection || r.Type != o.label || r.Label != o.label || r.ClassID != o.class || r.Confidence != o.conf {
		t.Fatalf("frame %d: region %+v for a missed %+v: want a predicted region with its last detection", i, r, o)
	}
}

// With the detector every 3rd frame (tensorinfer interval=3: the frames
// between carry the same run in their GstTensorPinMeta, and
// tensordecode's regions of that run again), the frames between show each
// track once, at its predicted place — closer to the truth than the
// repeated detection — in state "predicted"; a detector run that misses
// an object gives it an added predicted region on that frame and the
// two that repeat it. Never a stale duplicate.
func TestTensorTrackPredictedOnRepeatedRuns(t *testing.T) {
	s := newSession(t, "", "")
	truth := func(i int) (a, b obj) {
		return obj{x: uint(40 + 6*i), y: uint(100 + 2*i), w: 48, h: 48, class: 2, label: "ball", conf: 0.85},
			obj{x: uint(560 - 4*i), y: 300, w: 70, h: 40, class: 1, label: "car", conf: 0.7}
	}
	const n = 60
	var frames []tframe
	for i := range n {
		run := i - i%3 // the frame the detector ran on
		a, b := truth(run)
		f := tframe{dets: []obj{a}, run: uint64(run/3 + 1)}
		if run != 24 {
			f.dets = append(f.dets, b)
		}
		frames = append(frames, f)
	}
	out := s.run(frames)
	predicted := uint64(0)
	for i, rs := range out {
		a, b := truth(i)
		tr := tracked(t, fmt.Sprintf("frame %d", i), rs)
		if len(tr) != 2 || len(rs) != 2 {
			t.Fatalf("frame %d: %d regions, %d tracks: %+v", i, len(rs), len(tr), rs)
		}
		for _, r := range tr {
			o := a
			if r.Type == "car" {
				o = b
			}
			stale := frames[i].dets[0]
			if r.Type == "car" && len(frames[i].dets) > 1 {
				stale = frames[i].dets[1]
			}
			if i%3 == 0 && !(r.Type == "car" && i == 24) {
				if r.State != "tracked" || r.X != o.x || r.Y != o.y {
					t.Fatalf("frame %d (detector): %+v, want tracked at %+v", i, r, o)
				}
				continue
			}
			predicted++
			if r.State != "predicted" || !r.HasDetection || r.Label != o.label || r.ClassID != o.class {
				t.Fatalf("frame %d: %+v, want predicted", i, r)
			}
			got, old := overlap(regionBox(r), o.box()), overlap(stale.box(), o.box())
			if i >= 9 && (got < 0.85 || got <= old) {
				t.Errorf("frame %d: %s predicted at %+v, IoU %.2f with the truth %+v (the repeated detection's: %.2f)", i, r.Type, r, got, o, old)
			}
		}
	}
	if st := s.stats(); st.PredictedRegions != predicted || st.TracksStarted != 2 {
		t.Errorf("stats %+v: want %d predicted regions, 2 tracks", st, predicted)
	}
}

// A frame with two tensorinfers' results: the detector's ("det", every
// 3rd frame a new run) and a later one's (a new run every frame). By
// default the latest result tells the run, so every frame is taken as a
// detector's; results-from=det names the detector, and the frames
// repeating its run are predicted.
func TestTensorTrackResultsFrom(t *testing.T) {
	for _, from := range []string{"", "det"} {
		t.Run("results-from="+from, func(t *testing.T) {
			props := ""
			if from != "" {
				props = "results-from=" + from
			}
			s := newSession(t, props, "")
			var frames []tframe
			for i := range 12 {
				run := i - i%3
				o := obj{x: uint(100 + 5*run), y: 100, w: 40, h: 40, label: "ball", conf: 0.9}
				frames = append(frames, tframe{dets: []obj{o}, run: uint64(run/3 + 1), producer: "det", laterRun: uint64(i + 1)})
			}
			for i, rs := range s.run(frames) {
				tr := tracked(t, fmt.Sprintf("frame %d", i), rs)
				if len(tr) != 1 || len(rs) != 1 {
					t.Fatalf("frame %d: %+v", i, rs)
				}
				want := "tracked"
				if from == "det" && i%3 != 0 {
					want = "predicted"
				}
				if rs[0].State != want {
					t.Fatalf("frame %d: state %q, want %q", i, rs[0].State, want)
				}
			}
		})
	}
}

// Class-aware (the default), a dog detected where a person was does not
// take the person's track: it gets a track of its own, and the person's
// is predicted; class-agnostic, the dog continues the person's track.
func TestTensorTrackClassAwareMatching(t *testing.T) {
	for _, agnostic := range []bool{false, true} {
		t.Run(fmt.Sprintf("class-agnostic=%v", agnostic), func(t *testing.T) {
			s := newSession(t, fmt.Sprintf("class-agnostic=%v", agnostic), "")
			var frames []tframe
			for i := range 12 {
				o := obj{x: uint(100 + 2*i), y: 100, w: 60, h: 60, class: 0, label: "person", conf: 0.9}
				if i >= 5 {
					o.class, o.label = 1, "dog"
				}
				frames = append(frames, tframe{dets: []obj{o}})
			}
			out := s.run(frames)
			first := tracked(t, "frame 0", out[0])
			var person uint64
			for id := range first {
				person = id
			}
			for i := 5; i < 12; i++ {
				tr := tracked(t, fmt.Sprintf("frame %d", i), out[i])
				var dog tracktest.Region
				for _, r := range out[i] {
					if r.Type == "dog" && r.State != "predicted" {
						dog = r
					}
				}
				if agnostic {
					if dog.TrackID != person || len(tr) != 1 {
						t.Fatalf("frame %d: dog %+v, %d tracks: want the person's track %d", i, dog, len(tr), person)
					}
					continue
				}
				p, ok := tr[person]
				if !ok || p.Type != "person" || p.State != "predicted" || dog.TrackID == person {
					t.Fatalf("frame %d: person %+v (%v), dog %+v: want the person predicted, the dog apart", i, p, ok, dog)
				}
				if (i == 5) == dog.HasTracking {
					t.Fatalf("frame %d: dog %+v: want a track from its second frame", i, dog)
				}
			}
		})
	}
}

// min-hits is how many detector runs see a new object before its track
// gets an id: an object entering after the first frame is left without
// one on its first min-hits-1 frames, then keeps the same id.
func TestTensorTrackMinHits(t *testing.T) {
	for _, hits := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("min-hits=%d", hits), func(t *testing.T) {
			s := newSession(t, fmt.Sprintf("min-hits=%d", hits), "")
			still := obj{x: 20, y: 20, w: 40, h: 40, class: 0, label: "person", conf: 0.9}
			var frames []tframe
			for i := range 8 {
				f := tframe{dets: []obj{still}}
				if i >= 2 {
					f.dets = append(f.dets, obj{x: uint(300 + 3*i), y: 200, w: 60, h: 50, class: 2, label: "car", conf: 0.8})
				}
				frames = append(frames, f)
			}
			out := s.run(frames)
			var carID uint64
			for i := 2; i < 8; i++ {
				var car tracktest.Region
				for _, r := range out[i] {
					if r.Type == "car" {
						car = r
					}
				}
				if want := i-2+1 >= hits; car.HasTracking != want {
					t.Fatalf("frame %d (the car's detection %d): %+v, want a track %v", i, i-1, car, want)
				}
				if !car.HasTracking {
					continue
				}
				if carID == 0 {
					carID = car.TrackID
				} else if car.TrackID != carID {
					t.Fatalf("frame %d: the car's track %d, was %d", i, car.TrackID, carID)
				}
			}
			if st := s.stats(); st.TracksStarted != 2 {
				t.Errorf("stats %+v, want 2 tracks started", st)
			}
		})
	}
}

// A track missed for max-lost frames is predicted on each of them, ends
// on the next, and (post-messages) its tensortrack-ended message says who
// it was: id, first and last pts, frames seen, its last box, label and
// class.
func TestTensorTrackMaxLost(t *testing.T) {
	s := newSession(t, "max-lost=5 post-messages=true", "")
	o := obj{x: 200, y: 120, w: 50, h: 90, class: 7, label: "bird", conf: 0.66}
	var frames []tframe
	for i := range 18 {
		f := tframe{}
		if i < 10 {
			f.dets = []obj{o}
		}
		frames = append(frames, f)
	}
	out := s.run(frames)
	id := out[0][0].TrackID
	for i := 10; i < 18; i++ {
		tr := tracked(t, fmt.Sprintf("frame %d", i), out[i])
		r, ok := tr[id]
		if i < 15 && (!ok || r.State != "predicted" || r.Type != "bird") {
			t.Fatalf("frame %d (lost %d): %+v, want the track predicted", i, i-9, out[i])
		}
		if i >= 15 && len(out[i]) != 0 {
			t.Fatalf("frame %d (lost %d > max-lost 5): %+v, want no region", i, i-9, out[i])
		}
	}
	msgs := s.messages(false)
	want := ended{ID: id, FirstPTS: pts(0), LastPTS: pts(9), FramesSeen: 10, X: 200, Y: 120, W: 50, H: 90, Label: "bird", HasLabel: true, ClassID: 7}
	if len(msgs) != 1 || msgs[0] != want {
		t.Fatalf("messages %+v, want %+v", msgs, want)
	}
	if st := s.stats(); st.TracksStarted != 1 || st.TracksEnded != 1 || st.TracksAlive != 0 || st.PredictedRegions != 5 {
		t.Errorf("stats %+v", st)
	}
}

// A flushing seek ends every track (posting their messages) and the
// tracks after it get new ids — never the old ones — at once.
func TestTensorTrackFlushingSeekResets(t *testing.T) {
	// A seekable appsrc: a seek flushes downstream, and the application
	// (here, the test) pushes the frames from the new position.
	s := newSession(t, "post-messages=true", "stream-type=seekable", func(s *session) {
		s.src.SetCallbacks(&app.SourceCallbacks{SeekDataFunc: func(*app.Source, uint64) bool { return true }})
	})
	two := func(i int) tframe {
		return tframe{dets: []obj{{x: uint(100 + i), y: 50, w: 40, h: 40, label: "a", conf: 0.9}, {x: uint(400 - i), y: 300, w: 40, h: 40, label: "b", conf: 0.9}}}
	}
	var before []tframe
	for i := range 6 {
		before = append(before, two(i))
	}
	old := tracked(t, "before the seek", s.run(before)[5])
	if len(old) != 2 {
		t.Fatalf("%d tracks before the seek", len(old))
	}
	if !s.p.SeekSimple(int64(0), gst.FormatTime, gst.SeekFlagFlush) {
		t.Fatal("seek refused")
	}
	msgs := waitMessages(t, s, 2)
	for _, m := range msgs {
		if _, ok := old[m.ID]; !ok || m.FramesSeen != 6 {
			t.Errorf("ended %+v: not one of the tracks before the seek (%v), or not seen 6 times", m, old)
		}
	}
	s.n = 0
	out := s.run([]tframe{two(0), two(1)})
	for i, rs := range out {
		tr := tracked(t, fmt.Sprintf("after the seek, frame %d", i), rs)
		if len(tr) != 2 {
			t.Fatalf("after the seek, frame %d: %+v, want both objects tracked at once", i, rs)
		}
		for id := range tr {
			if _, reused := old[id]; reused || id <= maxID(old) {
				t.Fatalf("after the seek: id %d (before: %v)", id, old)
			}
		}
	}
	if st := s.stats(); st.TracksStarted != 4 || st.TracksEnded != 2 || st.TracksAlive != 2 {
		t.Errorf("stats %+v: want 4 started, 2 ended, 2 alive", st)
	}
}

func maxID(m map[uint64]tracktest.Region) uint64 {
	var top uint64
	for id := range m {
		top = max(top, id)
	}
	return top
}

// waitMessages pops tensortrack-ended messages until it has n (10 s at
// most).
func waitMessages(t *testing.T, s *session, n int) []ended {
	t.Helper()
	var out []ended
	deadline := time.Now().Add(10 * time.Second)
	for len(out) < n && time.Now().Before(deadline) {
		out = append(out, s.messages(false)...)
		time.Sleep(5 * time.Millisecond)
	}
	if len(out) != n {
		t.Fatalf("%d tensortrack-ended messages, want %d: %+v", len(out), n, out)
	}
	return out
}

// At EOS every track ends, each with its message, all on the bus before
// the pipeline's EOS; without post-messages they end all the same
// (counted), silently on the bus.
func TestTensorTrackEOSEndsEveryTrack(t *testing.T) {
	for _, post := range []bool{true, false} {
		t.Run(fmt.Sprintf("post-messages=%v", post), func(t *testing.T) {
			s := newSession(t, fmt.Sprintf("post-messages=%v", post), "")
			var frames []tframe
			for i := range 4 {
				f := tframe{}
				for k := range 3 {
					f.dets = append(f.dets, obj{x: uint(50 + 150*k + i), y: 60, w: 30, h: 30, class: k, conf: 0.8})
				}
				frames = append(frames, f)
			}
			live := tracked(t, "last frame", s.run(frames)[3])
			s.src.EndStream()
			msgs := s.messages(true)
			if !post {
				if len(msgs) != 0 {
					t.Fatalf("messages without post-messages: %+v", msgs)
				}
			} else {
				if len(msgs) != 3 {
					t.Fatalf("%d messages before EOS, want 3: %+v", len(msgs), msgs)
				}
				for _, m := range msgs {
					r, ok := live[m.ID]
					if !ok || m.LastPTS != pts(3) || m.FramesSeen != 4 || m.X != r.X || m.HasLabel || m.ClassID != r.ClassID {
						t.Errorf("ended %+v: want one of %+v, last seen at frame 3, no label", m, live)
					}
				}
			}
			if st := s.stats(); st.TracksEnded != 3 || st.TracksAlive != 0 {
				t.Errorf("stats %+v after EOS: want 3 ended, none alive", st)
			}
		})
	}
}

// Regions without a detection structure (a face detector's, a
// classifier's whole-frame result) are left as they are — type, box, no
// tracking structure — but for their id when a track took it: ids stay
// unique in the buffer, and a parent id follows its parent's new id.
func TestTensorTrackRegionsWithoutDetectionLeftAlone(t *testing.T) {
	s := newSession(t, "", "")
	var frames []tframe
	for i := range 4 {
		frames = append(frames, tframe{
			dets: []obj{{x: uint(300 + i), y: 200, w: 60, h: 120, label: "person", conf: 0.9}},
			plain: []plain{
				// id 1: the id the first track gets.
				{typ: "face", x: 10, y: 20, w: 30, h: 40, id: 1, parent: -1},
				// a child of the detection (id 0 before the tracker).
				{typ: "hat", x: 310, y: 190, w: 40, h: 20, id: 5, childOf: 1},
			}})
	}
	out := s.run(frames)
	for i, rs := range out {
		tr := tracked(t, fmt.Sprintf("frame %d", i), rs) // ids unique
		if len(rs) != 3 || len(tr) != 1 {
			t.Fatalf("frame %d: %+v", i, rs)
		}
		var person tracktest.Region
		for _, r := range tr {
			person = r
		}
		face, hat := rs[1], rs[2]
		if face.Type != "face" || face.X != 10 || face.Y != 20 || face.W != 30 || face.H != 40 || face.HasTracking || face.HasDetection {
			t.Errorf("frame %d: face %+v changed", i, face)
		}
		if face.ID != 6 {
			t.Errorf("frame %d: face id %d, want 6 (its 1 is the person's track's now: a new id above the buffer's 5)", i, face.ID)
		}
		if hat.Type != "hat" || hat.ID != 5 || hat.ParentID != person.ID || hat.HasTracking {
			t.Errorf("frame %d: hat %+v: want id 5, parent the person's region (%d)", i, hat, person.ID)
		}
	}
}

// A producer that numbers nothing (GStreamer's default: every region id
// 0, parent id 0, as facedetect leaves them) gets no invented relation:
// a parent id that named several regions stays as it was.
func TestTensorTrackAmbiguousParentsLeftAlone(t *testing.T) {
	s := newSession(t, "", "")
	var frames []tframe
	for i := range 3 {
		frames = append(frames, tframe{
			dets:  []obj{{x: uint(300 + i), y: 200, w: 60, h: 120, label: "person", conf: 0.9}},
			plain: []plain{{typ: "face", x: 10, y: 20, w: 30, h: 40}, {typ: "eye", x: 12, y: 24, w: 5, h: 5}},
		})
	}
	for i, rs := range s.run(frames) {
		if len(rs) != 3 || !rs[0].HasTracking || rs[0].ID != int(rs[0].TrackID) {
			t.Fatalf("frame %d: %+v", i, rs)
		}
		for _, r := range rs[1:] {
			if r.ID != 0 || r.ParentID != 0 || r.HasTracking {
				t.Errorf("frame %d: %+v changed: want id 0, parent 0 as it came", i, r)
			}
		}
	}
}

// NULL → PLAYING → NULL, three times, frames each time (the leaks
// tracer of TestMain checks nothing is left behind); ids go on from one
// run to the next.
func TestTensorTrackStateCycles(t *testing.T) {
	p, err := gst.NewPipelineFromString("appsrc name=src format=time ! tensortrack name=tr ! appsink name=sink sync=false wait-on-eos=false")
	if err != nil {
		t.Fatal(err)
	}
	defer p.SetState(gst.StateNull)
	get := func(name string) *gst.Element {
		e, err := p.GetElementByName(name)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	s := &session{t: t, p: p, src: app.SrcFromElement(get("src")), sink: app.SinkFromElement(get("sink")), el: get("tr")}
	c := gst.NewCapsFromString(videoCaps)
	s.src.SetCaps(c)
	gstglue.ReleaseCaps(c)
	seen := map[uint64]bool{}
	for cycle := range 3 {
		if err := p.SetState(gst.StatePlaying); err != nil {
			t.Fatal(err)
		}
		s.n = 0
		out := s.run([]tframe{{dets: []obj{{x: 10, y: 10, w: 20, h: 20, conf: 0.9}}}, {dets: []obj{{x: 12, y: 10, w: 20, h: 20, conf: 0.9}}}})
		for id := range tracked(t, "cycle", out[1]) {
			if seen[id] {
				t.Fatalf("cycle %d: id %d again", cycle, id)
			}
			seen[id] = true
		}
		if err := p.SetState(gst.StateNull); err != nil {
			t.Fatal(err)
		}
		if st, _ := gstglue.GetStructureProperty(s.el, "stats"); st == nil {
			t.Fatal("no stats")
		}
	}
	if len(seen) != 3 {
		t.Fatalf("%d ids over 3 runs", len(seen))
	}
}

// Thresholds the tracker cannot take (low-threshold above
// high-threshold) refuse the state change with a settings error naming
// them.
func TestTensorTrackBadThresholds(t *testing.T) {
	p, err := gst.NewPipelineFromString("fakesrc num-buffers=1 ! tensortrack low-threshold=0.8 high-threshold=0.4 ! fakesink")
	if err != nil {
		t.Fatal(err)
	}
	defer p.SetState(gst.StateNull)
	p.SetState(gst.StatePlaying)
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(5*time.Second), gst.MessageError)
	if msg == nil {
		t.Fatal("no error")
	}
	ge, _ := gstglue.ParseErrorMessage(msg)
	if ge.Domain != gstglue.DomainResource || ge.Code != int(gstglue.ResourceSettings) || !strings.Contains(ge.Message, "LowThreshold 0.8 is above HighThreshold 0.4") {
		t.Errorf("error %+v", ge)
	}
}
