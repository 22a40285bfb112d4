package tensoroverlay_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
)

// The reference the tests compare the element's frames with: what the
// element documents it draws, written again in Go and per pixel (does
// this pixel belong to the outline, the label box, a glyph?) rather than
// as the C's rectangles, with colours converted by textbook formulas of
// their own. Only the font's bitmaps are shared with the C (GlyphRow):
// they are data, not drawing.

// params are the element's drawing properties.
type params struct {
	lineWidth, fontScale int
	color                uint32 // 0xAARRGGBB
	drawLabels           bool
}

var defaults = params{lineWidth: 2, fontScale: 2, color: tensoroverlay.DefaultColor, drawLabels: true}

// props is p as gst-launch properties.
func (p params) props() string {
	return fmt.Sprintf("line-width=%d font-scale=%d color=0x%08X draw-labels=%v", p.lineWidth, p.fontScale, p.color, p.drawLabels)
}

type argb struct{ a, r, g, b uint8 }

func colorOf(c uint32) argb {
	return argb{uint8(c >> 24), uint8(c >> 16), uint8(c >> 8), uint8(c)}
}

// op is one layer of the drawing: the pixels covers selects, painted
// with c.
type op struct {
	what   string
	c      argb
	covers func(x, y int) bool
}

// printable is s as the element draws it: a character the font lacks
// as the placeholder (byte 127: drawn as a box), at most max.
func printable(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, c := range s {
		if n == max {
			break
		}
		if c < 32 || c > 126 {
			c = 127
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}

// labelText is the label the element documents for r: "#id " when it is
// tracked, the detection's label (its type without one), a space and the
// confidence with two decimals (only the type without detection params);
// the name at most 48 characters.
func labelText(r gstglue.ROI) string {
	name := r.Label
	if name == "" {
		name = r.Type
	}
	var parts []string
	if r.Tracked {
		parts = append(parts, fmt.Sprintf("#%d", r.TrackID))
	}
	if name := printable(name, 48); name != "" {
		parts = append(parts, name)
	}
	if r.Detection {
		parts = append(parts, fmt.Sprintf("%.2f", r.Confidence))
	}
	return strings.Join(parts, " ")
}

// classText is the line the element documents for a classification:
// its label, else "class-N", a space and the confidence.
func classText(c gstglue.Classification) string {
	name := printable(c.Label, 48)
	if name == "" && c.ClassID >= 0 {
		name = fmt.Sprintf("class-%d", c.ClassID)
	}
	if name == "" {
		return fmt.Sprintf("%.2f", c.Confidence)
	}
	return fmt.Sprintf("%s %.2f", name, c.Confidence)
}

// visible: the element draws r on a w×h frame.
func visible(r gstglue.ROI, w, h int) bool {
	return r.W > 0 && r.H > 0 && int(r.X) < w && int(r.Y) < h
}

// labelBox is where the element documents r's label on a w-wide frame:
// 6s a character plus s, 9s high; above the box at its left edge, moved
// left to end at the frame's edge, into the box when there is no room
// above.
func labelBox(r gstglue.ROI, text string, s, w int) (x, y, lw, lh int) {
	lw, lh = len(text)*6*s+s, 9*s
	x, y = int(r.X), int(r.Y)-lh
	if x+lw > w {
		x = max(w-lw, 0)
	}
	if y < 0 {
		y = int(r.Y)
	}
	return x, y, lw, lh
}

// classBox is where the element documents line k of r's n classification
// lines on a w×h frame: under the box, a line each, moved up to end at
// the frame's bottom when they would leave it; across as a label.
func classBox(r gstglue.ROI, text string, k, n, s, w, h int) (x, y, lw, lh int) {
	lw, lh = len(text)*6*s+s, 9*s
	x, y = int(r.X), int(r.Y+r.H)
	if x+lw > w {
		x = max(w-lw, 0)
	}
	if y+n*lh > h {
		y = max(h-n*lh, 0)
	}
	return x, y + k*lh, lw, lh
}

// model returns the layers the element draws for rois on a w×h frame,
// in order: every outline, then for each region its label's box and
// glyphs and its classification lines' (four at most).
func model(rois []gstglue.Region, p params, w, h int) []op {
	var ops []op
	box := colorOf(p.color)
	for _, r := range rois {
		if !visible(r.ROI, w, h) {
			continue
		}
		x0, y0, x1, y1, t := int(r.X), int(r.Y), int(r.X+r.W), int(r.Y+r.H), p.lineWidth
		ops = append(ops, op{fmt.Sprintf("outline of %+v", r.ROI), box, func(x, y int) bool {
			inside := x >= x0 && x < x1 && y >= y0 && y < y1
			return inside && (x < x0+t || x >= x1-t || y < y0+t || y >= y1-t)
		}})
	}
	if !p.drawLabels {
		return ops
	}
	text := argb{255, 255, 255, 255}
	if 0.299*float64(box.r)+0.587*float64(box.g)+0.114*float64(box.b) >= 128 {
		text = argb{255, 0, 0, 0}
	}
	s := p.fontScale
	label := func(str string, lx, ly, lw, lh int) {
		ops = append(ops, op{fmt.Sprintf("label box %q", str), box, func(x, y int) bool {
			return x >= lx && x < lx+lw && y >= ly && y < ly+lh
		}})
		ops = append(ops, op{fmt.Sprintf("label text %q", str), text, func(x, y int) bool {
			gx, gy := x-lx-s, y-ly-s
			if gx < 0 || gy < 0 || gx/(6*s) >= len(str) || gy/s >= 7 {
				return false
			}
			col := gx % (6 * s) / s
			return col < 5 && tensoroverlay.GlyphRow(str[gx/(6*s)], gy/s)&(0x10>>col) != 0
		}})
	}
	for _, r := range rois {
		if !visible(r.ROI, w, h) {
			continue
		}
		if str := labelText(r.ROI); str != "" {
			lx, ly, lw, lh := labelBox(r.ROI, str, s, w)
			label(str, lx, ly, lw, lh)
		}
		n := min(len(r.Classifications), 4)
		for k, c := range r.Classifications[:n] {
			str := classText(c)
			lx, ly, lw, lh := classBox(r.ROI, str, k, n, s, w, h)
			label(str, lx, ly, lw, lh)
		}
	}
	return ops
}

// blend is the colour v over dst with coverage a, rounded.
func blend(v, dst, a uint8) float64 {
	return math.Round((float64(v)*float64(a) + float64(dst)*float64(255-a)) / 255)
}

// yuv converts c with the integer approximations of BT.601 or BT.709
// (limited range) that video texts give, or JFIF's full-range BT.601
// ("jpeg") — not the element's formula.
func yuv(c argb, matrix string) (y, u, v uint8) {
	r, g, b := int(c.r), int(c.g), int(c.b)
	if matrix == "jpeg" {
		fr, fg, fb := float64(r), float64(g), float64(b)
		f := func(x float64) uint8 { return uint8(math.Round(min(max(x, 0), 255))) }
		return f(0.299*fr + 0.587*fg + 0.114*fb), f(128 - 0.168736*fr - 0.331264*fg + 0.5*fb), f(128 + 0.5*fr - 0.418688*fg - 0.081312*fb)
	}
	k := [3][3]int{{66, 129, 25}, {-38, -74, 112}, {112, -94, -18}} // BT.601
	if matrix == "bt709" {
		k = [3][3]int{{47, 157, 16}, {-26, -87, 112}, {112, -102, -10}}
	}
	f := func(row [3]int, off int) uint8 { return uint8((row[0]*r+row[1]*g+row[2]*b+128)>>8 + off) }
	return f(k[0], 16), f(k[1], 128), f(k[2], 128)
}

// layout is where a format keeps a pixel's components: for packed RGB
// the byte of each of R, G, B, A ('x': padding) in a pixel's bytes.
var packed = map[string]string{
	"RGB": "RGB", "BGR": "BGR", "RGBx": "RGBx", "BGRx": "BGRx", "xRGB": "xRGB", "xBGR": "xBGR",
	"RGBA": "RGBA", "BGRA": "BGRA", "ARGB": "ARGB", "ABGR": "ABGR",
}

// expectation is the reference output of one frame: per byte its value
// and how far the element may be from it (0: exactly; every byte no
// layer covers must be unchanged).
type expectation struct {
	want, tol []byte
	what      []string // per byte, the last layer that painted it
}

// expect applies ops to the frame in (caps: format, w×h, layout from
// GStreamer's defaults) the way the element documents: every component
// of a covered pixel painted; a 4:2:0 chroma sample painted as the
// pixel at its top-left; matrix names the YUV conversion.
func expect(t *testing.T, caps string, in []byte, ops []op, matrix string) expectation {
	t.Helper()
	l, size := layoutOf(t, caps)
	if size != len(in) {
		t.Fatalf("%s: frame of %d bytes, caps say %d", caps, len(in), size)
	}
	return expectIn(t, l, in, ops, matrix)
}

// layoutOf is GStreamer's default layout of caps and its frame size.
func layoutOf(t *testing.T, caps string) (gstglue.VideoMeta, int) {
	t.Helper()
	c := gst.NewCapsFromString(caps)
	defer gstglue.ReleaseCaps(c)
	l, size, err := gstglue.CapsVideoLayout(c)
	if err != nil {
		t.Fatal(err)
	}
	return l, size
}

// expectIn is expect for a frame of layout l (a GstVideoMeta's).
func expectIn(t *testing.T, l gstglue.VideoMeta, in []byte, ops []op, matrix string) expectation {
	t.Helper()
	e := expectation{want: append([]byte(nil), in...), tol: make([]byte, len(in)), what: make([]string, len(in))}
	paint := func(off int, v uint8, o op, tol byte) {
		e.want[off] = uint8(blend(v, e.want[off], o.c.a))
		if o.c.a != 255 {
			tol++ // the element rounds its blend in integers
		}
		e.tol[off] = max(e.tol[off], tol)
		e.what[off] = o.what
	}
	if order, ok := packed[l.Format]; ok {
		for y := 0; y < l.Height; y++ {
			for x := 0; x < l.Width; x++ {
				px := l.Offsets[0] + y*l.Strides[0] + x*len(order)
				for _, o := range ops {
					if !o.covers(x, y) {
						continue
					}
					for i, comp := range order {
						switch comp {
						case 'R':
							paint(px+i, o.c.r, o, 0)
						case 'G':
							paint(px+i, o.c.g, o, 0)
						case 'B':
							paint(px+i, o.c.b, o, 0)
						case 'A':
							paint(px+i, 255, o, 0)
						}
					}
				}
			}
		}
		return e
	}
	// YUV 4:2:0: luma per pixel, chroma per 2×2 block from its top-left
	// pixel.
	for y := 0; y < l.Height; y++ {
		for x := 0; x < l.Width; x++ {
			for _, o := range ops {
				if !o.covers(x, y) {
					continue
				}
				Y, U, V := yuv(o.c, matrix)
				paint(l.Offsets[0]+y*l.Strides[0]+x, Y, o, 2)
				if x%2 != 0 || y%2 != 0 {
					continue
				}
				switch l.Format {
				case "NV12":
					uv := l.Offsets[1] + y/2*l.Strides[1] + x/2*2
					paint(uv, U, o, 2)
					paint(uv+1, V, o, 2)
				case "I420":
					paint(l.Offsets[1]+y/2*l.Strides[1]+x/2, U, o, 2)
					paint(l.Offsets[2]+y/2*l.Strides[2]+x/2, V, o, 2)
				default:
					t.Fatalf("no reference for %s", l.Format)
				}
			}
		}
	}
	return e
}

// check compares got with e and reports the first differences, each with
// its byte offset and the layer that should have painted it.
func (e expectation) check(t *testing.T, name string, got []byte) {
	t.Helper()
	if len(got) != len(e.want) {
		t.Fatalf("%s: %d bytes, want %d", name, len(got), len(e.want))
	}
	bad := 0
	for i := range got {
		d := int(got[i]) - int(e.want[i])
		if d < 0 {
			d = -d
		}
		if d <= int(e.tol[i]) {
			continue
		}
		if bad++; bad <= 8 {
			what := e.what[i]
			if what == "" {
				what = "nothing: must be untouched"
			}
			t.Errorf("%s: byte %d is %d, want %d±%d (%s)", name, i, got[i], e.want[i], e.tol[i], what)
		}
	}
	if bad > 8 {
		t.Errorf("%s: %d bytes differ in all", name, bad)
	}
}

// background is a frame of caps filled with one colour: per packed
// format the components' bytes (padding 0x5A, which must stay), per YUV
// plane its value.
func background(t *testing.T, caps string) []byte {
	t.Helper()
	l, size := layoutOf(t, caps)
	return backgroundIn(l, size)
}

// backgroundIn is background for a frame of size bytes in layout l; the
// bytes outside its planes are 0xC3.
func backgroundIn(l gstglue.VideoMeta, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = 0xC3 // row padding, gaps between planes: untouched too
	}
	if order, ok := packed[l.Format]; ok {
		val := map[rune]byte{'R': 0x20, 'G': 0x40, 'B': 0x60, 'A': 0x90, 'x': 0x5A}
		for y := 0; y < l.Height; y++ {
			for x := 0; x < l.Width; x++ {
				for i, comp := range order {
					b[l.Offsets[0]+y*l.Strides[0]+x*len(order)+i] = val[comp]
				}
			}
		}
		return b
	}
	cw, ch := (l.Width+1)/2, (l.Height+1)/2
	fill := func(plane, w, h, step int, v byte) {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				b[l.Offsets[plane]+y*l.Strides[plane]+x*step] = v
			}
		}
	}
	fill(0, l.Width, l.Height, 1, 0x50)
	switch l.Format {
	case "NV12":
		fill(1, cw, ch, 2, 0x60)
		for y := 0; y < ch; y++ {
			for x := 0; x < cw; x++ {
				b[l.Offsets[1]+y*l.Strides[1]+2*x+1] = 0xA0
			}
		}
	case "I420":
		fill(1, cw, ch, 1, 0x60)
		fill(2, cw, ch, 1, 0xA0)
	}
	return b
}
