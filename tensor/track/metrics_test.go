package track_test

// The standard multi-object tracking metrics, written for these tests
// from their definitions and sharing no code with the tracker (not its
// IoU, not its assignment solver):
//
//   - CLEAR-MOT (Bernardin and Stiefelhagen, 2008), as py-motmetrics
//     computes it: per frame, a ground-truth object keeps the hypothesis
//     it was last matched to while their IoU is still ≥ the threshold;
//     the others are matched by a maximum matching of IoU ≥ threshold
//     pairs (most pairs, then the largest summed IoU); a match whose
//     hypothesis differs from the object's previous match (however long
//     ago) is an identity switch. MOTA = 1 − (misses + false positives +
//     switches) / ground-truth boxes.
//   - IDF1 (Ristani et al., 2016): one global matching of ground-truth
//     ids to hypothesis ids maximising the frames where the pair's boxes
//     overlap at IoU ≥ threshold (identity true positives, IDTP); IDF1 =
//     2 IDTP / (ground-truth boxes + hypothesis boxes).
//
// Both matchings use maxWeightMatching: successive shortest augmenting
// paths found by Bellman-Ford on the bipartite graph (a min-cost flow),
// not the tracker's Hungarian solver.

import (
	"math"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/track"
)

// labelled is one box of a frame with its identity: a ground-truth
// object's or a track's.
type labelled struct {
	ID   uint64
	Box  track.Box
	Pred bool // a hypothesis the tracker predicted (not its detection)
}

// iou is the intersection over union, written again for the metrics.
func iou(a, b track.Box) float64 {
	x0, y0 := math.Max(a.X, b.X), math.Max(a.Y, b.Y)
	x1, y1 := math.Min(a.X+a.W, b.X+b.W), math.Min(a.Y+a.H, b.Y+b.H)
	if x1 <= x0 || y1 <= y0 {
		return 0
	}
	in := (x1 - x0) * (y1 - y0)
	return in / (a.W*a.H + b.W*b.H - in)
}

// wedge is an edge of a bipartite graph: left l, right r, weight w > 0.
type wedge struct {
	l, r int
	w    float64
}

// maxWeightMatching returns, for each of nl left vertices, the right
// vertex it is matched to (-1: none) in a matching of maximum total
// weight over edges. Successive shortest paths: each augmentation along
// the cheapest path (costs −w on left→right edges, +w back) from the
// source to the sink, found by Bellman-Ford, grows the matching by one
// edge and keeps it the heaviest of its size; it stops when no path
// adds weight.
func maxWeightMatching(nl, nr int, edges []wedge) []int {
	matchL := make([]int, nl)
	matchR := make([]int, nr)
	for i := range matchL {
		matchL[i] = -1
	}
	for i := range matchR {
		matchR[i] = -1
	}
	adj := make([][]wedge, nl)
	for _, e := range edges {
		adj[e.l] = append(adj[e.l], e)
	}
	// Vertices: left 0..nl-1, right nl..nl+nr-1, source S, sink T.
	S, T := nl+nr, nl+nr+1
	n := nl + nr + 2
	for {
		dist := make([]float64, n)
		prev := make([]int, n)
		for i := range dist {
			dist[i], prev[i] = math.Inf(1), -1
		}
		dist[S] = 0
		for range n {
			changed := false
			relax := func(u, v int, c float64) {
				if dist[u]+c < dist[v]-1e-12 {
					dist[v], prev[v], changed = dist[u]+c, u, true
				}
			}
			for l := range nl {
				if matchL[l] < 0 {
					relax(S, l, 0)
				}
			}
			for l := range nl {
				if math.IsInf(dist[l], 1) {
					continue
				}
				for _, e := range adj[l] {
					if matchL[l] != e.r {
						relax(l, nl+e.r, -e.w)
					}
				}
			}
			for r := range nr {
				if l := matchR[r]; l >= 0 {
					// the matched edge, walked back
					for _, e := range adj[l] {
						if e.r == r {
							relax(nl+r, l, e.w)
						}
					}
				} else {
					relax(nl+r, T, 0)
				}
			}
			if !changed {
				break
			}
		}
		if !(dist[T] < -1e-12) {
			return matchL
		}
		// Augment along the path back from T.
		for v := prev[T]; v != S; {
			u := prev[v]
			if v >= nl && u < nl { // left u → right v: matched now
				matchL[u], matchR[v-nl] = v-nl, u
			}
			v = u
		}
	}
}

