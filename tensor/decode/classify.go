package decode

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// planClassify: one tensor with one dimension that is not 1 — [N],
// [1 N], or a convolutional head's [1 N 1 1].
func planClassify(ts []Tensor) (plan, error) {
	p := newPlan()
	if len(ts) != 1 {
		return plan{}, fmt.Errorf("decode: classify takes one tensor of class scores, [N] or [1 N]; got %d: %s: %w",
			len(ts), describe(ts), ErrLayout)
	}
	n, ok := elements(ts[0].Shape)
	big := 0
	for _, dim := range ts[0].Shape {
		if dim != 1 {
			big++
		}
	}
	if !ok || big > 1 || len(ts[0].Shape) == 0 {
		return plan{}, fmt.Errorf("decode: classify takes one tensor of class scores, [N] or [1 N]; got %s: %w", describe(ts), ErrLayout)
	}
	p.tensor[roleMain], p.elems[roleMain], p.n = 0, n, n
	return p, nil
}

// classify appends the top-k classes scoring over the threshold, best
// first (ties: the lower class id first), each a whole-frame object.
func (d *Decoder) classify(ts []Tensor, p *plan, tr Transform) {
	scores := floats(&ts[0], p.n, &d.scratch[roleMain])
	for _, s := range scores {
		if s-s != 0 {
			d.nonFinite++
		}
	}
	if d.cfg.Softmax {
		scores = softmax(scores, &d.probs)
	}
	thr := d.cfg.ScoreThreshold
	d.order = d.order[:0]
	for i, s := range scores {
		if float64(s) > thr && s-s == 0 {
			d.order = append(d.order, int32(i))
		}
	}
	slices.SortFunc(d.order, func(a, b int32) int {
		if c := cmp.Compare(scores[b], scores[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	k := len(d.order)
	if d.cfg.TopK > 0 {
		k = min(k, d.cfg.TopK)
	}
	if d.cfg.MaxDetections > 0 {
		k = min(k, d.cfg.MaxDetections)
	}
	whole := Box{W: float64(max(tr.FrameWidth, 0)), H: float64(max(tr.FrameHeight, 0))}
	for _, id := range d.order[:k] {
		d.objs = append(d.objs, Object{Box: whole, ClassID: int(id), Label: d.cfg.label(int(id)), Confidence: float64(scores[id])})
	}
}

// softmax writes the softmax of v into *out (reused) and returns it:
// exp(v − max) / Σ, in float64, so large logits do not overflow. NaN
// and infinite inputs are left out (their outputs NaN, which no
// threshold keeps): one hostile logit does not wipe out the others.
func softmax(v []float32, out *[]float32) []float32 {
	o := grow(out, len(v))
	m := math.Inf(-1)
	for _, x := range v {
		if x-x == 0 {
			m = max(m, float64(x))
		}
	}
	var sum float64
	for i, x := range v {
		if x-x != 0 {
			o[i] = float32(math.NaN())
			continue
		}
		e := math.Exp(float64(x) - m)
		o[i] = float32(e)
		sum += e
	}
	for i := range o {
		o[i] = float32(float64(o[i]) / sum)
	}
	return o
}
