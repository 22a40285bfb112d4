package decode

import (
	"fmt"
	"math"
)

// Transform says how a frame was mapped into the model's input, so that
// what the model found is put back into the frame:
//
//	model_x = frame_x × ScaleX + OffsetX,  frame_x = (model_x − OffsetX) / ScaleX
//	model_y = frame_y × ScaleY + OffsetY,  frame_y = (model_y − OffsetY) / ScaleY
//
// Identity is the model input taken as the frame; Letterbox is an
// aspect-preserving resize with equal scales and centred padding (the
// offsets); Stretch is a resize to the input's size. Results are clipped
// to the frame, FrameWidth × FrameHeight.
type Transform struct {
	// InputWidth and InputHeight are the model input's size in pixels:
	// what normalized coordinates (SSD's boxes, a normalized YOLO
	// output) and a probability map's cells are scaled to.
	InputWidth, InputHeight int
	// FrameWidth and FrameHeight are the frame's size in pixels: the
	// clip rectangle, and classify's whole-frame box.
	FrameWidth, FrameHeight int
	ScaleX, ScaleY          float64
	OffsetX, OffsetY        float64
}

// Identity is the transform of a frame that is the model input:
// width × height both, scale 1, no offset.
func Identity(width, height int) Transform {
	return Transform{InputWidth: width, InputHeight: height, FrameWidth: width, FrameHeight: height, ScaleX: 1, ScaleY: 1}
}

// Stretch is the transform of a frame resized to the input's size (each
// axis scaled on its own).
func Stretch(frameWidth, frameHeight, inputWidth, inputHeight int) Transform {
	return Transform{InputWidth: inputWidth, InputHeight: inputHeight, FrameWidth: frameWidth, FrameHeight: frameHeight,
		ScaleX: float64(inputWidth) / float64(frameWidth), ScaleY: float64(inputHeight) / float64(frameHeight)}
}

// Letterbox is the transform of a frame resized into the input keeping
// its aspect ratio — one scale, the smaller of the two — and centred,
// the rest padded (YOLO's and many detectors' preprocessing). A
// preprocessing that rounds the resized size or the padding to whole
// pixels differs by under a pixel; build the Transform from its own
// numbers to be exact.
func Letterbox(frameWidth, frameHeight, inputWidth, inputHeight int) Transform {
	s := math.Min(float64(inputWidth)/float64(frameWidth), float64(inputHeight)/float64(frameHeight))
	return Transform{InputWidth: inputWidth, InputHeight: inputHeight, FrameWidth: frameWidth, FrameHeight: frameHeight,
		ScaleX: s, ScaleY: s,
		OffsetX: (float64(inputWidth) - float64(frameWidth)*s) / 2, OffsetY: (float64(inputHeight) - float64(frameHeight)*s) / 2}
}

// Validate reports a transform that maps nothing: a size that is not
// positive, a scale that is not positive and finite, an offset that is
// not finite.
func (t Transform) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if t.InputWidth <= 0 || t.InputHeight <= 0 || t.FrameWidth <= 0 || t.FrameHeight <= 0 ||
		!finite(t.ScaleX) || !finite(t.ScaleY) || t.ScaleX <= 0 || t.ScaleY <= 0 || !finite(t.OffsetX) || !finite(t.OffsetY) {
		return fmt.Errorf("decode: transform %+v: sizes and scales must be positive, offsets finite: %w", t, ErrTransform)
	}
	return nil
}

// ToFrame maps a point of the model input to the frame (not clipped).
func (t Transform) ToFrame(x, y float64) (float64, float64) {
	return (x - t.OffsetX) / t.ScaleX, (y - t.OffsetY) / t.ScaleY
}

// box maps the model-input rectangle [x0, x1) × [y0, y1) to the frame
// and clips it there; ok is false when nothing of it is left (it lies in
// the padding, or outside the input) or a coordinate is not a number or
// is infinite once mapped.
func (t Transform) box(x0, y0, x1, y1 float64) (b Box, ok bool) {
	fx0, fy0 := t.ToFrame(x0, y0)
	fx1, fy1 := t.ToFrame(x1, y1)
	// An edge mapped past float64 (a scale near 0) would clip to the
	// frame's: no box of a value that is none (a NaN fails below).
	if math.IsInf(fx0, 0) || math.IsInf(fy0, 0) || math.IsInf(fx1, 0) || math.IsInf(fy1, 0) {
		return Box{}, false
	}
	fx0, fx1 = max(fx0, 0), min(fx1, float64(t.FrameWidth))
	fy0, fy1 = max(fy0, 0), min(fy1, float64(t.FrameHeight))
	// Written so that NaN fails: every comparison with NaN is false.
	if !(fx1 > fx0) || !(fy1 > fy0) {
		return Box{}, false
	}
	return Box{X: fx0, Y: fy0, W: fx1 - fx0, H: fy1 - fy0}, true
}

// Box is a rectangle in frame pixels: its top-left corner and size.
type Box struct {
	X, Y, W, H float64
}

// Pixels rounds the box's edges to the nearest whole pixel (halves up)
// and returns the corner and size of the result: what a
// GstVideoRegionOfInterestMeta holds. A box narrower than a pixel may
// round to width 0.
func (b Box) Pixels() (x, y, w, h int) {
	round := func(v float64) int { return int(math.Floor(v + 0.5)) }
	x, y = round(b.X), round(b.Y)
	return x, y, round(b.X+b.W) - x, round(b.Y+b.H) - y
}

// Object is one thing a decoder found, in frame coordinates.
type Object struct {
	Box Box
	// ClassID is the class's index in the model's output (map-boxes: 0).
	ClassID int
	// Label is the labels' line ClassID ("" without one).
	Label string
	// Confidence is the score the object was kept for: the class's
	// probability (classify, after softmax when asked), SSD's score,
	// YOLO's objectness × class score (v5) or class score (v8), a map
	// component's mean probability.
	Confidence float64
}
