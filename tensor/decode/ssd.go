package decode

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ssdLayout is what boxes-ssd's error texts say it takes.
const ssdLayout = "boxes-ssd takes boxes [1 N 4] (ymin, xmin, ymax, xmax, normalized), classes [1 N], scores [1 N] " +
	"and count [1] (found by their names — boxes, classes, scores, num_detections or count, detection_* — " +
	"else in that order; count may be left out)"

// ssdRole returns the role a tensor's name gives it in boxes-ssd, or -1.
// TensorFlow's detection_boxes/detection_classes/detection_scores/
// num_detections and plain boxes/classes/scores/count all match.
func ssdRole(name string) int {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "box"):
		return roleMain
	case strings.Contains(n, "class"):
		return roleClasses
	case strings.Contains(n, "score"):
		return roleScores
	case strings.Contains(n, "num") || strings.Contains(n, "count"):
		return roleCount
	}
	return -1
}

// planSSD finds the four tensors by name when each name gives one role
// (every one of boxes, classes and scores found once), else by order.
func planSSD(ts []Tensor) (plan, error) {
	if len(ts) != 3 && len(ts) != 4 {
		return plan{}, fmt.Errorf("decode: %s; got %d tensors: %s: %w", ssdLayout, len(ts), describe(ts), ErrLayout)
	}
	p := newPlan()
	byName := true
	for i, t := range ts {
		r := ssdRole(t.Name)
		if r < 0 || p.tensor[r] >= 0 {
			byName = false
			break
		}
		p.tensor[r] = i
	}
	if !byName || p.tensor[roleMain] < 0 || p.tensor[roleClasses] < 0 || p.tensor[roleScores] < 0 {
		p = newPlan()
		for i := range ts {
			p.tensor[i] = i
		}
	}
	boxes := squeeze(ts[p.tensor[roleMain]].Shape, 2)
	if len(boxes) != 2 || boxes[1] != 4 || boxes[0] <= 0 {
		return plan{}, fmt.Errorf("decode: %s; boxes are %v: %s: %w", ssdLayout, ts[p.tensor[roleMain]], describe(ts), ErrLayout)
	}
	p.n = boxes[0]
	p.elems[roleMain] = 4 * p.n
	for _, r := range []int{roleClasses, roleScores} {
		s := squeeze(ts[p.tensor[r]].Shape, 1)
		if len(s) != 1 || s[0] != p.n {
			return plan{}, fmt.Errorf("decode: %s; %d boxes but %v: %s: %w", ssdLayout, p.n, ts[p.tensor[r]], describe(ts), ErrLayout)
		}
		p.elems[r] = p.n
	}
	if i := p.tensor[roleCount]; i >= 0 {
		if n, ok := elements(ts[i].Shape); !ok || n != 1 {
			return plan{}, fmt.Errorf("decode: %s; count is %v: %s: %w", ssdLayout, ts[i], describe(ts), ErrLayout)
		}
		p.elems[roleCount] = 1
	}
	return p, nil
}

// ssd appends the first count detections scoring over the threshold,
// best first (ties: in the model's order), at most MaxDetections. The
// model has suppressed overlaps already: no NMS here. Class ids are the
// classes' values rounded (TensorFlow writes them as floats); whether
// they count from 0 or from 1 is the model's, and the labels file
// follows it (a blank or "???" line 0 for a model counting from 1).
// A count that is NaN or infinite gives nothing, counted in nonFinite;
// one that rounds below 0 or above the detections the tensors hold is an
// ErrData error: the tensors are not what the mode reads.
func (d *Decoder) ssd(ts []Tensor, p *plan, tr Transform) error {
	boxes := floats(&ts[p.tensor[roleMain]], p.elems[roleMain], &d.scratch[roleMain])
	classes := floats(&ts[p.tensor[roleClasses]], p.n, &d.scratch[roleClasses])
	scores := floats(&ts[p.tensor[roleScores]], p.n, &d.scratch[roleScores])
	count := p.n
	if i := p.tensor[roleCount]; i >= 0 {
		c := floats(&ts[i], 1, &d.scratch[roleCount])[0]
		if c-c != 0 {
			d.nonFinite++
			return nil
		}
		r := math.Round(float64(c))
		if r < 0 || r > float64(p.n) {
			return fmt.Errorf("decode: boxes-ssd: tensor %v counts %v detections, but the tensors hold %d detections: %s: %w",
				ts[i], c, p.n, describe(ts), ErrData)
		}
		count = int(r)
	}
	thr := d.cfg.ScoreThreshold
	w, h := float64(tr.InputWidth), float64(tr.InputHeight)
	d.cands = d.cands[:0]
	for i := range count {
		s := scores[i]
		cls := float64(classes[i])
		if !(float64(s) > thr) {
			continue
		}
		b := boxes[4*i : 4*i+4]
		if !finite4(s, b[0], b[1], b[2]) || b[3]-b[3] != 0 || math.IsNaN(cls) || math.Abs(cls) > math.MaxInt32 {
			d.nonFinite++
			continue
		}
		// In input pixels: a normalized edge past float32 once scaled is
		// counted (candidate).
		d.candidate(candidate{
			x0: b[1] * float32(w), y0: b[0] * float32(h), x1: b[3] * float32(w), y1: b[2] * float32(h),
			score: s, class: int32(math.Round(cls)), index: int32(i),
		})
	}
	slices.SortFunc(d.cands, byScore)
	for i := range d.cands {
		c := &d.cands[i]
		b, ok := tr.box(float64(c.x0), float64(c.y0), float64(c.x1), float64(c.y1))
		if !ok {
			continue
		}
		d.objs = append(d.objs, Object{Box: b, ClassID: int(c.class), Label: d.cfg.label(int(c.class)), Confidence: float64(c.score)})
		if d.cfg.MaxDetections > 0 && len(d.objs) == d.cfg.MaxDetections {
			break
		}
	}
	return nil
}

// candidate is a box over the score threshold, in model-input pixels.
type candidate struct {
	x0, y0, x1, y1 float32
	score          float32
	class          int32
	index          int32 // its place in the model's output: the tie-break
}

// finite reports whether every corner is a number and not infinite.
func (c *candidate) finite() bool { return finite4(c.x0, c.y0, c.x1, c.y1) }

// byScore orders candidates best first, ties in the model's order.
func byScore(a, b candidate) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(a.index, b.index)
}
