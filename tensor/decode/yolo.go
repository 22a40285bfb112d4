package decode

import (
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// yoloLayout is what boxes-yolo's error texts say it takes.
const yoloLayout = "boxes-yolo takes one tensor, YOLOv5's [1 N 5+C] (cx, cy, w, h, objectness, C class scores per row) " +
	"or YOLOv8's [1 4+C N] (the transpose, no objectness)"

// planYOLO reads the layout of the one tensor: [1 a b] (more leading 1s
// allowed). labels is the number of labels (0: none), which may settle
// YOLOAuto (Config.YOLOLayout).
func planYOLO(ts []Tensor, want YOLOLayout, labels int) (plan, error) {
	if len(ts) != 1 {
		return plan{}, fmt.Errorf("decode: %s; got %d tensors: %s: %w", yoloLayout, len(ts), describe(ts), ErrLayout)
	}
	// The batch dimension is required: [1 84] is no YOLO output.
	s := squeeze(ts[0].Shape, 2)
	if len(s) != 2 || len(ts[0].Shape) < 3 {
		return plan{}, fmt.Errorf("decode: %s; got %s: %w", yoloLayout, describe(ts), ErrLayout)
	}
	a, b := s[0], s[1]
	v5ok, v8ok := b >= 6 && a > 0, a >= 5 && b > 0
	var v8 bool
	switch want {
	case YOLOv5:
		if !v5ok {
			return plan{}, fmt.Errorf("decode: %s; yolo-layout v5 wants [1 N 5+C] with C ≥ 1, got %s: %w", yoloLayout, describe(ts), ErrLayout)
		}
	case YOLOv8:
		if !v8ok {
			return plan{}, fmt.Errorf("decode: %s; yolo-layout v8 wants [1 4+C N] with C ≥ 1, got %s: %w", yoloLayout, describe(ts), ErrLayout)
		}
		v8 = true
	default:
		switch {
		case !v5ok && !v8ok:
			return plan{}, fmt.Errorf("decode: %s; got %s: %w", yoloLayout, describe(ts), ErrLayout)
		case v5ok != v8ok:
			v8 = v8ok
		case labels > 0 && (a == 4+labels) != (b == 5+labels):
			v8 = a == 4+labels
		default:
			v8 = a < b
		}
	}
	p := newPlan()
	p.tensor[roleMain], p.v8 = 0, v8
	p.elems[roleMain] = a * b
	if v8 {
		p.n, p.c = b, a-4
	} else {
		p.n, p.c = a, b-5
	}
	return p, nil
}

// yolo thresholds the candidates, then keeps the best of each class's
// overlapping boxes (nms).
func (d *Decoder) yolo(ts []Tensor, p *plan, tr Transform) {
	v := floats(&ts[0], p.elems[roleMain], &d.scratch[roleMain])
	if p.v8 {
		d.yoloV8(v, p.n, p.c)
	} else {
		d.yoloV5(v, p.n, p.c)
	}
	sx, sy := float32(1), float32(1)
	normalized := d.cfg.YOLOCoords == CoordsNormalized
	// Candidates with a NaN or an infinity were dropped above: one such
	// cannot decide the unit of all the others.
	if d.cfg.YOLOCoords == CoordsAuto && len(d.cands) > 0 {
		normalized = true
		for i := range d.cands {
			c := &d.cands[i]
			// The box's centre and size, from its corners.
			cx, cy, w, h := (c.x0+c.x1)/2, (c.y0+c.y1)/2, c.x1-c.x0, c.y1-c.y0
			if !(abs32(cx) <= normalizedMax && abs32(cy) <= normalizedMax && abs32(w) <= normalizedMax && abs32(h) <= normalizedMax) {
				normalized = false
				break
			}
		}
	}
	if normalized {
		sx, sy = float32(tr.InputWidth), float32(tr.InputHeight)
	}
	d.nms(tr, sx, sy)
}

// finite4 reports whether a, b, c and d are all numbers and finite
// (x − x is 0 for those, NaN for NaN and ±Inf).
func finite4(a, b, c, d float32) bool {
	return a-a == 0 && b-b == 0 && c-c == 0 && d-d == 0
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// floor32 returns the largest float32 at most v: for a float32 s,
// s > floor32(v) exactly when s > v, so the scans compare in float32.
// Zero is +0, never -0: scanRow's bit test reads a threshold's bits, and
// -0's (the sign bit alone) would pass no score.
func floor32(v float64) float32 {
	f := float32(v)
	if float64(f) > v {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	if f == 0 {
		f = 0
	}
	return f
}

// yoloV5 collects the rows whose objectness × best class score is over
// the threshold. Rows whose objectness is not over it are skipped
// first, as YOLOv5's own post-processing does: class scores are
// probabilities, at most 1.
func (d *Decoder) yoloV5(v []float32, n, c int) {
	thr := floor32(d.cfg.ScoreThreshold)
	d.cands = d.cands[:0]
	stride := 5 + c
	for i := range n {
		row := v[i*stride : (i+1)*stride : (i+1)*stride]
		if !(row[4] > thr) {
			continue
		}
		best, cls := row[5], 0
		for k, s := range row[6:] {
			if s > best {
				best, cls = s, k+1
			}
		}
		if score := row[4] * best; score > thr {
			if !finite4(score, row[0], row[1], row[2]) || row[3]-row[3] != 0 {
				d.nonFinite++
				continue
			}
			d.candidate(centred(row[0], row[1], row[2], row[3], score, cls, i))
		}
	}
}

// yoloV8 reads the transposed layout a class row at a time — each row is
// contiguous, so the scan streams through memory — keeping for each
// candidate its best score over the threshold and that class (ties: the
// lower class). Most scores are far below the threshold: the inner loop
// is then one load and one comparison with a constant.
func (d *Decoder) yoloV8(v []float32, n, c int) {
	thr := floor32(d.cfg.ScoreThreshold)
	best := grow(&d.best, n)
	cls := grow(&d.bestCls, n)
	for i := range best {
		best[i], cls[i] = thr, -1
	}
	for k := range c {
		scanRow(v[(4+k)*n:(5+k)*n:(5+k)*n], thr, best, cls, int32(k))
	}
	d.cands = d.cands[:0]
	xs, ys, ws, hs := v[:n:n], v[n:2*n:2*n], v[2*n:3*n:3*n], v[3*n:4*n:4*n]
	for i, k := range cls {
		if k >= 0 {
			if !finite4(best[i], xs[i], ys[i], ws[i]) || hs[i]-hs[i] != 0 {
				d.nonFinite++
				continue
			}
			d.candidate(centred(xs[i], ys[i], ws[i], hs[i], best[i], int(k), i))
		}
	}
}

// scanRow raises best[i] to row[i] (and cls[i] to k) where row[i] is
// over both thr and best[i]. best[i] starts at thr, so the test is that
// of the threshold unless the candidate has a score already.
//
// It is the hot loop of boxes-yolo (YOLOv8: 80 rows of 8400). Eight
// scores are tested at once on their bits: a float32 ≥ 0 orders as its
// bits do as an int32, so with thr ≥ 0 and T its bits, T − b < 0 for
// the bits b of a score over thr; OR-ing eight differences says whether
// any of them may be (a negative score or a NaN can also set the sign,
// so the eight are then tested one by one, exactly). A block of eight
// low scores costs eight loads, subtractions and ORs and one branch.
func scanRow(row []float32, thr float32, best []float32, cls []int32, k int32) {
	n := len(row)
	best, cls = best[:n:n], cls[:n:n]
	i := 0
	if thr >= 0 && n >= 8 {
		t := int32(math.Float32bits(thr))
		bits := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(row))), n)
		for ; i+8 <= n; i += 8 {
			b := bits[i : i+8 : i+8]
			if (t-b[0])|(t-b[1])|(t-b[2])|(t-b[3])|(t-b[4])|(t-b[5])|(t-b[6])|(t-b[7]) >= 0 {
				continue
			}
			for j := i; j < i+8; j++ {
				if s := row[j]; s > thr && s > best[j] {
					best[j], cls[j] = s, k
				}
			}
		}
	}
	for ; i < n; i++ {
		if s := row[i]; s > thr && s > best[i] {
			best[i], cls[i] = s, k
		}
	}
}

