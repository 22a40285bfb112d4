package decode_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// parseMap reads a map drawn in text: '.' is 0, a digit d is d/10.
func parseMap(rows ...string) (h, w int, v []float32) {
	for _, r := range rows {
		for _, c := range r {
			if c == '.' {
				v = append(v, 0)
			} else {
				v = append(v, float32(c-'0')/10)
			}
		}
	}
	return len(rows), len(rows[0]), v
}

// Two regions and a cell touching one of them only at a corner: with
// 8-connectivity it joins that region, with 4 it is a region of its own
// (dropped by min-area 2). The map is 10×6 cells of a 40×24 input
// (4 pixels a cell), the frame the input: boxes are cell edges × 4;
// confidence the region's mean.
func TestMapBoxesComponents(t *testing.T) {
	h, w, v := parseMap(
		"..........",
		".99.......",
		".97.....5.",
		"...9....5.",
		"........5.",
		"..........",
	)
	m := f32("map", []int{1, 1, h, w}, v)
	tr := decode.Identity(40, 24)
	eight := newDecoder(t, decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.3, Labels: []string{"text"}})
	checkObjects(t, "8-connected", decodeOK(t, eight, tr, m), []decode.Object{
		obj(4, 4, 12, 12, 0, "text", (0.9+0.9+0.9+0.7+0.9)/5),
		obj(32, 8, 4, 12, 0, "text", 0.5),
	})
	four := newDecoder(t, decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.3, Connectivity: 4, MinArea: 2})
	checkObjects(t, "4-connected, min-area 2", decodeOK(t, four, tr, m), []decode.Object{
		obj(4, 4, 8, 8, 0, "", (0.9+0.9+0.9+0.7)/4),
		obj(32, 8, 4, 12, 0, "", 0.5),
	})
	// A cell at the threshold is background; the score threshold drops
	// the 0.5 region; max-detections keeps the best.
	strict := newDecoder(t, decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.7, Connectivity: 4, ScoreThreshold: 0.6})
	checkObjects(t, "threshold 0.7", decodeOK(t, strict, tr, m), []decode.Object{
		obj(4, 4, 8, 8, 0, "", 0.9), obj(12, 12, 4, 4, 0, "", 0.9),
	})
	one := newDecoder(t, decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.3, MaxDetections: 1})
	if got := decodeOK(t, one, tr, m); len(got) != 1 || !near(got[0].Confidence, 0.86) {
		t.Errorf("max-detections 1: %s", fmtObjects(got))
	}
}

// Unclip: a 4×2-cell region expands by area × ratio / perimeter =
// 8 × 1.5 / 12 = 1 cell on each side; a map at half the input's size
// scales cells by 2; a letterbox maps it into the frame, clipped.
func TestMapBoxesUnclipScaleLetterbox(t *testing.T) {
	h, w, v := parseMap(
		"........",
		"..8888..",
		"..8888..",
		"........",
	)
	m := f32("map", []int{1, h, w}, v)
	d := newDecoder(t, decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.5, UnclipRatio: 1.5})
	// Cells [1,7)×[0,4) ×2 = input [2,14)×[0,8) of a 16×8 input.
	checkObjects(t, "unclip, map at half size", decodeOK(t, d, decode.Identity(16, 8), m), []decode.Object{obj(2, 0, 12, 8, 0, "", 0.8)})
	// A 32×8 frame letterboxed into 16×8: scale 1/2, 2 rows of padding
	// above: input y [0,8) → frame [-4,12) → clipped [0,8).
	tr := decode.Letterbox(32, 8, 16, 8)
	if tr.ScaleX != 0.5 || tr.OffsetY != 2 {
		t.Fatalf("Letterbox(32, 8, 16, 8) = %+v", tr)
	}
	checkObjects(t, "letterboxed", decodeOK(t, d, tr, m), []decode.Object{obj(4, 0, 24, 8, 0, "", 0.8)})
}

// refComponents labels a mask the other way: union-find over the cells,
// joining each foreground cell to its earlier neighbours, then one
// bounding box (cell edges) per root.
func refComponents(h, w int, v []float32, thr float32, eight bool) [][4]int {
	parent := make([]int, h*w)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	fg := func(y, x int) bool { return y >= 0 && x >= 0 && x < w && v[y*w+x] > thr }
	for y := range h {
		for x := range w {
			if !fg(y, x) {
				continue
			}
			nbrs := [][2]int{{y, x - 1}, {y - 1, x}}
			if eight {
				nbrs = append(nbrs, [2]int{y - 1, x - 1}, [2]int{y - 1, x + 1})
			}
			for _, n := range nbrs {
				if fg(n[0], n[1]) {
					parent[find(n[0]*w+n[1])] = find(y*w + x)
				}
			}
		}
	}
	boxes := map[int]*[4]int{}
	for y := range h {
		for x := range w {
			if !fg(y, x) {
				continue
			}
			r := find(y*w + x)
			b, ok := boxes[r]
			if !ok {
				b = &[4]int{x, y, x + 1, y + 1}
				boxes[r] = b
			}
			b[0], b[1], b[2], b[3] = min(b[0], x), min(b[1], y), max(b[2], x+1), max(b[3], y+1)
		}
	}
	var out [][4]int
	for _, b := range boxes {
		out = append(out, *b)
	}
	slices.SortFunc(out, func(a, b [4]int) int { return slices.Compare(a[:], b[:]) })
	return out
}

