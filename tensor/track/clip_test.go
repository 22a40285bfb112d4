package track_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/track"
)

// The measured test: a generated clip, the tracker and upstream's greedy
// rule run over it, and the standard metrics computed on both.

const (
	clipW, clipH  = 1280, 720
	clipFrames    = 600
	clipInterval  = 3   // the detector runs on every 3rd frame
	clipMissRate  = 0.1 // detections missed at random
	clipJitter    = 0.03
	clipSeed      = 20250611
	matchIoU      = 0.5 // the metrics' overlap for a match
	greedyIoU     = 0.5 // ioutracker's default iou-score-threshold
	greedyMaxLost = 5   // ioutracker's default min-frame-count-for-lost-track
)

// mover is one object of the clip: its class, size, depth (nearer hides
// farther), the frames it exists on, and its centre on frame t.
type mover struct {
	class      int
	w, h       float64
	depth      float64
	start, end int // [start, end)
	centre     func(t float64) (float64, float64)
	kind       string
}

// clip is the generated sequence: per frame, the true boxes (clipped to
// the frame, the objects entirely outside left out) and, on the
// detector's frames, its detections.
type clip struct {
	movers   []mover
	truth    [][]labelled
	detected []bool
	dets     [][]track.Detection
	// detIDs is, per detection, the object it was made from (0: clutter).
	detIDs [][]uint64
}

// clipTo is b clipped to the frame, and whether anything is left.
func clipTo(b track.Box) (track.Box, bool) {
	x0, y0 := math.Max(b.X, 0), math.Max(b.Y, 0)
	x1, y1 := math.Min(b.X+b.W, clipW), math.Min(b.Y+b.H, clipH)
	if !(x1-x0 >= 1 && y1-y0 >= 1) {
		return track.Box{}, false
	}
	return track.Box{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}, true
}

// straight moves from (x0, y0) at (vx, vy) pixels a frame from frame t0.
func straight(x0, y0, vx, vy, t0 float64) func(float64) (float64, float64) {
	return func(t float64) (float64, float64) { return x0 + vx*(t-t0), y0 + vy*(t-t0) }
}

// orbit goes round (cx, cy) with radii rx, ry at w radians a frame.
func orbit(cx, cy, rx, ry, w, phase float64) func(float64) (float64, float64) {
	return func(t float64) (float64, float64) {
		return cx + rx*math.Cos(w*t+phase), cy + ry*math.Sin(w*t+phase)
	}
}

// arc is a straight mover whose heading turns at w radians a frame: a
// curve of radius speed/w.
func arc(x0, y0, speed, heading, w float64) func(float64) (float64, float64) {
	return func(t float64) (float64, float64) {
		if w == 0 {
			return x0 + speed*t*math.Cos(heading), y0 + speed*t*math.Sin(heading)
		}
		r := speed / w
		return x0 + r*(math.Sin(heading+w*t)-math.Sin(heading)), y0 - r*(math.Cos(heading+w*t)-math.Cos(heading))
	}
}

