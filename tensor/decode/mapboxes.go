package decode

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"unsafe"
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
// Components are labelled by runs, iteratively, in one pass over the
// map in memory order: each row's runs of foreground cells get a label,
// joined (union-find) with the labels of the previous row's runs they
// touch — sharing a column (4-connectivity) or a corner too (8) — and
// each label carries its bounding box, cell count and probability sum,
// merged on a join. The root of a component is its first label in
// raster order. The run, label and statistics buffers are the decoder's.
func (d *Decoder) mapBoxes(ts []Tensor, p *plan, tr Transform) {
	h, w := p.h, p.w
	v := floats(&ts[0], p.elems[roleMain], &d.scratch[roleMain])
	thr := floor32(d.cfg.MapThreshold)
	ext := int32(1) // 8-connectivity: runs touching at a corner join
	if d.cfg.Connectivity == 4 {
		ext = 0
	}
	parent, comps := d.parent[:0], d.comps[:0]
	// find returns a's root, halving the path as it goes.
	find := func(a int32) int32 {
		for parent[a] != a {
			parent[a] = parent[parent[a]]
			a = parent[a]
		}
		return a
	}
	// t: thr's bits when thr ≥ 0 (skipBackground), else -1: no skipping.
	t := int32(-1)
	if thr >= 0 {
		t = int32(math.Float32bits(thr))
	}
	prev, cur := d.runs[0][:0], d.runs[1][:0]
	for y := range h {
		row := v[y*w : (y+1)*w : (y+1)*w]
		cur = cur[:0]
		j := 0 // the first run of prev that may touch the runs to come
		for x := 0; x < w; {
			if x = skipBackground(row, x, t); x == w {
				break
			}
			if !(row[x] > thr) || row[x] > math.MaxFloat32 {
				if row[x] > thr {
					d.nonFinite++ // +Inf: background, counted
				}
				x++
				continue
			}
			xs, sum := x, 0.0
			for ; x < w && row[x] > thr && row[x] <= math.MaxFloat32; x++ {
				sum += float64(row[x])
			}
			x0, x1 := int32(xs), int32(x) // the run is [x0, x1)
			lab := int32(len(parent))
			parent = append(parent, lab)
			comps = append(comps, component{x0: x0, y0: int32(y), x1: x1, y1: int32(y) + 1, area: x - xs, sum: sum})
			for j < len(prev) && prev[j].x1+ext <= x0 {
				j++
			}
			for k := j; k < len(prev) && prev[k].x0 < x1+ext; k++ {
				a, b := find(lab), find(prev[k].label)
				if a == b {
					continue
				}
				if b < a {
					a, b = b, a
				}
				parent[b] = a
				comps[a].merge(&comps[b])
				lab = a
			}
			cur = append(cur, run{x0: x0, x1: x1, label: lab})
		}
		prev, cur = cur, prev
	}
	d.runs[0], d.runs[1], d.parent, d.comps = prev, cur, parent, comps

	sx, sy := float64(tr.InputWidth)/float64(w), float64(tr.InputHeight)/float64(h)
	for i := range comps {
		c := &comps[i]
		if parent[i] != int32(i) {
			continue
		}
		mean := c.sum / float64(c.area)
		if c.area < d.cfg.MinArea || !(mean > d.cfg.ScoreThreshold) {
			continue
		}
		// Cell edges: cell x covers [x, x+1).
		bx0, by0, bx1, by1 := float64(c.x0), float64(c.y0), float64(c.x1), float64(c.y1)
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
	// Stable: equal confidences stay in raster order.
	slices.SortStableFunc(d.objs, func(a, b Object) int { return cmp.Compare(b.Confidence, a.Confidence) })
	if m := d.cfg.MaxDetections; m > 0 && len(d.objs) > m {
		d.objs = d.objs[:m]
	}
}

// skipBackground returns the first index from x on of a cell of row
// whose magnitude is over the threshold whose bits are t (≥ 0): a
// float32's magnitude orders as its bits without the sign do, so every
// cell it skips is a number, not infinite, and at most the threshold —
// background, nothing to count. What it stops at may be foreground, a
// NaN or an infinity, or a negative cell of a larger magnitude: the
// caller's exact test decides. t < 0 skips nothing. Eight cells are
// tested at once, as scanRow does (a map is mostly background): eight
// loads, masks, subtractions and ORs and one branch.
func skipBackground(row []float32, x int, t int32) int {
	if t < 0 || x >= len(row) {
		return x
	}
	const m = 0x7fffffff // all but the sign
	bits := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(row))), len(row))
	for ; x+8 <= len(bits); x += 8 {
		b := bits[x : x+8 : x+8]
		if (t-b[0]&m)|(t-b[1]&m)|(t-b[2]&m)|(t-b[3]&m)|(t-b[4]&m)|(t-b[5]&m)|(t-b[6]&m)|(t-b[7]&m) < 0 {
			break
		}
	}
	for x < len(bits) && bits[x]&m <= t {
		x++
	}
	return x
}

// run is a row's run of foreground cells, [x0, x1), and a label of its
// component.
type run struct {
	x0, x1, label int32
}

// component is what a label knows of its cells: their bounding box
// [x0, x1) × [y0, y1), count and probability sum.
type component struct {
	x0, y0, x1, y1 int32
	area           int
	sum            float64
}

// merge adds o's cells to c.
func (c *component) merge(o *component) {
	c.x0, c.y0, c.x1, c.y1 = min(c.x0, o.x0), min(c.y0, o.y0), max(c.x1, o.x1), max(c.y1, o.y1)
	c.area += o.area
	c.sum += o.sum
}
