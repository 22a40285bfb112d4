package track_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/track"
)

// Hand-made cases for the metrics: every number worked out by hand from
// the definitions, so the code that measures the tracker is itself
// proven.

// sq is a 10×10 box at (x, y).
func sq(x, y float64) track.Box { return track.Box{X: x, Y: y, W: 10, H: 10} }

// l is a labelled box.
func l(id uint64, b track.Box) labelled { return labelled{ID: id, Box: b} }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMetricsPerfect(t *testing.T) {
	var gt, hyp [][]labelled
	for f := range 4 {
		x := float64(f)
		gt = append(gt, []labelled{l(1, sq(x, 0)), l(2, sq(50+x, 0))})
		hyp = append(hyp, []labelled{l(20, sq(50+x, 0)), l(10, sq(x, 0))})
	}
	c, id := computeCLEAR(gt, hyp, 0.5), computeIDF1(gt, hyp, 0.5)
	if c != (clearMOT{GT: 8, Hyp: 8, Matches: 8, MOTA: 1}) || id.IDF1 != 1 || id.IDTP != 8 || id.Mapping[1] != 10 || id.Mapping[2] != 20 {
		t.Errorf("perfect: %+v, %+v", c, id)
	}
}

// Two tracks swap objects half way: two switches; IDF1 is 0.5 (each
// ground-truth id is with one track half the time).
func TestMetricsSwap(t *testing.T) {
	var gt, hyp [][]labelled
	for f := range 6 {
		gt = append(gt, []labelled{l(1, sq(0, 0)), l(2, sq(50, 0))})
		if f < 3 {
			hyp = append(hyp, []labelled{l(1, sq(0, 0)), l(2, sq(50, 0))})
		} else {
			hyp = append(hyp, []labelled{l(2, sq(0, 0)), l(1, sq(50, 0))})
		}
	}
	c, id := computeCLEAR(gt, hyp, 0.5), computeIDF1(gt, hyp, 0.5)
	if c.Switches != 2 || c.Matches != 12 || !near(c.MOTA, 1-2.0/12) || id.IDTP != 6 || !near(id.IDF1, 0.5) {
		t.Errorf("swap: %+v, %+v", c, id)
	}
}

// Misses and false positives: a frame without a hypothesis (a miss), one
// too far off (IoU 1/3 < 0.5: a miss and a false positive), and one
// hypothesis on nothing.
func TestMetricsMissesAndFalsePositives(t *testing.T) {
	gt := [][]labelled{{l(1, sq(0, 0))}, {l(1, sq(0, 0))}, {l(1, sq(0, 0))}, {l(1, sq(0, 0))}}
	hyp := [][]labelled{{l(7, sq(0, 0))}, {}, {l(7, sq(5, 0))}, {l(7, sq(0, 0)), l(8, sq(90, 90))}}
	c, id := computeCLEAR(gt, hyp, 0.5), computeIDF1(gt, hyp, 0.5)
	want := clearMOT{GT: 4, Hyp: 4, Matches: 2, Misses: 2, FalsePositives: 2, MOTA: 0}
	if c != want || id.IDTP != 2 || !near(id.IDF1, 0.5) {
		t.Errorf("misses and false positives: %+v (want %+v), %+v", c, want, id)
	}
}

// A correspondence is kept while it is valid, even when another
// hypothesis overlaps the object more (no switch: the better one is a
// false positive); once it is not, the object's new track is a switch —
// and so is a new track after a frame with no match at all.
func TestMetricsCorrespondenceKept(t *testing.T) {
	gt := [][]labelled{{l(1, sq(0, 0))}, {l(1, sq(0, 0))}, {l(1, sq(0, 0))}, {l(1, sq(0, 0))}, {l(1, sq(0, 0))}}
	hyp := [][]labelled{
		{l(1, sq(0, 0))},
		{l(1, sq(2, 0)), l(2, sq(0, 0))}, // 1 still valid (IoU 2/3)
		{l(2, sq(0, 0))},                 // 1 gone: switch to 2
		{},                               // miss
		{l(3, sq(0, 0))},                 // after the gap: switch to 3
	}
	c := computeCLEAR(gt, hyp, 0.5)
	if c.Switches != 2 || c.FalsePositives != 1 || c.Misses != 1 || c.Matches != 4 {
		t.Errorf("kept correspondence: %+v, want 2 switches, 1 false positive, 1 miss, 4 matches", c)
	}
}