// clearMOT is the CLEAR-MOT result of a sequence.
type clearMOT struct {
	GT, Hyp, Matches, Misses, FalsePositives, Switches int
	MOTA                                               float64
}

// computeCLEAR evaluates hyp against gt (one slice per frame) at IoU ≥ thr.
func computeCLEAR(gt, hyp [][]labelled, thr float64) clearMOT {
	var res clearMOT
	last := map[uint64]uint64{} // ground-truth id → hypothesis id it was last matched to
	for f := range gt {
		g, h := gt[f], hyp[f]
		res.GT += len(g)
		res.Hyp += len(h)
		gm := make([]int, len(g)) // → index in h, -1
		hUsed := make([]bool, len(h))
		for i := range gm {
			gm[i] = -1
		}
		// Correspondences still valid are kept.
		for i, o := range g {
			hid, ok := last[o.ID]
			if !ok {
				continue
			}
			for j, x := range h {
				if x.ID == hid && !hUsed[j] && iou(o.Box, x.Box) >= thr {
					gm[i], hUsed[j] = j, true
					break
				}
			}
		}
		// The rest: most pairs, then the most overlap.
		var gi, hj []int
		for i := range g {
			if gm[i] < 0 {
				gi = append(gi, i)
			}
		}
		for j := range h {
			if !hUsed[j] {
				hj = append(hj, j)
			}
		}
		var edges []wedge
		for a, i := range gi {
			for b, j := range hj {
				if v := iou(g[i].Box, h[j].Box); v >= thr {
					edges = append(edges, wedge{a, b, 1000 + v})
				}
			}
		}
		for a, b := range maxWeightMatching(len(gi), len(hj), edges) {
			if b >= 0 {
				gm[gi[a]], hUsed[hj[b]] = hj[b], true
			}
		}
		for i, j := range gm {
			if j < 0 {
				res.Misses++
				continue
			}
			res.Matches++
			if prev, ok := last[g[i].ID]; ok && prev != h[j].ID {
				res.Switches++
			}
			last[g[i].ID] = h[j].ID
		}
		for _, u := range hUsed {
			if !u {
				res.FalsePositives++
			}
		}
	}
	if res.GT > 0 {
		res.MOTA = 1 - float64(res.Misses+res.FalsePositives+res.Switches)/float64(res.GT)
	}
	return res
}

// idResult is the identity measure of a sequence: IDF1, its true
// positives, and the matching (ground-truth id → hypothesis id).
type idResult struct {
	IDF1    float64
	IDTP    int
	Mapping map[uint64]uint64
}

// computeIDF1 evaluates hyp against gt at IoU ≥ thr.
func computeIDF1(gt, hyp [][]labelled, thr float64) idResult {
	gIdx, hIdx := map[uint64]int{}, map[uint64]int{}
	var gIDs, hIDs []uint64
	pairs := map[[2]int]int{}
	total := 0
	for f := range gt {
		total += len(gt[f]) + len(hyp[f])
		for _, o := range gt[f] {
			if _, ok := gIdx[o.ID]; !ok {
				gIdx[o.ID] = len(gIDs)
				gIDs = append(gIDs, o.ID)
			}
		}
		for _, x := range hyp[f] {
			if _, ok := hIdx[x.ID]; !ok {
				hIdx[x.ID] = len(hIDs)
				hIDs = append(hIDs, x.ID)
			}
		}
		for _, o := range gt[f] {
			for _, x := range hyp[f] {
				if iou(o.Box, x.Box) >= thr {
					pairs[[2]int{gIdx[o.ID], hIdx[x.ID]}]++
				}
			}
		}
	}
	var edges []wedge
	for k, n := range pairs {
		edges = append(edges, wedge{k[0], k[1], float64(n)})
	}
	res := idResult{Mapping: map[uint64]uint64{}}
	for l, r := range maxWeightMatching(len(gIDs), len(hIDs), edges) {
		if r >= 0 {
			res.IDTP += pairs[[2]int{l, r}]
			res.Mapping[gIDs[l]] = hIDs[r]
		}
	}
	if total > 0 {
		res.IDF1 = 2 * float64(res.IDTP) / float64(total)
	}
	return res
}
