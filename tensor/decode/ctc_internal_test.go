package decode

import (
	"math"
	"math/rand/v2"
	"testing"
)

// expNonPositive is math.Exp within 1e-8 relative over (-708, 0], and 0
// below: across the range, near the rounding points of k, at the edges.
func TestExpNonPositive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{0, -1e-300, -math.Ln2 / 2, -math.Ln2, -1.5 * math.Ln2, -707.9, -100, -1}
	for range 100000 {
		xs = append(xs, -rng.Float64()*708, -rng.Float64()*20, -rng.Float64())
	}
	for _, x := range xs {
		got, want := expNonPositive(x), math.Exp(x)
		if math.Abs(got-want) > 1e-8*want {
			t.Fatalf("expNonPositive(%v) = %v, math.Exp %v", x, got, want)
		}
	}
	for _, x := range []float64{-708.5, -1000, math.Inf(-1), math.NaN()} {
		if got := expNonPositive(x); got != 0 {
			t.Errorf("expNonPositive(%v) = %v, want 0", x, got)
		}
	}
}

// argmaxFinite is a plain argmax (the first of equals) at every length
// and position, and false whenever a score is NaN (either sign) or
// infinite.
func TestArgmaxFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), -float32(math.NaN())}
	for n := 1; n < 40; n++ {
		for range 200 {
			row := make([]float32, n)
			for i := range row {
				row[i] = float32(rng.IntN(5)) - 2 // ties are common
			}
			if rng.IntN(3) == 0 {
				row[rng.IntN(n)] = specials[rng.IntN(len(specials))]
			}
			want, wantOK := 0, true
			for i, s := range row {
				if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
					wantOK = false
				}
				if s > row[want] {
					want = i
				}
			}
			got, ok := argmaxFinite(row)
			if ok != wantOK || (ok && got != want) {
				t.Fatalf("argmaxFinite(%v) = %d %v, want %d %v", row, got, ok, want, wantOK)
			}
		}
	}
}