// Random masks: the boxes are those the union-find reference finds, with
// 4- and 8-connectivity, for thresholds above, at and below zero (and
// -0); the background holds values at and under the threshold, negative
// ones of a larger magnitude, NaNs and infinities — background too, +Inf
// counted — at every place of the eight-cell blocks the scan skips.
func TestMapBoxesMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	inf := float32(math.Inf(1))
	specials := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.9, -5, float32(math.NaN()), -float32(math.NaN()), inf, -inf, 0.25}
	for i := range 400 {
		h, w := 1+rng.IntN(40), 1+rng.IntN(40)
		thr := []float32{0.5, 0, -0.5, float32(math.Copysign(0, -1))}[i/2%4]
		v := make([]float32, h*w)
		density := rng.Float32()
		infs := 0
		for k := range v {
			switch {
			case rng.Float32() < density:
				v[k] = 1
			case i%2 == 1 && rng.IntN(4) == 0:
				v[k] = specials[rng.IntN(len(specials))]
			}
			if math.IsInf(float64(v[k]), 1) {
				infs++
			}
		}
		// The reference's foreground: over the threshold and finite.
		mask := make([]float32, len(v))
		for k, c := range v {
			if c > thr && !math.IsInf(float64(c), 0) {
				mask[k] = 1
			}
		}
		for _, conn := range []int{4, 8} {
			d := newDecoder(t, decode.Config{Mode: decode.MapBoxes, MapThreshold: float64(thr), ScoreThreshold: -10, Connectivity: conn})
			var got [][4]int
			for _, o := range decodeOK(t, d, decode.Identity(w, h), f32("m", []int{1, 1, h, w}, v)) {
				x, y, bw, bh := o.Box.Pixels()
				got = append(got, [4]int{x, y, x + bw, y + bh})
			}
			slices.SortFunc(got, func(a, b [4]int) int { return slices.Compare(a[:], b[:]) })
			if want := refComponents(h, w, mask, 0.5, conn == 8); !slices.Equal(got, want) {
				t.Fatalf("map %d (%d×%d), threshold %v, %d-connected: boxes %v, want %v", i, w, h, thr, conn, got, want)
			}
			if d.NonFinite() != infs {
				t.Errorf("map %d: %d cells counted non-finite, want the %d of +Inf", i, d.NonFinite(), infs)
			}
		}
	}
}

// Large components: a 2000×2000 map of ones, and a comb — 1000 teeth a
// column wide, 4-connected only through its last row, so the labels of
// every tooth join there, last — are one box each.
func TestMapBoxesLargeComponent(t *testing.T) {
	const s = 2000
	ones, comb := make([]float32, s*s), make([]float32, s*s)
	for i := range ones {
		ones[i] = 1
		if y, x := i/s, i%s; y == s-1 || x%2 == 0 {
			comb[i] = 0.5
		}
	}
	d := newDecoder(t, decode.Config{Mode: decode.MapBoxes, MapThreshold: 0.25, Connectivity: 4})
	checkObjects(t, "all ones", decodeOK(t, d, decode.Identity(s, s), f32("m", []int{1, 1, s, s}, ones)),
		[]decode.Object{obj(0, 0, s, s, 0, "", 1)})
	checkObjects(t, "comb", decodeOK(t, d, decode.Identity(s, s), f32("m", []int{1, 1, s, s}, comb)),
		[]decode.Object{obj(0, 0, s, s, 0, "", 0.5)})
}

// Layouts map-boxes does not read are errors naming the dims.
func TestMapBoxesBadLayouts(t *testing.T) {
	d := newDecoder(t, decode.Config{Mode: decode.MapBoxes})
	layoutError(t, "two channels", d.Check([]decode.Tensor{f32("map", []int{1, 2, 8, 8}, nil)}), `"map" float32 [1 2 8 8]`, "[1 1 H W]")
	layoutError(t, "rank 1", d.Check([]decode.Tensor{f32("map", []int{64}, nil)}), "[64]")
	layoutError(t, "two maps", d.Check([]decode.Tensor{f32("a", []int{1, 1, 8, 8}, nil), f32("b", []int{1, 1, 4, 4}, nil)}),
		`"a" float32 [1 1 8 8]`, `"b" float32 [1 1 4 4]`)
	if err := d.Check([]decode.Tensor{f32("map", []int{1, 1, 0, 8}, nil)}); err == nil || !strings.Contains(err.Error(), "[1 1 0 8]") {
		t.Errorf("a zero dim: %v", err)
	}
}
