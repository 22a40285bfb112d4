package track_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/track"
)

// scene is n objects on orbits whose period divides frames, so the
// detections of frame f and f+frames are the same objects in the same
// places: a benchmark or an allocation count can run any number of
// frames without tracks ending or starting at a seam.
func scene(n, frames int, seed uint64) [][]track.Detection {
	rng := rand.New(rand.NewPCG(seed, 7))
	type orb struct{ cx, cy, r, w, ph, size float64 }
	os := make([]orb, n)
	for i := range os {
		laps := float64(1 + rng.IntN(3))
		if rng.IntN(2) == 0 {
			laps = -laps
		}
		os[i] = orb{cx: 200 + rng.Float64()*880, cy: 150 + rng.Float64()*420, r: 40 + rng.Float64()*100,
			w: 2 * math.Pi * laps / float64(frames), ph: rng.Float64() * 6.3, size: 30 + rng.Float64()*40}
	}
	out := make([][]track.Detection, frames)
	for f := range out {
		for i, o := range os {
			a := o.w*float64(f) + o.ph
			x := o.cx + o.r*math.Cos(a) + rng.NormFloat64()
			y := o.cy + o.r*math.Sin(a) + rng.NormFloat64()
			out[f] = append(out[f], track.Detection{Box: track.Box{X: x - o.size/2, Y: y - o.size/2, W: o.size, H: o.size},
				Class: i % 3, Label: uint32(i%3 + 1), Confidence: 0.6 + 0.3*rng.Float64()})
		}
	}
	return out
}

// A frame allocates nothing in steady state: the tracker's buffers and
// the caller's Result have grown to the stream's frames (20 objects, the
// detector every 3rd frame, and every frame).
func TestSteadyStateAllocatesNothing(t *testing.T) {
	for _, interval := range []int{1, 3} {
		frames := scene(20, 360, 1)
		tr := newTracker(t, nil)
		var r track.Result
		f := 0
		step := func() {
			tr.Update(track.Frame{PTS: uint64(f), Detected: f%interval == 0, Detections: frames[f%len(frames)]}, &r)
			f++
		}
		for range 400 {
			step()
		}
		if len(r.Tracks) != 20 {
			t.Fatalf("interval %d: %d tracks in steady state, want 20", interval, len(r.Tracks))
		}
		if n := testing.AllocsPerRun(1000, step); n != 0 {
			t.Errorf("interval %d: %v allocations a frame, want 0", interval, n)
		}
		r.Tracks = nil
		step() // the caller's storage grows once
		if n := testing.AllocsPerRun(100, step); n != 0 {
			t.Errorf("interval %d, after the Result grew again: %v allocations a frame", interval, n)
		}
	}
}

// Thousands of boxes a frame, all over one another (the worst case for
// the matching), for many frames: the tracker keeps to its bounds
// (MaxDetections taken a frame, MaxTracks alive) and every box it
// reports is finite.
func TestThousandsOfBoxes(t *testing.T) {
	tr := newTracker(t, nil)
	rng := rand.New(rand.NewPCG(8, 9))
	var r track.Result
	ds := make([]track.Detection, 5000)
	for f := range 12 {
		for i := range ds {
			ds[i] = track.Detection{Box: track.Box{X: 100 + rng.Float64()*40, Y: 100 + rng.Float64()*40, W: 50 + rng.Float64()*20, H: 50 + rng.Float64()*20},
				Class: rng.IntN(2), Confidence: rng.Float64()}
		}
		taken := 0 // the detections at or above the low threshold
		for _, d := range ds {
			if d.Confidence >= track.DefaultConfig().LowThreshold {
				taken++
			}
		}
		tr.Update(track.Frame{PTS: uint64(f), Detected: true, Detections: ds}, &r)
		if len(r.Tracks) > 256 || r.Rejected != taken-256 {
			t.Fatalf("frame %d: %d tracks, %d rejected: want at most 256 tracks, %d rejected", f, len(r.Tracks), r.Rejected, taken-256)
		}
		for _, x := range r.Tracks {
			checkBox(t, x.Box)
		}
	}
}

func checkBox(t testing.TB, b track.Box) {
	t.Helper()
	for _, v := range []float64{b.X, b.Y, b.W, b.H} {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > track.MaxCoord {
			t.Fatalf("box %+v: not finite or beyond MaxCoord", b)
		}
	}
	if !(b.W > 0 && b.H > 0) {
		t.Fatalf("box %+v: not of positive size", b)
	}
}

// BenchmarkTrack20 is one frame of 20 objects with the detector's 20
// detections (the heavier frame: prediction, the matching passes, the
// filter updates).
func BenchmarkTrack20(b *testing.B) { benchTrack(b, 20, 1) }

// BenchmarkTrack20Interval3 is the same stream with the detector every
// 3rd frame (tensorinfer interval=3): two frames in three predict only.
func BenchmarkTrack20Interval3(b *testing.B) { benchTrack(b, 20, 3) }

// BenchmarkTrack200 is a crowded frame: 200 objects.
func BenchmarkTrack200(b *testing.B) { benchTrack(b, 200, 1) }

func benchTrack(b *testing.B, n, interval int) {
	frames := scene(n, 360, 2)
	tr := newTracker(b, nil)
	var r track.Result
	f := 0
	for ; f < 400; f++ {
		tr.Update(track.Frame{PTS: uint64(f), Detected: f%interval == 0, Detections: frames[f%len(frames)]}, &r)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		tr.Update(track.Frame{PTS: uint64(f), Detected: f%interval == 0, Detections: frames[f%len(frames)]}, &r)
		f++
	}
	b.StopTimer()
	if len(r.Tracks) != n {
		b.Fatalf("%d tracks, want %d", len(r.Tracks), n)
	}
}