// centred makes a candidate from a centre and size.
func centred(cx, cy, w, h, score float32, class, index int) candidate {
	return candidate{x0: cx - w/2, y0: cy - h/2, x1: cx + w/2, y1: cy + h/2, score: score, class: int32(class), index: int32(index)}
}

// candidate appends c, or counts it in nonFinite when a corner is
// infinite: finite values whose sum overflows float32 (a centre of 1e38
// and a width of 3.4e38) would clip to an edge of the frame.
func (d *Decoder) candidate(c candidate) {
	if !c.finite() {
		d.nonFinite++
		return
	}
	d.cands = append(d.cands, c)
}

// nms is class-wise greedy non-maximum suppression: candidates best
// first, each kept unless its IoU with a box already kept of its class
// exceeds the IoU threshold. A candidate that lies outside the frame
// once mapped (in the letterbox's padding) is neither kept nor
// suppresses others. It stops at MaxDetections: what it keeps comes
// best first, so the first MaxDetections are those a full pass would
// keep. Coordinates are scaled by (sx, sy) into input pixels first
// (normalized outputs); IoU does not change with the scale.
func (d *Decoder) nms(tr Transform, sx, sy float32) {
	slices.SortFunc(d.cands, byScore)
	thr := d.cfg.IoUThreshold
	d.kept = d.kept[:0]
	for i := range d.cands {
		c := &d.cands[i]
		x0, y0, x1, y1 := c.x0*sx, c.y0*sy, c.x1*sx, c.y1*sy
		if !finite4(x0, y0, x1, y1) {
			d.nonFinite++ // normalized coordinates past float32 once in pixels
			continue
		}
		b, ok := tr.box(float64(x0), float64(y0), float64(x1), float64(y1))
		if !ok {
			continue
		}
		suppressed := false
		for _, k := range d.kept {
			if o := &d.cands[k]; o.class == c.class && iou(o, c) > thr {
				suppressed = true
				break
			}
		}
		if suppressed {
			continue
		}
		d.kept = append(d.kept, int32(i))
		d.objs = append(d.objs, Object{Box: b, ClassID: int(c.class), Label: d.cfg.label(int(c.class)), Confidence: float64(c.score)})
		if d.cfg.MaxDetections > 0 && len(d.kept) == d.cfg.MaxDetections {
			return
		}
	}
}

// iou is the intersection over union of two boxes, in float64; 0 when
// the union is empty (or not a number).
func iou(a, b *candidate) float64 {
	ax0, ay0, ax1, ay1 := float64(a.x0), float64(a.y0), float64(a.x1), float64(a.y1)
	bx0, by0, bx1, by1 := float64(b.x0), float64(b.y0), float64(b.x1), float64(b.y1)
	iw := min(ax1, bx1) - max(ax0, bx0)
	ih := min(ay1, by1) - max(ay0, by0)
	if !(iw > 0 && ih > 0) {
		return 0
	}
	inter := iw * ih
	union := (ax1-ax0)*(ay1-ay0) + (bx1-bx0)*(by1-by0) - inter
	if !(union > 0) {
		return 0
	}
	return inter / union
}
