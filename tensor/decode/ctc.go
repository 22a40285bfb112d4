package decode

import (
	"fmt"
	"math"
)

// ctcLayout is what ctc's error texts say it takes.
const ctcLayout = "ctc takes one tensor of per-step class probabilities [1 T C] (or [T C]): class 0 the blank, " +
	"class i ≥ 1 the dictionary's line i"

// planCTC reads [1 T C] (more leading 1s allowed). tokens is the
// dictionary's length: C must be tokens + 1 (the blank), or tokens + 2
// (the last class a space, as PaddleOCR's recognisers have).
func planCTC(ts []Tensor, tokens int) (plan, error) {
	if len(ts) != 1 {
		return plan{}, fmt.Errorf("decode: %s; got %d tensors: %s: %w", ctcLayout, len(ts), describe(ts), ErrLayout)
	}
	s := squeeze(ts[0].Shape, 2)
	if len(s) != 2 || s[1] < 2 {
		return plan{}, fmt.Errorf("decode: %s (a batch of sequences is read a row at a time: "+
			"tensorinfer inference-region=roi-list gives one per region); got %s: %w", ctcLayout, describe(ts), ErrLayout)
	}
	if c := s[1]; c != tokens+1 && c != tokens+2 {
		return plan{}, fmt.Errorf("decode: ctc: the model has %d classes (the blank and %d tokens); the dictionary has %d lines: "+
			"want %d, or %d with a space as the last class: %w", c, c-1, tokens, c-1, c-2, ErrLayout)
	}
	p := newPlan()
	p.tensor[roleMain], p.n, p.c = 0, s[0], s[1]
	p.elems[roleMain] = s[0] * s[1]
	return p, nil
}

// ctc is greedy CTC decoding: each step's best class; a class repeated
// in consecutive steps counts once; the blank (class 0) separates
// repeats and is dropped. The text is the kept classes' tokens, its
// confidence the mean of their probabilities (after a softmax of each
// step when asked) — PaddleOCR's own rule. One object, the whole frame,
// class id -1, when the text is not empty and its confidence exceeds
// the threshold. A step with a NaN or infinite value makes the sequence
// unreadable: no object, counted in NonFinite.
func (d *Decoder) ctc(ts []Tensor, p *plan, tr Transform) {
	v := floats(&ts[0], p.elems[roleMain], &d.scratch[roleMain])
	steps, classes := p.n, p.c
	text := d.text[:0]
	prev, kept := -1, 0
	var sum float64
	for t := range steps {
		row := v[t*classes : (t+1)*classes : (t+1)*classes]
		best, at := row[0], 0
		finite := best-best == 0 // false for NaN and ±Inf
		for k, x := range row[1:] {
			finite = finite && x-x == 0
			if x > best {
				best, at = x, k+1
			}
		}
		if !finite {
			d.nonFinite++
			d.text = text
			return
		}
		if at != 0 && at != prev {
			prob := float64(best)
			if d.cfg.Softmax {
				var z float64
				for _, x := range row {
					z += math.Exp(float64(x - best))
				}
				prob = 1 / z
			}
			text = append(text, d.token(at, classes)...)
			sum += prob
			kept++
		}
		prev = at
	}
	d.text = text
	if kept == 0 {
		return
	}
	conf := sum / float64(kept)
	if !(conf > d.cfg.ScoreThreshold) {
		return
	}
	whole := Box{W: float64(max(tr.FrameWidth, 0)), H: float64(max(tr.FrameHeight, 0))}
	d.objs = append(d.objs, Object{Box: whole, ClassID: -1, Label: d.intern(text), Confidence: conf})
}

// maxInterned bounds the texts a decoder keeps (intern).
const maxInterned = 1024

// intern returns text as a string, the same one for the same text as
// long as it is among the last texts read: a stream reading the same
// lines frame after frame allocates nothing for them.
func (d *Decoder) intern(text []byte) string {
	if s, ok := d.texts[string(text)]; ok {
		return s
	}
	if d.texts == nil || len(d.texts) >= maxInterned {
		d.texts = make(map[string]string)
	}
	s := string(text)
	d.texts[s] = s
	return s
}

// token is class k's text (k ≥ 1): the dictionary's line k, or a space
// for the class past it when the model has one more (planCTC checked).
func (d *Decoder) token(k, classes int) string {
	if k <= len(d.cfg.Labels) {
		return d.cfg.Labels[k-1]
	}
	return " "
}
