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
		// The matrix and range's weights in 1/4096ths, rounded; the sum
		// rounded half up (+2048), floored, clamped.
		k, off := refYUVWeights(c.Matrix, c.Range)
		var rgb [3]int
		for i := range rgb {
			rgb[i] = refClamp((k[i][0]*(Y-off[0]) + k[i][1]*(U-off[1]) + k[i][2]*(V-off[2]) + 2048) >> 12)
		}
		return rgb
	}
	bpp, pos := refPacked(c.SrcFormat)
	p := off[0] + y*st[0] + x*bpp
	return [3]int{int(src[p+pos[0]]), int(src[p+pos[1]]), int(src[p+pos[2]])}
}

// refKrKb are the luma weights of red and blue each standard defines
// its Y'CbCr with (E'Y = Kr E'R + (1 - Kr - Kb) E'G + Kb E'B): ITU-R
// BT.601-7 §2.5.1, BT.709-6 item 3.2, BT.2020-2 table 4 (non-constant
// luminance), SMPTE 240M-1999 §7.1, and the FCC's NTSC (47 CFR 73.682).
var refKrKb = map[ColorMatrix][2]float64{
	MatrixBT601:     {0.299, 0.114},
	MatrixBT709:     {0.2126, 0.0722},
	MatrixBT2020:    {0.2627, 0.0593},
	MatrixSMPTE240M: {0.212, 0.087},
	MatrixFCC:       {0.30, 0.11},
}

// refYUVToRGB returns, for a standard's Kr and Kb and a range, the
// matrix m and offsets off with R, G, B (0..255) = m × (Y'-off[0],
// Cb-off[1], Cr-off[2]) in real numbers: the standard's encoding (E'Y as
// above, E'Cb = (E'B - E'Y)/(2(1 - Kb)), E'Cr = (E'R - E'Y)/(2(1 - Kr));
// 8-bit limited range Y' = 16 + 219 E'Y, C = 128 + 224 E'C, full range
// Y' = 255 E'Y, C = 128 + 255 E'C) written as a matrix and inverted
// numerically — not the closed forms the package uses.
func refYUVToRGB(m ColorMatrix, r ColorRange) (inv [3][3]float64, off [3]int) {
	kr, kb := refKrKb[m][0], refKrKb[m][1]
	kg := 1 - kr - kb
	ys, cs, yoff := 219.0, 224.0, 16
	if r == RangeFull {
		ys, cs, yoff = 255, 255, 0
	}
	// Rows: Y', Cb, Cr (less their offsets) from R, G, B in 0..255.
	enc := [3][3]float64{
		{kr, kg, kb},
		{-kr / (2 * (1 - kb)), -kg / (2 * (1 - kb)), (1 - kb) / (2 * (1 - kb))},
		{(1 - kr) / (2 * (1 - kr)), -kg / (2 * (1 - kr)), -kb / (2 * (1 - kr))},
	}
	for j, scale := range []float64{ys, cs, cs} {
		for i := range 3 {
			enc[j][i] *= scale / 255
		}
	}
	// The inverse by cofactors.
	det := enc[0][0]*(enc[1][1]*enc[2][2]-enc[1][2]*enc[2][1]) -
		enc[0][1]*(enc[1][0]*enc[2][2]-enc[1][2]*enc[2][0]) +
		enc[0][2]*(enc[1][0]*enc[2][1]-enc[1][1]*enc[2][0])
	for i := range 3 {
		for j := range 3 {
			a, b := [2]int{(j + 1) % 3, (j + 2) % 3}, [2]int{(i + 1) % 3, (i + 2) % 3}
			inv[i][j] = (enc[a[0]][b[0]]*enc[a[1]][b[1]] - enc[a[0]][b[1]]*enc[a[1]][b[0]]) / det
		}
	}
	return inv, [3]int{yoff, 128, 128}
}

// refYUVWeights is refYUVToRGB's matrix in 1/4096ths, rounded half up,
// as doc.go's fixed point has it.
func refYUVWeights(m ColorMatrix, r ColorRange) (k [3][3]int, off [3]int) {
	inv, off := refYUVToRGB(m, r)
	for i := range 3 {
		for j := range 3 {
			k[i][j] = int(math.Floor(inv[i][j]*4096 + 0.5))
		}
	}
	return k, off
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
