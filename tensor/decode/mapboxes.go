package decode

import (
	"cmp"
	"fmt"
	"slices"
)

// mapLayout is what map-boxes' error texts say it takes.
const mapLayout = "map-boxes takes one probability map, [1 1 H W], [1 H W] or [H W]"

// planMap: one tensor, [H W] after its leading 1s.
func planMap(ts []Tensor) (plan, error) {
	if len(ts) != 1 {
		return plan{}, fmt.Errorf("decode: %s; got %d tensors: %s: %w", mapLayout, len(ts), describe(ts), ErrLayout)
	}
	s := squeeze(ts[0].Shape, 2)
	n, ok := elements(s)
	if len(s) != 2 || !ok {
		return plan{}, fmt.Errorf("decode: %s; got %s: %w", mapLayout, describe(ts), ErrLayout)
	}
	p := newPlan()
	p.tensor[roleMain], p.elems[roleMain] = 0, n
	p.h, p.w = s[0], s[1]
	return p, nil
}

// mapBoxes labels the connected components of the cells over the map
// threshold and appends one box per component: its bounding box in map
// cells, expanded by UnclipRatio, scaled to the input (the map may be
// smaller than the input: input/map size per axis), mapped to the frame.
// A component of fewer than MinArea cells, or whose mean probability
// (its confidence) is not over the score threshold, is dropped. Objects
// come best first (ties: the component met first in raster order), at
// most MaxDetections.
//
// Components are found by an iterative fill with an explicit stack,
// each cell marked when pushed, so each is pushed once: O(H×W) time, no
// recursion, and the label and stack buffers are the decoder's.
func (d *Decoder) mapBoxes(ts []Tensor, p *plan, tr Transform) {
	h, w := p.h, p.w
	v := floats(&ts[0], p.elems[roleMain], &d.scratch[roleMain])
	thr := floor32(d.cfg.MapThreshold)
	comp := grow(&d.comp, h*w)
	clear(comp)
	stack := d.stack[:0]
	eight := d.cfg.Connectivity != 4
	sx, sy := float64(tr.InputWidth)/float64(w), float64(tr.InputHeight)/float64(h)
	var id int32
	for start, sv := range v {
		if comp[start] != 0 || !(sv > thr) {
			continue
		}
		id++
		comp[start] = id
		stack = append(stack, int32(start))
		x0, y0, x1, y1 := w, h, -1, -1
		area, sum := 0, 0.0
		for len(stack) > 0 {
			q := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			y, x := q/w, q%w
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			area++
			sum += float64(v[q])
			for dy := -1; dy <= 1; dy++ {
				ny := y + dy
				if ny < 0 || ny >= h {
					continue
				}
				for dx := -1; dx <= 1; dx++ {
					nx := x + dx
					if nx < 0 || nx >= w || (dx == 0 && dy == 0) || (!eight && dx != 0 && dy != 0) {
						continue
					}
					if r := ny*w + nx; comp[r] == 0 && v[r] > thr {
						comp[r] = id
						stack = append(stack, int32(r))
					}
				}
			}
		}
		mean := sum / float64(area)
		if area < d.cfg.MinArea || !(mean > d.cfg.ScoreThreshold) {
			continue
		}
		// Cell edges: cell x covers [x, x+1).
		bx0, by0, bx1, by1 := float64(x0), float64(y0), float64(x1+1), float64(y1+1)
		if r := d.cfg.UnclipRatio; r > 0 {
			bw, bh := bx1-bx0, by1-by0
			e := bw * bh * r / (2 * (bw + bh))
			bx0, by0, bx1, by1 = bx0-e, by0-e, bx1+e, by1+e
		}
		b, ok := tr.box(bx0*sx, by0*sy, bx1*sx, by1*sy)
		if !ok {
			continue
		}
		d.objs = append(d.objs, Object{Box: b, ClassID: 0, Label: d.cfg.label(0), Confidence: mean})
	}
	d.stack = stack
	// Stable: equal confidences stay in raster order.
	slices.SortStableFunc(d.objs, func(a, b Object) int { return cmp.Compare(b.Confidence, a.Confidence) })
	if m := d.cfg.MaxDetections; m > 0 && len(d.objs) > m {
		d.objs = d.objs[:m]
	}
}