// newClip generates the clip: 20 objects of 3 classes over 600 frames —
// pairs of the same class meeting head-on in a lane (their boxes pass
// over each other), pairs crossing at an angle (same class and
// different class), objects on orbits and curves that cross one
// another, straight movers entering and leaving through the frame's
// edges — at 2 to 6 pixels a frame; the detector runs on every 3rd
// frame, misses 10 % of the objects at random and every object less
// than 35 % visible (hidden by nearer ones), scores those less than 70
// % visible low (ByteTrack's case), jitters every box, and adds a few
// false boxes (mostly low-scoring).
func newClip(seed uint64) *clip {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	person := func() (float64, float64) { return 34 + rng.Float64()*10, 76 + rng.Float64()*16 }
	car := func() (float64, float64) { return 90 + rng.Float64()*20, 44 + rng.Float64()*10 }
	ball := func() (float64, float64) { s := 50 + rng.Float64()*14; return s, s }
	size := []func() (float64, float64){person, car, ball}
	var ms []mover
	add := func(class, start, end int, kind string, c func(float64) (float64, float64)) {
		w, h := size[class]()
		ms = append(ms, mover{class: class, w: w, h: h, depth: rng.Float64(), start: start, end: end, centre: c, kind: kind})
	}
	// Head-on, same class, in three lanes: the boxes pass over each other.
	for k, lane := range []struct {
		y, v  float64
		start int
		class int
	}{{130, 4, 0, 0}, {350, 5, 120, 2}, {590, 3, 200, 0}} {
		span := int((clipW + 120) / lane.v)
		end := min(lane.start+span, clipFrames)
		add(lane.class, lane.start, end, fmt.Sprintf("head-on lane %d →", k), straight(-60, lane.y, lane.v, 0, float64(lane.start)))
		add(lane.class, lane.start, end, fmt.Sprintf("head-on lane %d ←", k), straight(clipW+60, lane.y+8, -lane.v, 0, float64(lane.start)))
	}
	// Crossing at an angle: same class (2), then different classes (0, 1).
	add(2, 40, clipFrames, "X same class ↘", straight(100, 240, 3.6, 1.2, 40))
	add(2, 40, clipFrames, "X same class ↙", straight(1160, 240, -3.6, 1.2, 40))
	add(1, 260, clipFrames, "X cross-class ↗", straight(150, 680, 3.8, -2.1, 260))
	add(0, 260, clipFrames, "X cross-class ↖", straight(1130, 680, -3.8, -2.1, 260))
	// Orbits (curved, whole clip), two pairs of them crossing.
	add(0, 0, clipFrames, "orbit A", orbit(420, 360, 200, 150, 0.022, 0))
	add(0, 0, clipFrames, "orbit B (crosses A)", orbit(640, 360, 200, 150, -0.022, 0.4))
	add(1, 0, clipFrames, "orbit C", orbit(900, 300, 180, 120, 0.025, 2))
	add(1, 0, clipFrames, "orbit D (crosses C)", orbit(1000, 420, 160, 140, -0.02, 1))
	add(2, 0, clipFrames, "ellipse E", orbit(640, 200, 300, 60, 0.012, 1.3))
	// Curves: turning while moving.
	add(0, 0, clipFrames, "curve F", arc(200, 500, 2.5, -0.3, 0.006))
	add(1, 100, clipFrames, "curve G", arc(1100, 150, 3, 2.6, -0.005))
	add(2, 300, clipFrames, "curve H", arc(300, 150, 2.2, 0.2, 0.008))
	// Straight, entering and leaving through the edges.
	add(0, 60, clipFrames, "straight I", straight(-40, 250, 5.5, 0.4, 60))
	add(1, 350, clipFrames, "straight J", straight(clipW+50, 480, -6, -0.3, 350))

	c := &clip{movers: ms, truth: make([][]labelled, clipFrames), detected: make([]bool, clipFrames),
		dets: make([][]track.Detection, clipFrames), detIDs: make([][]uint64, clipFrames)}
	full := make([]track.Box, len(ms))
	alive := make([]bool, len(ms))
	for t := range clipFrames {
		for i, m := range ms {
			cx, cy := m.centre(float64(t))
			full[i] = track.Box{X: cx - m.w/2, Y: cy - m.h/2, W: m.w, H: m.h}
			var b track.Box
			b, alive[i] = clipTo(full[i])
			alive[i] = alive[i] && t >= m.start && t < m.end
			if alive[i] {
				c.truth[t] = append(c.truth[t], labelled{ID: uint64(i + 1), Box: b})
			}
		}
		if t%clipInterval != 0 {
			continue
		}
		c.detected[t] = true
		for i, m := range ms {
			if !alive[i] {
				continue
			}
			vis := visibleFraction(i, full, alive, ms)
			in, _ := clipTo(full[i])
			miss := rng.Float64() < clipMissRate
			if vis < 0.35 || in.W*in.H < 0.3*full[i].W*full[i].H || miss {
				continue
			}
			b := full[i]
			b = track.Box{X: b.X + rng.NormFloat64()*clipJitter*b.W, Y: b.Y + rng.NormFloat64()*clipJitter*b.H,
				W: b.W * (1 + rng.NormFloat64()*clipJitter), H: b.H * (1 + rng.NormFloat64()*clipJitter)}
			b, ok := clipTo(b)
			if !ok {
				continue
			}
			conf := 0.55 + 0.4*rng.Float64()
			if vis < 0.7 {
				conf = 0.2 + 0.25*rng.Float64()
			}
			c.dets[t] = append(c.dets[t], track.Detection{Box: b, Class: m.class, Label: uint32(m.class + 1), Confidence: conf})
			c.detIDs[t] = append(c.detIDs[t], uint64(i+1))
		}
		// False boxes: about one low-scoring one every other run, a
		// confident one every 50 runs.
		for k := 0; k < 2; k++ {
			conf := 0.1 + 0.3*rng.Float64()
			if k == 1 {
				conf = 0.5 + 0.2*rng.Float64()
			}
			if p := rng.Float64(); (k == 0 && p < 0.5) || (k == 1 && p < 0.02) {
				cl := rng.IntN(3)
				w, h := size[cl]()
				b, _ := clipTo(track.Box{X: rng.Float64() * (clipW - w), Y: rng.Float64() * (clipH - h), W: w, H: h})
				c.dets[t] = append(c.dets[t], track.Detection{Box: b, Class: cl, Label: uint32(cl + 1), Confidence: conf})
				c.detIDs[t] = append(c.detIDs[t], 0)
			}
		}
	}
	return c
}