// The per-frame matching takes the most pairs first: h1 overlaps A more
// than B, h2 only A; matching h1 with A (the larger IoU) would leave B
// unmatched.
func TestMetricsMostPairs(t *testing.T) {
	gt := [][]labelled{{l(1, sq(0, 0)), l(2, sq(2.5, 0))}}
	hyp := [][]labelled{{l(1, sq(0.5, 0)), l(2, sq(-3, 0))}}
	if c := computeCLEAR(gt, hyp, 0.5); c.Matches != 2 || c.Misses != 0 {
		t.Errorf("most pairs: %+v", c)
	}
}

// IDF1's matching is global: A is with track 1 for 5 frames and with
// track 2 for 4, B with track 1 for 4; the best is A–2 and B–1 (8
// frames), not the greedy A–1 (5).
func TestMetricsIDF1Global(t *testing.T) {
	var gt, hyp [][]labelled
	for f := range 13 {
		switch {
		case f < 5:
			gt, hyp = append(gt, []labelled{l(1, sq(0, 0))}), append(hyp, []labelled{l(1, sq(0, 0))})
		case f < 9:
			gt, hyp = append(gt, []labelled{l(1, sq(0, 0))}), append(hyp, []labelled{l(2, sq(0, 0))})
		default:
			gt, hyp = append(gt, []labelled{l(2, sq(0, 0))}), append(hyp, []labelled{l(1, sq(0, 0))})
		}
	}
	id := computeIDF1(gt, hyp, 0.5)
	if id.IDTP != 8 || !near(id.IDF1, 16.0/26) || id.Mapping[1] != 2 || id.Mapping[2] != 1 {
		t.Errorf("global IDF1: %+v, want IDTP 8, IDF1 16/26, 1→2, 2→1", id)
	}
}

func TestMetricsIoU(t *testing.T) {
	for _, c := range []struct {
		a, b track.Box
		want float64
	}{{sq(0, 0), sq(0, 0), 1}, {sq(0, 0), sq(5, 0), 50.0 / 150}, {sq(0, 0), sq(10, 0), 0}, {sq(0, 0), sq(5, 5), 25.0 / 175},
		{track.Box{W: 10, H: 10}, track.Box{X: 2, Y: 2, W: 4, H: 4}, 16.0 / 100}} {
		if got := iou(c.a, c.b); !near(got, c.want) || !near(iou(c.b, c.a), c.want) {
			t.Errorf("iou(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// maxWeightMatching finds the heaviest matching: brute force over every
// matching of random bipartite graphs (up to 5×5, sparse and dense)
// agrees.
func TestMaxWeightMatchingIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		nl, nr := 1+rng.IntN(5), 1+rng.IntN(5)
		var edges []wedge
		w := make([][]float64, nl)
		for i := range w {
			w[i] = make([]float64, nr)
			for j := range w[i] {
				if rng.IntN(3) > 0 {
					w[i][j] = float64(1 + rng.IntN(6))
					edges = append(edges, wedge{i, j, w[i][j]})
				}
			}
		}
		m := maxWeightMatching(nl, nr, edges)
		got, used := 0.0, map[int]bool{}
		for i, j := range m {
			if j < 0 {
				continue
			}
			if used[j] || w[i][j] == 0 {
				t.Fatalf("%v: not a matching of the edges: %v", w, m)
			}
			used[j] = true
			got += w[i][j]
		}
		if best := bestMatching(w, 0, make([]bool, nr)); got != best {
			t.Fatalf("%v: matching %v weighs %v, the best %v", w, m, got, best)
		}
	}
}

func bestMatching(w [][]float64, i int, used []bool) float64 {
	if i == len(w) {
		return 0
	}
	best := bestMatching(w, i+1, used) // i unmatched
	for j := range used {
		if !used[j] && w[i][j] > 0 {
			used[j] = true
			best = math.Max(best, w[i][j]+bestMatching(w, i+1, used))
			used[j] = false
		}
	}
	return best
}
