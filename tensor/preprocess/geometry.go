package preprocess

import (
	"fmt"
	"math"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// geometry is where the resized frame lies in the tensor: columns
// [cx, cx+cw), rows [cy, cy+ch); the rest is padding.
type geometry struct{ cx, cy, cw, ch int }

// contentRect places a sw x sh frame in a dw x dh tensor. Letterbox:
// s = min(dw/sw, dh/sh), the resized size sw*s x sh*s rounded half up
// (at least 1, at most the tensor's), centred with the odd pixel of
// padding at the right and bottom.
func contentRect(sw, sh, dw, dh int, r Resize) (geometry, error) {
	switch r {
	case ResizeNone:
		if sw != dw || sh != dh {
			return geometry{}, fmt.Errorf("%w: Resize none: the frame is %dx%d, the tensor %dx%d",
				ErrConfig, sw, sh, dw, dh)
		}
		return geometry{0, 0, dw, dh}, nil
	case ResizeStretch:
		return geometry{0, 0, dw, dh}, nil
	case ResizeLetterbox:
		s := math.Min(float64(dw)/float64(sw), float64(dh)/float64(sh))
		cw := min(max(int(math.Floor(float64(float64(sw)*s)+0.5)), 1), dw)
		ch := min(max(int(math.Floor(float64(float64(sh)*s)+0.5)), 1), dh)
		return geometry{(dw - cw) / 2, (dh - ch) / 2, cw, ch}, nil
	}
	return geometry{}, fmt.Errorf("%w: Resize %v: want ResizeNone, ResizeStretch or ResizeLetterbox", ErrConfig, r)
}

// transform is the decode.Transform of the geometry: model coordinates
// of the frame's pixel edges, from the resized size actually used (so
// that a box maps back exactly as the pass sampled).
func (g geometry) transform(sw, sh, dw, dh int) decode.Transform {
	return decode.Transform{
		InputWidth: dw, InputHeight: dh, FrameWidth: sw, FrameHeight: sh,
		ScaleX: float64(g.cw) / float64(sw), ScaleY: float64(g.ch) / float64(sh),
		OffsetX: float64(g.cx), OffsetY: float64(g.cy),
	}
}