// visibleFraction is how much of object i's box inside the frame no
// nearer object covers (the union of the covering parts, sampled on a
// grid).
func visibleFraction(i int, full []track.Box, alive []bool, ms []mover) float64 {
	b := full[i]
	const n = 12
	seen, total := 0, 0
	for gy := range n {
		for gx := range n {
			x, y := b.X+(float64(gx)+0.5)*b.W/n, b.Y+(float64(gy)+0.5)*b.H/n
			if x < 0 || y < 0 || x >= clipW || y >= clipH {
				continue // outside the frame: not seen, but not hidden
			}
			total++
			hidden := false
			for j := range ms {
				if hidden {
					break
				}
				o := full[j]
				hidden = j != i && alive[j] && ms[j].depth > ms[i].depth && x >= o.X && x < o.X+o.W && y >= o.Y && y < o.Y+o.H
			}
			if !hidden {
				seen++
			}
		}
	}
	return float64(seen) / float64(max(total, 1))
}

// runTracker runs cfg's tracker over c and returns its hypotheses per
// frame: every reported track's box, clipped to the frame as the element
// clips the regions it writes (a track predicted outside shows nothing).
func runTracker(t testing.TB, c *clip, cfg track.Config) [][]labelled {
	tr, err := track.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var r track.Result
	hyp := make([][]labelled, clipFrames)
	for f := range clipFrames {
		tr.Update(track.Frame{PTS: uint64(f), Detected: c.detected[f], Detections: c.dets[f]}, &r)
		for _, x := range r.Tracks {
			if b, ok := clipTo(x.Box); ok {
				hyp[f] = append(hyp[f], labelled{ID: x.ID, Box: b, Pred: x.State == track.Predicted})
			}
		}
	}
	return hyp
}

// greedy is upstream's rule (GStreamer 1.28's ioutracker): each
// detection takes, among the tracks of its class not yet taken on this
// frame, the one whose last box it overlaps most, if that IoU reaches the
// threshold, else starts a track; a track unmatched for maxLost frames in
// a row ends. Nothing is predicted: what a frame shows is its detections
// with their tracks' ids. In a pipeline with the detector every N-th
// frame, the frames between carry the last run's detections again, and
// the rule matches them to the same tracks: so they are fed here too.
type greedy struct {
	thr     float64
	maxLost int
	next    uint64
	tracks  []gtrack
}

type gtrack struct {
	id     uint64
	box    track.Box
	class  int
	unseen int
}

