package track

import "math"

// Box is an axis-aligned rectangle in frame pixels: X, Y its top-left
// corner, W, H its width and height.
type Box struct{ X, Y, W, H float64 }

// MaxCoord bounds a detection's coordinates: a box with a corner or a
// size beyond it (or not finite, or not positive in size) is not a
// detection the tracker takes. 2^24 pixels: no frame is that large, and
// products of such coordinates stay exact enough in float64.
const MaxCoord = 1 << 24

// valid reports whether b is a box the tracker takes: finite, positive
// in size, within MaxCoord.
func (b Box) valid() bool {
	return b.W > 0 && b.H > 0 && b.W <= MaxCoord && b.H <= MaxCoord &&
		math.Abs(b.X) <= MaxCoord && math.Abs(b.Y) <= MaxCoord // false for NaN too
}

// IoU is the intersection over union of a and b: 0 for disjoint or empty
// boxes, 1 for equal ones.
func IoU(a, b Box) float64 {
	iw := min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
	ih := min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
	if !(iw > 0 && ih > 0) {
		return 0
	}
	inter := iw * ih
	union := a.W*a.H + b.W*b.H - inter
	if !(union > 0) {
		return 0
	}
	return inter / union
}

// centreDistance is the distance between the centres of a and b, each
// axis in units of the boxes' mean size along it: 1 is "one box apart".
func centreDistance(a, b Box) float64 {
	dx := (b.X + b.W/2 - a.X - a.W/2) / ((a.W + b.W) / 2)
	dy := (b.Y + b.H/2 - a.Y - a.H/2) / ((a.H + b.H) / 2)
	return math.Sqrt(dx*dx + dy*dy)
}

// clampBox returns b with every value finite and within MaxCoord, and its
// size at least minSize: what the tracker reports, whatever its filters
// hold.
func clampBox(b Box) Box {
	c := func(v, lo float64) float64 {
		if !(v >= lo) { // NaN too
			return lo
		}
		return min(v, MaxCoord)
	}
	return Box{X: c(b.X, -MaxCoord), Y: c(b.Y, -MaxCoord), W: c(b.W, minSize), H: c(b.H, minSize)}
}

// minSize is the smallest width or height a reported box has: a filter
// whose size shrinks (a track predicted for long) stays a box.
const minSize = 1.0 / 16
