package track

import "math"

// The motion model: a constant-velocity Kalman filter on the box's
// centre and size, (cx, cy, w, h) and their velocities per frame — the
// state SORT and ByteTrack keep (BoT-SORT's width-and-height variant).
// Its transition, process noise and measurement noise act on each of the
// four coordinates alone, so with a covariance that starts per axis the
// 8×8 filter is exactly four independent filters of two states
// (position, velocity): a predict or an update costs a few dozen
// flops a track instead of 8×8 matrix products.
//
// Noise is proportional to the box's size, with ByteTrack's weights:
// position (and measurement) standard deviation stdPosition × size,
// velocity stdVelocity × size, per frame; the horizontal terms scale
// with the width, the vertical ones with the height; a new track's
// velocity starts at rest with a standard deviation of initVelocity ×
// size. Measured on the clip of the package's tests (30 seeds, the
// detector every 3rd frame): halving or quartering stdVelocity, or
// doubling stdPosition, lost MOTA and IDF1 and added identity switches
// (curved paths need the velocity to follow); a 4× wider initial
// velocity changed nothing.
const (
	stdPosition  = 1.0 / 20
	stdVelocity  = 1.0 / 160
	initVelocity = 10.0 / 160
)

// axis is one coordinate's filter: position x, velocity v, and the
// covariance [[p00 p01] [p01 p11]].
type axis struct {
	x, v          float64
	p00, p01, p11 float64
}

// predict advances a frame: x += v, P = F P Fᵀ + Q.
func (a *axis) predict(q0, q1 float64) {
	a.x += a.v
	a.p00 += 2*a.p01 + a.p11 + q0
	a.p01 += a.p11
	a.p11 += q1
}

// update corrects the axis with measurement z of variance r.
func (a *axis) update(z, r float64) {
	s := a.p00 + r
	k0, k1 := a.p00/s, a.p01/s
	y := z - a.x
	a.x += k0 * y
	a.v += k1 * y
	a.p11 -= k1 * a.p01
	a.p00 *= 1 - k0
	a.p01 *= 1 - k0
}

// filter is a box's motion: axes cx, cy, w, h.
type filter [4]axis

// init starts the filter at b, at rest, with the uncertainty of a first
// detection.
func (f *filter) init(b Box) {
	scale := [4]float64{b.W, b.H, b.W, b.H}
	pos := [4]float64{b.X + b.W/2, b.Y + b.H/2, b.W, b.H}
	for i := range f {
		sp, sv := 2*stdPosition*scale[i], initVelocity*scale[i]
		f[i] = axis{x: pos[i], p00: sp * sp, p11: sv * sv}
	}
}

// predict advances the filter a frame; with still, the size stops
// changing (a track missing its detections keeps its last size, as
// ByteTrack's lost tracks do, instead of growing or shrinking away).
func (f *filter) predict(still bool) {
	if still {
		f[2].v, f[3].v = 0, 0
	}
	w, h := max(f[2].x, minSize), max(f[3].x, minSize)
	for i := range f {
		s := w
		if i%2 == 1 {
			s = h
		}
		q0, q1 := stdPosition*s, stdVelocity*s
		f[i].predict(q0*q0, q1*q1)
	}
}

// update corrects the filter with the detected box b.
func (f *filter) update(b Box) {
	w, h := max(f[2].x, minSize), max(f[3].x, minSize)
	z := [4]float64{b.X + b.W/2, b.Y + b.H/2, b.W, b.H}
	for i := range f {
		s := w
		if i%2 == 1 {
			s = h
		}
		r := stdPosition * s
		f[i].update(z[i], r*r)
	}
	if !f.finite() {
		f.init(b) // never from valid boxes; a filter is never left broken
	}
}

// box is the filter's box, clamped to finite values and a positive size.
func (f *filter) box() Box {
	w, h := f[2].x, f[3].x
	return clampBox(Box{X: f[0].x - w/2, Y: f[1].x - h/2, W: w, H: h})
}

// centreMahalanobis2 is the squared Mahalanobis distance of b's centre
// from the filter's, in the innovation covariance of a measurement.
func (f *filter) centreMahalanobis2(b Box) float64 {
	w, h := max(f[2].x, minSize), max(f[3].x, minSize)
	rx, ry := stdPosition*w, stdPosition*h
	dx, dy := b.X+b.W/2-f[0].x, b.Y+b.H/2-f[1].x
	return dx*dx/(f[0].p00+rx*rx) + dy*dy/(f[1].p00+ry*ry)
}

func (f *filter) finite() bool {
	for i := range f {
		a := &f[i]
		if math.IsNaN(a.x+a.v+a.p00+a.p01+a.p11) || math.IsInf(a.x+a.v+a.p00+a.p01+a.p11, 0) {
			return false
		}
	}
	return true
}