func (g *greedy) update(dets []track.Detection) []labelled {
	taken := make([]bool, len(g.tracks))
	var out []labelled
	for _, d := range dets {
		best, bestIoU := -1, 0.0
		for i, tr := range g.tracks {
			if taken[i] || tr.class != d.Class {
				continue
			}
			if v := iou(tr.box, d.Box); v > bestIoU {
				best, bestIoU = i, v
			}
		}
		if best >= 0 && bestIoU >= g.thr {
			taken[best] = true
			g.tracks[best].box, g.tracks[best].unseen = d.Box, 0
			out = append(out, labelled{ID: g.tracks[best].id, Box: d.Box})
			continue
		}
		g.next++
		g.tracks = append(g.tracks, gtrack{id: g.next, box: d.Box, class: d.Class})
		taken = append(taken, true)
		out = append(out, labelled{ID: g.next, Box: d.Box})
	}
	k := 0
	for i, tr := range g.tracks {
		if !taken[i] {
			tr.unseen++
		}
		if tr.unseen < g.maxLost {
			g.tracks[k] = tr
			k++
		}
	}
	g.tracks = g.tracks[:k]
	return out
}

// runGreedy runs the greedy rule over c, fed the detections at or above
// the tracker's high threshold (the rule has no second pass: a decoder
// before it would drop the low-scoring boxes).
func runGreedy(c *clip, minConf float64) [][]labelled {
	g := &greedy{thr: greedyIoU, maxLost: greedyMaxLost}
	hyp := make([][]labelled, clipFrames)
	var last []track.Detection
	for f := range clipFrames {
		if c.detected[f] {
			last = last[:0]
			for _, d := range c.dets[f] {
				if d.Confidence >= minConf {
					last = append(last, d)
				}
			}
		}
		hyp[f] = g.update(last)
	}
	return hyp
}

// scores are one tracker's numbers on the clip.
type scores struct {
	clear   clearMOT
	id      idResult
	predIoU float64 // mean IoU on the frames without a detector run, its own track's box
	bestIoU float64 // the same, the best-overlapping box shown whatever its id
	ids     int     // distinct hypothesis ids
}

// score measures hyp against c's truth. The predicted-box IoU is taken
// on every frame the detector did not run, for every true object: the
// IoU of its box with the box of the track the IDF1 matching gave it (0
// when that track shows nothing on the frame, or when it has none) —
// where the tracker shows that object. bestIoU takes the box shown that
// overlaps it most, whatever its id: how well the boxes on those frames
// follow the objects, identity aside (a rule that predicts nothing shows
// the last run's boxes there).
func score(c *clip, hyp [][]labelled) scores {
	s := scores{clear: computeCLEAR(c.truth, hyp, matchIoU), id: computeIDF1(c.truth, hyp, matchIoU)}
	ids := map[uint64]bool{}
	sum, best, n := 0.0, 0.0, 0
	for f := range clipFrames {
		for _, x := range hyp[f] {
			ids[x.ID] = true
		}
		if c.detected[f] {
			continue
		}
		for _, o := range c.truth[f] {
			n++
			hid, mapped := s.id.Mapping[o.ID]
			b := 0.0
			for _, x := range hyp[f] {
				v := iou(o.Box, x.Box)
				if mapped && x.ID == hid {
					sum += v
				}
				b = math.Max(b, v)
			}
			best += b
		}
	}
	s.predIoU = sum / float64(max(n, 1))
	s.bestIoU = best / float64(max(n, 1))
	s.ids = len(ids)
	return s
}

// scoreHeader heads the rows of row.
const scoreHeader = "tracker                        MOTA   IDF1  IDsw     FP     FN  predIoU  bestIoU    ids"

func (s scores) row(name string) string {
	return fmt.Sprintf("%-28s %6.3f %6.3f %5d %6d %6d %8.3f %8.3f %6d", name, s.clear.MOTA, s.id.IDF1, s.clear.Switches,
		s.clear.FalsePositives, s.clear.Misses, s.predIoU, s.bestIoU, s.ids)
}

