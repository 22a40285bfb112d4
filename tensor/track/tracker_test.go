package track_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/track"
)

func det(x, y, w, h float64, class int, conf float64) track.Detection {
	return track.Detection{Box: track.Box{X: x, Y: y, W: w, H: h}, Class: class, Label: uint32(class + 1), Confidence: conf}
}

func newTracker(t testing.TB, mod func(*track.Config)) *track.Tracker {
	t.Helper()
	cfg := track.DefaultConfig()
	if mod != nil {
		mod(&cfg)
	}
	tr, err := track.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// byID returns the track of id in r, or false.
func byID(r *track.Result, id uint64) (track.Track, bool) {
	for _, x := range r.Tracks {
		if x.ID == id {
			return x, true
		}
	}
	return track.Track{}, false
}

// trackOf returns the reported track that matched detection i on this
// frame, or false.
func trackOf(r *track.Result, i int) (track.Track, bool) {
	for _, x := range r.Tracks {
		if x.Detection == i {
			return x, true
		}
	}
	return track.Track{}, false
}

// Two objects of one class walk head-on along one lane and pass over
// each other; the one behind is not detected while it is mostly hidden
// (frames 18–27), and the detector runs on every 3rd frame only. Each
// keeps its id from start to end, and the hidden one is predicted across
// the gap, overlapping its true box.
func TestIDsStableThroughCrossing(t *testing.T) {
	tr := newTracker(t, nil)
	var r track.Result
	var idA, idB uint64
	truth := func(f int) (a, b track.Box) {
		return track.Box{X: 100 + 5*float64(f), Y: 200, W: 40, H: 80}, track.Box{X: 340 - 5*float64(f), Y: 206, W: 40, H: 80}
	}
	for f := range 60 {
		a, b := truth(f)
		fr := track.Frame{PTS: uint64(f), Detected: f%3 == 0}
		if fr.Detected {
			fr.Detections = append(fr.Detections, det(a.X, a.Y, a.W, a.H, 0, 0.9))
			if f < 18 || f > 27 { // B is behind A
				fr.Detections = append(fr.Detections, det(b.X, b.Y, b.W, b.H, 0, 0.8))
			}
		}
		tr.Update(fr, &r)
		if f == 0 {
			ta, _ := trackOf(&r, 0)
			tb, _ := trackOf(&r, 1)
			idA, idB = ta.ID, tb.ID
			if idA == 0 || idB == 0 || idA == idB {
				t.Fatalf("frame 0: ids %d, %d", idA, idB)
			}
			continue
		}
		if len(r.Tracks) != 2 || len(r.Ended) != 0 {
			t.Fatalf("frame %d: %d tracks, %d ended: %+v", f, len(r.Tracks), len(r.Ended), r.Tracks)
		}
		ta, okA := byID(&r, idA)
		tb, okB := byID(&r, idB)
		if !okA || !okB {
			t.Fatalf("frame %d: tracks %+v, want ids %d and %d", f, r.Tracks, idA, idB)
		}
		if v := track.IoU(ta.Box, a); v < 0.5 {
			t.Errorf("frame %d: track %d at %+v, its object at %+v (IoU %.2f)", f, idA, ta.Box, a, v)
		}
		if v := track.IoU(tb.Box, b); v < 0.5 {
			t.Errorf("frame %d: track %d at %+v, its object at %+v (IoU %.2f)", f, idB, tb.Box, b, v)
		}
	}
}

// An object missed for 24 frames (8 detector runs) comes back where it
// was going: same id, the gap predicted. Missed longer than MaxLost, its
// track ends (reported once in Ended) and it comes back with a new id.
func TestIDsStableThroughGaps(t *testing.T) {
	for _, tc := range []struct {
		gap     int
		sameID  bool
		maxLost int
	}{{24, true, 30}, {45, false, 30}} {
		tr := newTracker(t, func(c *track.Config) { c.MaxLost = tc.maxLost })
		var r track.Result
		var first uint64
		ended := 0
		for f := range 120 {
			x := 50 + 3*float64(f)
			fr := track.Frame{PTS: uint64(f), Detected: f%3 == 0}
			hidden := f >= 30 && f < 30+tc.gap
			if fr.Detected && !hidden {
				fr.Detections = []track.Detection{det(x, 100, 50, 50, 2, 0.9)}
			}
			tr.Update(fr, &r)
			ended += len(r.Ended)
			if f == 0 {
				first = r.Tracks[0].ID
			}
			if hidden && f < 30+tc.maxLost && f%3 == 0 {
				p, ok := byID(&r, first)
				if !ok || p.State != track.Predicted || p.Lost != f-27 {
					t.Fatalf("gap %d, frame %d: track %+v (%v), want predicted, lost %d", tc.gap, f, p, ok, f-27)
				}
				if v := track.IoU(p.Box, det(x, 100, 50, 50, 2, 1).Box); v < 0.7 {
					t.Errorf("gap %d, frame %d: predicted %+v, object at x=%v (IoU %.2f)", tc.gap, f, p.Box, x, v)
				}
			}
		}
		if len(r.Tracks) != 1 {
			t.Fatalf("gap %d: %d tracks at the end", tc.gap, len(r.Tracks))
		}
		got := r.Tracks[0].ID
		switch {
		case tc.sameID && (got != first || ended != 0):
			t.Errorf("gap %d: id %d at the end, %d at the start, %d ended: want the same id, none ended", tc.gap, got, first, ended)
		case !tc.sameID && (got == first || ended != 1):
			t.Errorf("gap %d (> max-lost %d): id %d at the end, %d at the start, %d ended: want a new id, one ended", tc.gap, tc.maxLost, got, first, ended)
		}
	}
}

// Ids are never given twice: tracks start and end all the time, and
// Reset ends them all; every id ever reported is new when first seen,
// and ids only grow.
func TestNewIDsNeverReuseOld(t *testing.T) {
	tr := newTracker(t, func(c *track.Config) { c.MaxLost = 4 })
	rng := rand.New(rand.NewPCG(1, 2))
	var r track.Result
	seen := map[uint64]bool{}
	live := map[uint64]bool{}
	var last uint64
	present := make([]bool, 6)
	for f := range 2000 {
		if f%250 == 249 {
			tr.Reset(&r)
			if len(r.Ended) != len(live) {
				t.Fatalf("Reset at frame %d ended %d tracks, %d were live", f, len(r.Ended), len(live))
			}
			clear(live)
			continue
		}
		fr := track.Frame{PTS: uint64(f), Detected: true}
		for k := range present {
			if rng.IntN(10) == 0 { // objects come and go
				present[k] = !present[k]
			}
			if present[k] {
				fr.Detections = append(fr.Detections, det(float64(k)*150+rng.Float64()*4, 100, 60, 60, 0, 0.9))
			}
		}
		tr.Update(fr, &r)
		for _, e := range r.Ended {
			if !live[e.ID] {
				t.Fatalf("frame %d: ended %d, not live", f, e.ID)
			}
			delete(live, e.ID)
		}
		for _, x := range r.Tracks {
			if !live[x.ID] {
				if seen[x.ID] || x.ID <= last {
					t.Fatalf("frame %d: id %d reused (last new id %d)", f, x.ID, last)
				}
				seen[x.ID], live[x.ID], last = true, true, x.ID
			}
		}
	}
	if len(seen) < 100 {
		t.Fatalf("only %d tracks in the run", len(seen))
	}
	if tr.NextID() != last+1 {
		t.Errorf("NextID %d after last id %d", tr.NextID(), last)
	}
}

// With the detector every 3rd frame, the frames between show each track
// predicted (State Predicted, no detection) at its constant-velocity
// place: within a pixel of the truth once the motion is learnt.
func TestPredictedBoxesOnSkippedFrames(t *testing.T) {
	tr := newTracker(t, nil)
	var r track.Result
	truth := func(f int) track.Box { return track.Box{X: 10 + 4*float64(f), Y: 300 - 2*float64(f), W: 64, H: 48} }
	for f := range 90 {
		b := truth(f)
		fr := track.Frame{PTS: uint64(f) * 1000, Detected: f%3 == 0}
		if fr.Detected {
			fr.Detections = []track.Detection{{Box: b, Class: 1, Confidence: 0.8}}
		}
		tr.Update(fr, &r)
		if len(r.Tracks) != 1 {
			t.Fatalf("frame %d: %d tracks", f, len(r.Tracks))
		}
		x := r.Tracks[0]
		if fr.Detected {
			if x.State != track.Tracked || x.Detection != 0 || x.Box != b || x.Lost != 0 || x.LastPTS != uint64(f)*1000 {
				t.Fatalf("frame %d (detector): %+v", f, x)
			}
			continue
		}
		if x.State != track.Predicted || x.Detection != -1 || x.Lost != f%3 || x.Last != truth(f-f%3) {
			t.Fatalf("frame %d (skipped): %+v", f, x)
		}
		if f > 30 {
			if d := math.Max(math.Abs(x.Box.X-b.X), math.Abs(x.Box.Y-b.Y)); d > 1 || math.Abs(x.Box.W-b.W) > 1 {
				t.Errorf("frame %d: predicted %+v, truth %+v", f, x.Box, b)
			}
		}
		if x.Age != uint64(f) || x.FramesSeen != uint64(f/3+1) || x.FirstPTS != 0 {
			t.Errorf("frame %d: age %d, seen %d, first pts %d", f, x.Age, x.FramesSeen, x.FirstPTS)
		}
	}
}

// Class-aware: a detection of another class where a track is does not
// continue it (the track is predicted, the detection waits to start its
// own); class-agnostic: it does, and the track takes its class.
func TestClassAwareMatching(t *testing.T) {
	for _, agnostic := range []bool{false, true} {
		tr := newTracker(t, func(c *track.Config) { c.ClassAgnostic = agnostic })
		var r track.Result
		tr.Update(track.Frame{Detected: true, Detections: []track.Detection{det(100, 100, 50, 50, 0, 0.9)}}, &r)
		id := r.Tracks[0].ID
		for f := 1; f <= 6; f++ {
			tr.Update(track.Frame{PTS: uint64(f), Detected: true, Detections: []track.Detection{det(100+float64(f), 100, 50, 50, 1, 0.9)}}, &r)
			x, ok := byID(&r, id)
			if !ok {
				t.Fatalf("agnostic %v, frame %d: track %d gone", agnostic, f, id)
			}
			if agnostic {
				if x.State != track.Tracked || x.Class != 1 || x.Label != 2 || len(r.Tracks) != 1 {
					t.Fatalf("class-agnostic, frame %d: %+v (of %d tracks), want the class-0 track to continue as class 1", f, x, len(r.Tracks))
				}
				continue
			}
			if x.State != track.Predicted || x.Class != 0 {
				t.Fatalf("class-aware, frame %d: %+v: a class-1 detection continued a class-0 track", f, x)
			}
			other, ok := trackOf(&r, 0)
			if f == 1 && ok {
				t.Fatalf("class-aware, frame 1: the new object was reported at once: %+v", other)
			}
			if f >= 2 && (!ok || other.Class != 1 || other.ID == id) {
				t.Fatalf("class-aware, frame %d: the class-1 object is %+v (%v), want a track of its own", f, other, ok)
			}
		}
	}
}

// A track survives MaxLost frames without a detection (detector runs or
// not) and ends on the next one, reported once in Ended as it last was.
func TestMaxLost(t *testing.T) {
	const maxLost = 7
	tr := newTracker(t, func(c *track.Config) { c.MaxLost = maxLost })
	var r track.Result
	d := det(10, 20, 30, 40, 3, 0.7)
	tr.Update(track.Frame{PTS: 5, Detected: true, Detections: []track.Detection{d}}, &r)
	tr.Update(track.Frame{PTS: 6, Detected: true, Detections: []track.Detection{d}}, &r)
	id := r.Tracks[0].ID
	for f := 1; f <= maxLost; f++ {
		tr.Update(track.Frame{PTS: uint64(6 + f), Detected: f%2 == 0}, &r)
		if len(r.Tracks) != 1 || r.Tracks[0].Lost != f || len(r.Ended) != 0 {
			t.Fatalf("%d frames lost: %+v, ended %+v", f, r.Tracks, r.Ended)
		}
	}
	tr.Update(track.Frame{PTS: 100, Detected: true}, &r)
	if len(r.Tracks) != 0 || len(r.Ended) != 1 {
		t.Fatalf("%d frames lost: tracks %+v, ended %+v: want it ended", maxLost+1, r.Tracks, r.Ended)
	}
	e := r.Ended[0]
	if e.ID != id || e.Last != d.Box || e.FirstPTS != 5 || e.LastPTS != 6 || e.FramesSeen != 2 || e.Class != 3 || e.Label != 4 || e.Confidence != 0.7 {
		t.Errorf("ended %+v", e)
	}
	tr.Update(track.Frame{PTS: 101, Detected: true}, &r)
	if len(r.Ended) != 0 || tr.Live() != 0 {
		t.Errorf("ended again: %+v", r.Ended)
	}
}

// Reset ends every reported track (in Ended, none left), drops new ones
// silently, keeps counting ids, and the next detector run reports its
// objects at once as the first one did.
func TestReset(t *testing.T) {
	tr := newTracker(t, nil)
	var r track.Result
	a, b := det(0, 0, 20, 20, 0, 0.9), det(100, 0, 20, 20, 0, 0.9)
	tr.Update(track.Frame{Detected: true, Detections: []track.Detection{a, b}}, &r)
	ids := []uint64{r.Tracks[0].ID, r.Tracks[1].ID}
	// A third object, not yet reported (MinHits 2).
	tr.Update(track.Frame{Detected: true, Detections: []track.Detection{a, b, det(300, 0, 20, 20, 0, 0.9)}}, &r)
	if len(r.Tracks) != 2 {
		t.Fatalf("%d tracks before reset", len(r.Tracks))
	}
	tr.Reset(&r)
	if len(r.Tracks) != 0 || len(r.Ended) != 2 || r.Ended[0].ID != ids[0] || r.Ended[1].ID != ids[1] || tr.Live() != 0 {
		t.Fatalf("Reset: tracks %+v, ended %+v", r.Tracks, r.Ended)
	}
	tr.Update(track.Frame{Detected: true, Detections: []track.Detection{a}}, &r)
	if len(r.Tracks) != 1 || r.Tracks[0].ID != ids[1]+1 || r.Tracks[0].Age != 0 {
		t.Fatalf("after reset: %+v, want one new track, id %d", r.Tracks, ids[1]+1)
	}
	tr.Reset(&r)
	tr.Reset(&r)
	if len(r.Ended) != 0 {
		t.Errorf("a second Reset ended %+v", r.Ended)
	}
}

// A confident detection seen once (a false box) is never reported; one
// seen on two detector runs in a row is, from the second; the first run
// after New reports at once. Low-confidence detections continue tracks
// but start none; those below the low threshold are ignored.
func TestConfirmationAndConfidence(t *testing.T) {
	tr := newTracker(t, nil)
	var r track.Result
	tr.Update(track.Frame{Detected: true, Detections: []track.Detection{det(0, 0, 40, 40, 0, 0.9)}}, &r)
	if len(r.Tracks) != 1 {
		t.Fatalf("first run: %d tracks", len(r.Tracks))
	}
	run := func(ds ...track.Detection) {
		tr.Update(track.Frame{Detected: false}, &r)
		tr.Update(track.Frame{Detected: false}, &r)
		tr.Update(track.Frame{Detected: true, Detections: ds}, &r)
	}
	keep := det(0, 0, 40, 40, 0, 0.9)
	run(keep, det(500, 500, 40, 40, 0, 0.9)) // a false box, once
	if len(r.Tracks) != 1 {
		t.Fatalf("a box seen once was reported: %+v", r.Tracks)
	}
	run(keep)
	run(keep, det(200, 200, 40, 40, 0, 0.9))
	if _, ok := trackOf(&r, 1); ok {
		t.Fatal("a new object was reported on its first run")
	}
	run(keep, det(201, 200, 40, 40, 0, 0.9))
	nt, ok := trackOf(&r, 1)
	if !ok || nt.FramesSeen != 2 || nt.Age != 3 {
		t.Fatalf("an object seen twice is %+v (%v)", nt, ok)
	}
	run(keep, det(202, 200, 40, 40, 0, 0.3)) // low: continues it
	if x, ok := trackOf(&r, 1); !ok || x.ID != nt.ID || x.Confidence != 0.3 {
		t.Fatalf("a low-confidence detection did not continue its track: %+v", r.Tracks)
	}
	for range 3 {
		run(keep, det(600, 100, 40, 40, 0, 0.3)) // low: starts nothing
	}
	if _, ok := trackOf(&r, 1); ok || len(r.Tracks) != 2 {
		t.Fatalf("low-confidence detections started a track: %+v", r.Tracks)
	}
	run(keep, det(203, 200, 40, 40, 0, 0.05)) // below low: ignored
	if x, _ := byID(&r, nt.ID); x.State != track.Predicted {
		t.Fatalf("a detection below the low threshold continued a track: %+v", x)
	}
}

// A Config out of range is an error wrapping ErrConfig, naming the
// value.
func TestConfigErrors(t *testing.T) {
	for _, mod := range []func(*track.Config){
		func(c *track.Config) { c.MaxLost = -1 },
		func(c *track.Config) { c.IoUThreshold = math.NaN() },
		func(c *track.Config) { c.IoUThreshold = 1.5 },
		func(c *track.Config) { c.DistanceGate = -1 },
		func(c *track.Config) { c.LowThreshold = 0.9 },
		func(c *track.Config) { c.HighThreshold = math.Inf(1) },
		func(c *track.Config) { c.MinHits = 0 },
		func(c *track.Config) { c.MaxTracks = 0 },
		func(c *track.Config) { c.MaxDetections = -3 },
	} {
		cfg := track.DefaultConfig()
		mod(&cfg)
		if _, err := track.New(cfg); !errors.Is(err, track.ErrConfig) {
			t.Errorf("%+v: error %v, want ErrConfig", cfg, err)
		}
	}
	if _, err := track.New(track.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
}

// Boxes that are not boxes (not finite, not of positive size, beyond
// MaxCoord) and confidences that are not numbers are rejected and
// counted; beyond MaxDetections the most confident are kept.
func TestRejectedDetections(t *testing.T) {
	tr := newTracker(t, func(c *track.Config) { c.MaxDetections = 3 })
	var r track.Result
	nan, inf := math.NaN(), math.Inf(1)
	ds := []track.Detection{
		det(nan, 0, 10, 10, 0, 0.9), det(0, inf, 10, 10, 0, 0.9), det(0, 0, -5, 10, 0, 0.9), det(0, 0, 10, 0, 0, 0.9),
		det(0, 0, 1e30, 10, 0, 0.9), det(0, 0, 10, 10, 0, nan),
		det(0, 0, 10, 10, 0, 0.6), det(100, 0, 10, 10, 0, 0.95), det(200, 0, 10, 10, 0, 0.7), det(300, 0, 10, 10, 0, 0.8),
	}
	tr.Update(track.Frame{Detected: true, Detections: ds}, &r)
	if r.Rejected != 7 || len(r.Tracks) != 3 {
		t.Fatalf("rejected %d, %d tracks: want 7 rejected (6 invalid, 1 over the cap), 3 tracks", r.Rejected, len(r.Tracks))
	}
	for _, x := range r.Tracks {
		if x.Detection < 7 {
			t.Errorf("track of detection %d: the least confident or an invalid one was kept", x.Detection)
		}
	}
}

func TestLabels(t *testing.T) {
	var l track.Labels
	if l.Key("") != 0 || l.Name(0) != "" || l.Name(7) != "" {
		t.Fatal("empty label")
	}
	a, b := l.Key("person"), l.Key("car")
	if a == 0 || b == 0 || a == b || l.Key("person") != a || l.Name(a) != "person" || l.Name(b) != "car" {
		t.Fatalf("keys %d %d, names %q %q", a, b, l.Name(a), l.Name(b))
	}
	if n := testing.AllocsPerRun(100, func() { l.Key("person") }); n != 0 {
		t.Errorf("Key of a known label: %v allocations", n)
	}
}

// The solver's assignment has the least total cost: brute force over
// every injection of rows into columns agrees, on random matrices up to
// 5×7 (with ties and negative costs).
func TestAssignmentIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 3000 {
		n := 1 + rng.IntN(5)
		m := n + rng.IntN(3)
		cost := make([]float64, n*m)
		for i := range cost {
			cost[i] = float64(rng.IntN(9) - 6)
			if trial%2 == 0 {
				cost[i] = rng.Float64()*10 - 8
			}
		}
		rowTo := track.SolveAssignment(cost, n, m)
		used := map[int]bool{}
		got := 0.0
		for i, j := range rowTo {
			if j < 0 || j >= m || used[j] {
				t.Fatalf("%d×%d: row %d → column %d (%v)", n, m, i, j, rowTo)
			}
			used[j] = true
			got += cost[i*m+j]
		}
		if best := bruteForce(cost, n, m, 0, make([]bool, m)); got > best+1e-9 {
			t.Fatalf("%d×%d %v: cost %v, the best is %v", n, m, cost, got, best)
		}
	}
}

func bruteForce(cost []float64, n, m, row int, used []bool) float64 {
	if row == n {
		return 0
	}
	best := math.Inf(1)
	for j := range m {
		if !used[j] {
			used[j] = true
			best = math.Min(best, cost[row*m+j]+bruteForce(cost, n, m, row+1, used))
			used[j] = false
		}
	}
	return best
}
