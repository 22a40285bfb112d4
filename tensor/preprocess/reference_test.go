package preprocess

import (
	"math"
	"strings"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// The reference: the arithmetic doc.go specifies, written again pixel by
// pixel with no tables and no C — each output value from its four
// source pixels, each source pixel decoded from the frame's bytes on its
// own. It shares no code with the pass beyond Config's types.

// refLayout says where a format's pixel lies: packed formats read the
// byte positions of R, G and B from the format's name ("xRGB": 4 bytes,
// R at 1), independently of the package's format table.
func refPacked(f Format) (bpp int, pos [3]int) {
	name := string(f)
	return len(name), [3]int{strings.IndexByte(name, 'R'), strings.IndexByte(name, 'G'), strings.IndexByte(name, 'B')}
}

func refClamp(v int) int { return min(max(v, 0), 255) }

// refRGB returns the red, green and blue of source pixel (x, y).
func refRGB(c Config, src []byte, x, y int) [3]int {
	st, off := c.SrcStrides, c.SrcOffsets
	switch c.SrcFormat {
	case NV12, I420:
		Y := int(src[off[0]+y*st[0]+x])
		var U, V int
		if c.SrcFormat == NV12 {
			U = int(src[off[1]+(y/2)*st[1]+2*(x/2)])
			V = int(src[off[1]+(y/2)*st[1]+2*(x/2)+1])
		} else {
			U = int(src[off[1]+(y/2)*st[1]+x/2])
			V = int(src[off[2]+(y/2)*st[2]+x/2])
		}
		// BT.601 limited range in 1/4096ths, rounded, floored, clamped.
		yy := 4769*(Y-16) + 2048
		r := (yy + 6537*(V-128)) >> 12
		g := (yy - 1605*(U-128) - 3330*(V-128)) >> 12
		b := (yy + 8263*(U-128)) >> 12
		return [3]int{refClamp(r), refClamp(g), refClamp(b)}
	}
	bpp, pos := refPacked(c.SrcFormat)
	p := off[0] + y*st[0] + x*bpp
	return [3]int{int(src[p+pos[0]]), int(src[p+pos[1]]), int(src[p+pos[2]])}
}

// refContent places the resized frame: the whole tensor, or the
// letterbox's rounded size centred.
func refContent(c Config) (cx, cy, cw, ch int) {
	if c.Resize != ResizeLetterbox {
		return 0, 0, c.DstWidth, c.DstHeight
	}
	s := math.Min(float64(c.DstWidth)/float64(c.SrcWidth), float64(c.DstHeight)/float64(c.SrcHeight))
	cw = int(math.Round(float64(c.SrcWidth) * s))
	ch = int(math.Round(float64(c.SrcHeight) * s))
	cw, ch = min(max(cw, 1), c.DstWidth), min(max(ch, 1), c.DstHeight)
	return (c.DstWidth - cw) / 2, (c.DstHeight - ch) / 2, cw, ch
}

// refTap is one axis's sampling of resized pixel d of n over src pixels.
func refTap(d, n, src int) (a, b, wa, wb int) {
	s := float64((float64(d)+0.5)*(float64(src)/float64(n))) - 0.5
	if s < 0 {
		s = 0
	}
	if s > float64(src-1) {
		s = float64(src - 1)
	}
	a = int(math.Floor(s))
	b = a + 1
	if b > src-1 {
		b = src - 1
	}
	wb = int(math.Floor(float64((s-float64(a))*2048) + 0.5))
	return a, b, 2048 - wb, wb
}

// refValues returns the tensor's values, channel-major ([3][H][W],
// channel c the colour ChannelOrder puts there), as float64: uint8
// tensors' rounded integers, float32 tensors' exact normalised values.
func refValues(c Config, src []byte) [3][]float64 {
	cx, cy, cw, ch := refContent(c)
	return refImage(c, src, [4]int{0, 0, c.SrcWidth, c.SrcHeight}, c.DstWidth, c.DstHeight, [4]int{cx, cy, cw, ch})
}

// refImage is refValues for the frame's rectangle rect (x, y, w, h)
// resized into the content rectangle content (x, y, w, h) of a W×H
// image: each source pixel decoded from the whole frame at its own
// place (a region at an odd column of a YUV frame shares its first
// chroma sample with the pixel before it).
func refImage(c Config, src []byte, rect [4]int, W, H int, content [4]int) [3][]float64 {
	cx, cy, cw, ch := content[0], content[1], content[2], content[3]
	colour := [3]int{0, 1, 2}
	if c.ChannelOrder == OrderBGR {
		colour = [3]int{2, 1, 0}
	}
	norm := func(col int, pixel float64) float64 {
		if c.Std != [3]float32{} || c.Mean != [3]float32{} {
			return (pixel/255 - float64(c.Mean[col])) / float64(c.Std[col])
		}
		return pixel*float64(c.Scale[col]) + float64(c.Offset[col])
	}
	var out [3][]float64
	for k := range 3 {
		out[k] = make([]float64, W*H)
	}
	for y := range H {
		for x := range W {
			inside := x >= cx && x < cx+cw && y >= cy && y < cy+ch
			var px [3]float64
			if !inside {
				for k := range 3 {
					if c.DstType == tensor.U8 {
						px[k] = math.Floor(float64(c.PadValue) + 0.5)
					} else {
						px[k] = norm(colour[k], float64(c.PadValue))
					}
				}
			} else {
				x0, x1, wx0, wx1 := refTap(x-cx, cw, rect[2])
				y0, y1, wy0, wy1 := refTap(y-cy, ch, rect[3])
				x0, x1, y0, y1 = x0+rect[0], x1+rect[0], y0+rect[1], y1+rect[1]
				p00, p01 := refRGB(c, src, x0, y0), refRGB(c, src, x1, y0)
				p10, p11 := refRGB(c, src, x0, y1), refRGB(c, src, x1, y1)
				for k := range 3 {
					col := colour[k]
					v := int64(wy0)*int64(wx0*p00[col]+wx1*p01[col]) + int64(wy1)*int64(wx0*p10[col]+wx1*p11[col])
					if c.DstType == tensor.U8 {
						px[k] = float64((v + 1<<21) >> 22)
					} else {
						px[k] = norm(col, float64(v)/(1<<22))
					}
				}
			}
			for k := range 3 {
				out[k][y*W+x] = px[k]
			}
		}
	}
	return out
}

// refIndex is the element index of channel k at (x, y) in the layout.
func refIndex(c Config, k, x, y int) int {
	if c.DstLayout == NHWC {
		return (y*c.DstWidth+x)*3 + k
	}
	return k*c.DstWidth*c.DstHeight + y*c.DstWidth + x
}