// The acceptance numbers: on the generated clip (20 objects, 600 frames,
// the detector every 3rd frame) the tracker reaches MOTA ≥ 0.95, IDF1 ≥
// 0.95, at most 2 identity switches and a mean IoU ≥ 0.75 of its
// predicted boxes with the true ones on the frames without a detector
// run. Upstream's greedy rule runs on the same clip for comparison.
func TestClipMetrics(t *testing.T) {
	c := newClip(clipSeed)
	gtBoxes, detRuns, dets := 0, 0, 0
	for f := range clipFrames {
		gtBoxes += len(c.truth[f])
		if c.detected[f] {
			detRuns++
			dets += len(c.dets[f])
		}
	}
	ours := score(c, runTracker(t, c, track.DefaultConfig()))
	base := score(c, runGreedy(c, track.DefaultConfig().HighThreshold))
	var b strings.Builder
	fmt.Fprintf(&b, "clip: %d objects, %d frames, %d true boxes, %d detector runs, %d detections\n", len(c.movers), clipFrames, gtBoxes, detRuns, dets)
	b.WriteString(scoreHeader + "\n")
	b.WriteString(ours.row("tensor/track (defaults)") + "\n")
	b.WriteString(base.row("greedy IoU (ioutracker)") + "\n")
	t.Logf("\n%s", b.String())
	if ours.clear.MOTA < 0.95 || ours.id.IDF1 < 0.95 || ours.clear.Switches > 2 || ours.predIoU < 0.75 {
		t.Errorf("tracker: MOTA %.3f, IDF1 %.3f, %d switches, predicted IoU %.3f: want MOTA ≥ 0.95, IDF1 ≥ 0.95, ≤ 2 switches, IoU ≥ 0.75",
			ours.clear.MOTA, ours.id.IDF1, ours.clear.Switches, ours.predIoU)
	}
}

// TestClipSweep measures the design choices on 30 clips of different
// seeds (about 1.5 s; 10 s under -race; -short skips it): the defaults
// against the tracker with one choice changed — MinHits 1 and 3, no
// distance gate, no low-confidence pass, MaxLost 15 and 60,
// class-agnostic — and logs the table (the worst and the median clip of
// each). On every clip the defaults keep to MOTA ≥ 0.95 and at most 2
// identity switches.
func TestClipSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("30 clips: not in -short")
	}
	const seeds = 30
	clips := make([]*clip, seeds)
	for i := range clips {
		clips[i] = newClip(clipSeed + uint64(i))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %-14s %-14s %-14s %s\n", "variant", "MOTA min/med", "IDF1 min/med", "predIoU min/med", "switches (worst clip)")
	for _, v := range []struct {
		name string
		mod  func(*track.Config)
	}{
		{"defaults", func(*track.Config) {}},
		{"MinHits 1", func(c *track.Config) { c.MinHits = 1 }},
		{"MinHits 3", func(c *track.Config) { c.MinHits = 3 }},
		{"DistanceGate 0", func(c *track.Config) { c.DistanceGate = 0 }},
		{"no low pass", func(c *track.Config) { c.LowThreshold = c.HighThreshold }},
		{"MaxLost 15", func(c *track.Config) { c.MaxLost = 15 }},
		{"MaxLost 60", func(c *track.Config) { c.MaxLost = 60 }},
		{"class-agnostic", func(c *track.Config) { c.ClassAgnostic = true }},
	} {
		cfg := track.DefaultConfig()
		v.mod(&cfg)
		var mota, idf1, piou []float64
		switches, worst := 0, 0
		for i, c := range clips {
			s := score(c, runTracker(t, c, cfg))
			mota, idf1, piou = append(mota, s.clear.MOTA), append(idf1, s.id.IDF1), append(piou, s.predIoU)
			switches += s.clear.Switches
			worst = max(worst, s.clear.Switches)
			if v.name == "defaults" && (s.clear.MOTA < 0.95 || s.clear.Switches > 2) {
				t.Errorf("seed %d: MOTA %.3f, %d switches", clipSeed+uint64(i), s.clear.MOTA, s.clear.Switches)
			}
		}
		sort.Float64s(mota)
		sort.Float64s(idf1)
		sort.Float64s(piou)
		fmt.Fprintf(&b, "%-16s %.3f / %.3f  %.3f / %.3f  %.3f / %.3f    %d (%d)\n", v.name, mota[0], mota[seeds/2],
			idf1[0], idf1[seeds/2], piou[0], piou[seeds/2], switches, worst)
	}
	t.Logf("\n%s", b.String())
}
