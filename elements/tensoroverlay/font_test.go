package tensoroverlay_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
)

// The font has a glyph for every printable ASCII character: no two
// alike (a label reads as written), each drawing something but the
// space, within 5 columns; characters outside draw as the placeholder
// box, which is none of them (not a '?' a label may really hold).
func TestTensorOverlayFont(t *testing.T) {
	glyph := func(c byte) (g [7]uint8) {
		for r := range g {
			g[r] = tensoroverlay.GlyphRow(c, r)
		}
		return g
	}
	seen := map[[7]uint8]byte{}
	for c := byte(32); c <= 126; c++ {
		g := glyph(c)
		lit := 0
		for _, row := range g {
			if row&^0x1f != 0 {
				t.Errorf("%q: row %05b wider than 5 columns", c, row)
			}
			for ; row != 0; row &= row - 1 {
				lit++
			}
		}
		if (lit == 0) != (c == ' ') {
			t.Errorf("%q: %d pixels", c, lit)
		}
		if d, ok := seen[g]; ok {
			t.Errorf("%q and %q are the same glyph", c, d)
		}
		seen[g] = c
	}
	box := [7]uint8{0x1f, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1f}
	if c, ok := seen[box]; ok {
		t.Errorf("the placeholder box is %q's glyph", c)
	}
	for _, c := range []byte{0, 31, 127, 200} {
		if glyph(c) != box {
			t.Errorf("character %d is not drawn as the placeholder box", c)
		}
	}
}
