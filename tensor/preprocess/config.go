package preprocess

import (
	"fmt"
	"math"
	"strings"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Format is a source video format, named as GStreamer's video/x-raw
// caps name it.
type Format string

// The formats the pass reads: packed 3- and 4-byte RGB orders (x is a
// byte the pass skips, A an alpha it ignores) and the 4:2:0 planar YUV
// formats cameras and decoders produce.
const (
	RGB  Format = "RGB"
	BGR  Format = "BGR"
	RGBx Format = "RGBx"
	BGRx Format = "BGRx"
	XRGB Format = "xRGB"
	XBGR Format = "xBGR"
	RGBA Format = "RGBA"
	BGRA Format = "BGRA"
	ARGB Format = "ARGB"
	ABGR Format = "ABGR"
	NV12 Format = "NV12"
	I420 Format = "I420"
)

// formatInfo says how a format's bytes hold a pixel: packed formats
// have bpp bytes a pixel with red, green and blue at rgb[0..2]; NV12 has
// 2 planes, I420 3.
type formatInfo struct {
	planes int
	bpp    int
	rgb    [3]int
}

var formats = map[Format]formatInfo{
	RGB:  {1, 3, [3]int{0, 1, 2}},
	BGR:  {1, 3, [3]int{2, 1, 0}},
	RGBx: {1, 4, [3]int{0, 1, 2}},
	RGBA: {1, 4, [3]int{0, 1, 2}},
	BGRx: {1, 4, [3]int{2, 1, 0}},
	BGRA: {1, 4, [3]int{2, 1, 0}},
	XRGB: {1, 4, [3]int{1, 2, 3}},
	ARGB: {1, 4, [3]int{1, 2, 3}},
	XBGR: {1, 4, [3]int{3, 2, 1}},
	ABGR: {1, 4, [3]int{3, 2, 1}},
	NV12: {planes: 2},
	I420: {planes: 3},
}

// Formats returns every format the pass reads, packed ones first.
func Formats() []Format {
	return []Format{RGB, BGR, RGBx, BGRx, XRGB, XBGR, RGBA, BGRA, ARGB, ABGR, NV12, I420}
}

// Layout is the order of a tensor's dimensions. The zero Layout is
// invalid, so that a forgotten field is an error.
type Layout uint8

const (
	NCHW Layout = iota + 1 // [1 3 H W]: one plane per channel
	NHWC                   // [1 H W 3]: channels interleaved
)

// layoutNames are the names String gives, by value.
var layoutNames = [...]string{
	NCHW: "NCHW",
	NHWC: "NHWC",
}

func (l Layout) String() string {
	if uint64(l) < uint64(len(layoutNames)) && layoutNames[l] != "" {
		return layoutNames[l]
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// ChannelOrder is the colour of the tensor's channels 0, 1, 2. The zero
// ChannelOrder is invalid.
type ChannelOrder uint8

const (
	OrderRGB ChannelOrder = iota + 1
	OrderBGR
)

// channelOrderNames are the names String gives, by value.
var channelOrderNames = [...]string{
	OrderRGB: "rgb",
	OrderBGR: "bgr",
}

func (o ChannelOrder) String() string {
	if uint64(o) < uint64(len(channelOrderNames)) && channelOrderNames[o] != "" {
		return channelOrderNames[o]
	}
	return fmt.Sprintf("ChannelOrder(%d)", uint8(o))
}

// Resize is how the frame is fitted into the tensor's width and height.
// The zero Resize is invalid.
type Resize uint8

const (
	// ResizeNone: the frame has the tensor's size (else NewPlan fails).
	ResizeNone Resize = iota + 1
	// ResizeStretch: each axis scaled on its own to the tensor's size.
	ResizeStretch
	// ResizeLetterbox: one scale keeping the aspect ratio, the resized
	// frame centred, the rest filled with the pad value.
	ResizeLetterbox
)

// resizeNames are the names String gives, by value.
var resizeNames = [...]string{
	ResizeNone:      "none",
	ResizeStretch:   "stretch",
	ResizeLetterbox: "letterbox",
}

func (r Resize) String() string {
	if uint64(r) < uint64(len(resizeNames)) && resizeNames[r] != "" {
		return resizeNames[r]
	}
	return fmt.Sprintf("Resize(%d)", uint8(r))
}

// ColorMatrix is the Y'CbCr matrix NV12 and I420 frames were encoded
// with, as GStreamer's GstVideoColorMatrix names it (a caps'
// colorimetry): its Kr and Kb weights of red and blue in luma. The zero
// ColorMatrix is BT.601, GStreamer's default for frames up to 576 lines
// and what the pass used before it read the caps.
type ColorMatrix uint8

const (
	MatrixBT601     ColorMatrix = iota // ITU-R BT.601: Kr 0.299, Kb 0.114
	MatrixBT709                        // ITU-R BT.709: Kr 0.2126, Kb 0.0722
	MatrixBT2020                       // ITU-R BT.2020 (non-constant luminance): Kr 0.2627, Kb 0.0593
	MatrixSMPTE240M                    // SMPTE 240M: Kr 0.212, Kb 0.087
	MatrixFCC                          // FCC (47 CFR 73.682): Kr 0.30, Kb 0.11
)

// matrixWeights are the matrices' luma weights of red and blue (Kr, Kb), as the
// standards give them (and gst_video_color_matrix_get_Kr_Kb).
var matrixWeights = map[ColorMatrix][2]float64{
	MatrixBT601:     {0.299, 0.114},
	MatrixBT709:     {0.2126, 0.0722},
	MatrixBT2020:    {0.2627, 0.0593},
	MatrixSMPTE240M: {0.212, 0.087},
	MatrixFCC:       {0.30, 0.11},
}

// colorMatrixNames are the names String gives, by value.
var colorMatrixNames = [...]string{
	MatrixBT601:     "bt601",
	MatrixBT709:     "bt709",
	MatrixBT2020:    "bt2020",
	MatrixSMPTE240M: "smpte240m",
	MatrixFCC:       "fcc",
}

func (m ColorMatrix) String() string {
	if uint64(m) < uint64(len(colorMatrixNames)) && colorMatrixNames[m] != "" {
		return colorMatrixNames[m]
	}
	return fmt.Sprintf("ColorMatrix(%d)", uint8(m))
}

// ColorRange is the range of NV12 and I420 samples. The zero ColorRange
// is limited range, GStreamer's default for YUV.
type ColorRange uint8

const (
	// RangeLimited: luma 16..235 and chroma 16..240 (GStreamer's
	// 16-235), as video codecs produce.
	RangeLimited ColorRange = iota
	// RangeFull: luma and chroma 0..255 (GStreamer's 0-255), as JPEG
	// decoders produce: every MJPEG camera through jpegdec.
	RangeFull
)

// colorRangeNames are the names String gives, by value.
var colorRangeNames = [...]string{
	RangeLimited: "16-235",
	RangeFull:    "0-255",
}

func (r ColorRange) String() string {
	if uint64(r) < uint64(len(colorRangeNames)) && colorRangeNames[r] != "" {
		return colorRangeNames[r]
	}
	return fmt.Sprintf("ColorRange(%d)", uint8(r))
}

// yuvWeights are the NV12/I420 conversion's weights in 1/4096ths
// (doc.go): luma's yk and y0 (the rounding's half less the range's black
// times yk), and chroma's share of red (rv), green (gu, gv) and blue (bu).
type yuvWeights struct{ yk, y0, rv, gu, gv, bu int32 }

// weightsOf works out the weights for a matrix and range: the inverse
// of the standard's encoding (E'Y = Kr E'R + Kg E'G + Kb E'B, E'Cb =
// (E'B − E'Y)/(2(1 − Kb)), E'Cr = (E'R − E'Y)/(2(1 − Kr))) — R = Y +
// 2(1 − Kr) Cr, B = Y + 2(1 − Kb) Cb, G = Y − 2Kb(1 − Kb)/Kg Cb −
// 2Kr(1 − Kr)/Kg Cr — with 8-bit samples scaled to 0..255 (limited: luma
// (Y' − 16) × 255/219, chroma (C − 128) × 255/224; full: (C − 128)),
// rounded half up.
func weightsOf(m ColorMatrix, r ColorRange) yuvWeights {
	kr, kb := matrixWeights[m][0], matrixWeights[m][1]
	kg := 1 - kr - kb
	ys, cs, black := 255.0/219, 255.0/224, int32(16)
	if r == RangeFull {
		ys, cs, black = 1, 1, 0
	}
	q := func(v float64) int32 { return int32(math.Floor(v*4096 + 0.5)) }
	w := yuvWeights{
		yk: q(ys),
		rv: q(2 * (1 - kr) * cs),
		gu: q(-2 * kb * (1 - kb) / kg * cs),
		gv: q(-2 * kr * (1 - kr) / kg * cs),
		bu: q(2 * (1 - kb) * cs),
	}
	w.y0 = 2048 - black*w.yk
	return w
}

// ParseColorMatrix reads GStreamer's names of a colorimetry's matrix
// (bt601, bt709, bt2020, smpte240m, fcc; case-insensitive).
func ParseColorMatrix(s string) (ColorMatrix, error) {
	for _, m := range []ColorMatrix{MatrixBT601, MatrixBT709, MatrixBT2020, MatrixSMPTE240M, MatrixFCC} {
		if strings.EqualFold(s, m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("%w: colour matrix %q: want bt601, bt709, bt2020, smpte240m or fcc", ErrConfig, s)
}

// ParseColorRange reads GStreamer's names of a colorimetry's range:
// "16-235" (limited) or "0-255" (full).
func ParseColorRange(s string) (ColorRange, error) {
	for _, r := range []ColorRange{RangeLimited, RangeFull} {
		if s == r.String() {
			return r, nil
		}
	}
	return 0, fmt.Errorf("%w: colour range %q: want 16-235 or 0-255", ErrConfig, s)
}

// ParseLayout, ParseChannelOrder and ParseResize read the names String
// returns (case-insensitive), for element properties and files.
func ParseLayout(s string) (Layout, error) {
	for _, l := range []Layout{NCHW, NHWC} {
		if strings.EqualFold(s, l.String()) {
			return l, nil
		}
	}
	return 0, fmt.Errorf("%w: layout %q: want NCHW or NHWC", ErrConfig, s)
}

// ParseChannelOrder reads "rgb" or "bgr".
func ParseChannelOrder(s string) (ChannelOrder, error) {
	for _, o := range []ChannelOrder{OrderRGB, OrderBGR} {
		if strings.EqualFold(s, o.String()) {
			return o, nil
		}
	}
	return 0, fmt.Errorf("%w: channel order %q: want rgb or bgr", ErrConfig, s)
}

// ParseResize reads "none", "stretch" or "letterbox".
func ParseResize(s string) (Resize, error) {
	for _, r := range []Resize{ResizeNone, ResizeStretch, ResizeLetterbox} {
		if strings.EqualFold(s, r.String()) {
			return r, nil
		}
	}
	return 0, fmt.Errorf("%w: resize %q: want none, stretch or letterbox", ErrConfig, s)
}

// MaxDim bounds every width and height: it keeps every index of the
// pass, and every sum of weighted samples, inside 32 bits.
const MaxDim = 16384

// Config describes one pass: the frame it reads and the tensor it
// writes. Mean, Std, Scale and Offset are indexed by colour — [0] red,
// [1] green, [2] blue — whatever ChannelOrder puts in the tensor's
// channel 0, so changing the order never means reordering them.
type Config struct {
	SrcFormat           Format
	SrcWidth, SrcHeight int
	// SrcStrides and SrcOffsets are the bytes between row starts and the
	// byte offset of each plane (1 for packed formats, 2 for NV12, 3 for
	// I420), as GstVideoInfo holds them. Nil takes GStreamer's defaults
	// for the size (gst_video_info_set_format's); nil offsets with given
	// strides put the planes one after another as GStreamer would.
	SrcStrides, SrcOffsets []int

	DstWidth, DstHeight int
	// DstType is tensor.U8 or tensor.F32.
	DstType      tensor.DType
	DstLayout    Layout
	ChannelOrder ChannelOrder
	Resize       Resize
	// PadValue fills the letterbox padding, in pixel units (0..255),
	// normalised as a pixel is; a uint8 tensor takes it rounded half up.
	PadValue float32

	// Matrix and Range say how NV12 and I420 frames hold colour (their
	// caps' colorimetry); packed RGB formats ignore them. The zero values
	// are BT.601 limited range.
	Matrix ColorMatrix
	Range  ColorRange

	// A float32 tensor takes one of two normalisations, per colour:
	//   Mean/Std:     value = (pixel/255 - Mean[c]) / Std[c]
	//   Scale/Offset: value = pixel*Scale[c] + Offset[c]
	// (Scale {1,1,1} keeps pixel values). A uint8 tensor takes neither.
	Mean, Std     [3]float32
	Scale, Offset [3]float32
}

// checked is a Config with its defaults filled in and what the plan
// needs worked out.
type checked struct {
	cfg      Config
	fi       formatInfo
	srcSize  int
	dstSize  int
	k, o     [3]float64 // per colour: value = pixel*k + o (float32 tensors)
	padU8    uint8
	geometry geometry
}

func finite32(v float32) bool {
	return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// defaultStrides returns GStreamer's strides and offsets for a frame of
// the format and size (video-info.c's fill_planes): rows rounded up to 4
// bytes, chroma planes after the luma plane of an even number of rows.
func defaultStrides(f Format, fi formatInfo, w, h int, strides []int) ([]int, []int) {
	switch f {
	case NV12:
		if strides == nil {
			strides = []int{roundUp(w, 4), roundUp(w, 4)}
		}
		return strides, []int{0, strides[0] * roundUp(h, 2)}
	case I420:
		if strides == nil {
			cs := roundUp(roundUp(w, 2)/2, 4)
			strides = []int{roundUp(w, 4), cs, cs}
		}
		u := strides[0] * roundUp(h, 2)
		return strides, []int{0, u, u + strides[1]*(roundUp(h, 2)/2)}
	}
	if strides == nil {
		strides = []int{roundUp(w*fi.bpp, 4)}
	}
	return strides, []int{0}
}

// planeBytes returns plane i's rows and the bytes a row of it holds.
func planeBytes(f Format, fi formatInfo, i, w, h int) (rows, rowBytes int) {
	switch {
	case f == NV12 && i == 1:
		return (h + 1) / 2, 2 * ((w + 1) / 2)
	case f == I420 && i > 0:
		return (h + 1) / 2, (w + 1) / 2
	case fi.planes > 1:
		return h, w
	}
	return h, w * fi.bpp
}

// check validates c and works out its plan's numbers; its errors name
// the field.
func check(c Config) (*checked, error) {
	fi, ok := formats[c.SrcFormat]
	if !ok {
		return nil, fmt.Errorf("%w: SrcFormat %q (reads %v)", ErrFormat, string(c.SrcFormat), Formats())
	}
	k := &checked{cfg: c, fi: fi}
	for _, d := range []struct {
		name string
		v    int
	}{{"SrcWidth", c.SrcWidth}, {"SrcHeight", c.SrcHeight}, {"DstWidth", c.DstWidth}, {"DstHeight", c.DstHeight}} {
		if d.v < 1 || d.v > MaxDim {
			return nil, fmt.Errorf("%w: %s %d: want 1..%d", ErrConfig, d.name, d.v, MaxDim)
		}
	}
	if c.SrcStrides != nil && len(c.SrcStrides) != fi.planes {
		return nil, fmt.Errorf("%w: SrcStrides %v: %s has %d plane(s)", ErrConfig, c.SrcStrides, c.SrcFormat, fi.planes)
	}
	if c.SrcOffsets != nil && len(c.SrcOffsets) != fi.planes {
		return nil, fmt.Errorf("%w: SrcOffsets %v: %s has %d plane(s)", ErrConfig, c.SrcOffsets, c.SrcFormat, fi.planes)
	}
	// Strides and offsets beyond 1<<40 are no frame anyone maps; the
	// bound keeps the size sums far from overflowing.
	const maxBytes = 1 << 40
	for i, s := range c.SrcStrides {
		_, rb := planeBytes(c.SrcFormat, fi, i, c.SrcWidth, c.SrcHeight)
		if s < rb || s > maxBytes {
			return nil, fmt.Errorf("%w: SrcStrides[%d] %d: a row of plane %d of %s %dx%d holds %d bytes",
				ErrConfig, i, s, i, c.SrcFormat, c.SrcWidth, c.SrcHeight, rb)
		}
	}
	for i, o := range c.SrcOffsets {
		if o < 0 || o > maxBytes {
			return nil, fmt.Errorf("%w: SrcOffsets[%d] %d: want 0..2^40", ErrConfig, i, o)
		}
	}
	strides, offsets := defaultStrides(c.SrcFormat, fi, c.SrcWidth, c.SrcHeight, c.SrcStrides)
	if c.SrcOffsets != nil {
		offsets = c.SrcOffsets
	}
	k.cfg.SrcStrides, k.cfg.SrcOffsets = append([]int(nil), strides...), append([]int(nil), offsets...)
	for i := range fi.planes {
		rows, rb := planeBytes(c.SrcFormat, fi, i, c.SrcWidth, c.SrcHeight)
		k.srcSize = max(k.srcSize, offsets[i]+strides[i]*(rows-1)+rb)
	}

	switch c.DstType {
	case tensor.U8, tensor.F32:
	default:
		return nil, fmt.Errorf("%w: DstType %v: the pass writes uint8 or float32", ErrConfig, c.DstType)
	}
	k.dstSize = c.DstWidth * c.DstHeight * 3 * c.DstType.Size()
	if c.DstLayout != NCHW && c.DstLayout != NHWC {
		return nil, fmt.Errorf("%w: DstLayout %v: want NCHW or NHWC", ErrConfig, c.DstLayout)
	}
	if c.ChannelOrder != OrderRGB && c.ChannelOrder != OrderBGR {
		return nil, fmt.Errorf("%w: ChannelOrder %v: want OrderRGB or OrderBGR", ErrConfig, c.ChannelOrder)
	}
	g, err := contentRect(c.SrcWidth, c.SrcHeight, c.DstWidth, c.DstHeight, c.Resize)
	if err != nil {
		return nil, err
	}
	k.geometry = g
	if _, ok := matrixWeights[c.Matrix]; !ok {
		return nil, fmt.Errorf("%w: Matrix %v: want MatrixBT601, MatrixBT709, MatrixBT2020, MatrixSMPTE240M or MatrixFCC", ErrConfig, c.Matrix)
	}
	if c.Range != RangeLimited && c.Range != RangeFull {
		return nil, fmt.Errorf("%w: Range %v: want RangeLimited or RangeFull", ErrConfig, c.Range)
	}
	if !finite32(c.PadValue) || c.PadValue < 0 || c.PadValue > 255 {
		return nil, fmt.Errorf("%w: PadValue %v: want 0..255 (pixel units)", ErrConfig, c.PadValue)
	}
	if err := k.normalisation(); err != nil {
		return nil, err
	}
	return k, nil
}

// normalisation checks the normalisation fields against the element
// type and works out k and o.
func (k *checked) normalisation() error {
	c := k.cfg
	var zero [3]float32
	meanStd := c.Mean != zero || c.Std != zero
	scaleOff := c.Scale != zero || c.Offset != zero
	if c.DstType == tensor.U8 {
		if meanStd || scaleOff {
			return fmt.Errorf("%w: a uint8 tensor takes no normalisation (Mean %v Std %v Scale %v Offset %v)",
				ErrConfig, c.Mean, c.Std, c.Scale, c.Offset)
		}
		k.padU8 = uint8(math.Floor(float64(c.PadValue) + 0.5))
		return nil
	}
	switch {
	case meanStd && scaleOff:
		return fmt.Errorf("%w: Mean/Std %v/%v and Scale/Offset %v/%v both set: one normalisation",
			ErrConfig, c.Mean, c.Std, c.Scale, c.Offset)
	case meanStd:
		for i := range 3 {
			if !finite32(c.Mean[i]) || !finite32(c.Std[i]) || c.Std[i] == 0 {
				return fmt.Errorf("%w: Mean %v Std %v: finite, Std not 0", ErrConfig, c.Mean, c.Std)
			}
			k.k[i] = 1 / (255 * float64(c.Std[i]))
			k.o[i] = -float64(c.Mean[i]) / float64(c.Std[i])
		}
	case scaleOff:
		for i := range 3 {
			if !finite32(c.Scale[i]) || !finite32(c.Offset[i]) {
				return fmt.Errorf("%w: Scale %v Offset %v: finite", ErrConfig, c.Scale, c.Offset)
			}
			k.k[i], k.o[i] = float64(c.Scale[i]), float64(c.Offset[i])
		}
	default:
		return fmt.Errorf("%w: a float32 tensor needs Mean/Std (value = (pixel/255 - mean)/std) or Scale/Offset "+
			"(value = pixel*scale + offset; Scale {1,1,1} keeps pixel values)", ErrConfig)
	}
	return nil
}
