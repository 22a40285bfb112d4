package preprocess

import (
	"errors"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// guarded returns n bytes of memory that abut an inaccessible page at
// their end (atEnd) or at their start, so that the pass reading or
// writing one byte past the slice faults instead of going unnoticed.
func guarded(t testing.TB, n int, atEnd bool) []byte {
	t.Helper()
	page := unix.Getpagesize()
	data := (n + page - 1) / page * page
	m, err := unix.Mmap(-1, 0, data+2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(m) })
	if err := unix.Mprotect(m[:page], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mprotect(m[page+data:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if atEnd {
		return m[page+data-n : page+data : page+data]
	}
	return m[page : page+n : page+n]
}

// FuzzPlan: any config and any slice lengths — NewPlan refuses or
// plans, Run refuses short slices (ErrShort) or converts, and never
// touches a byte outside its slices (guard pages fault); a uint8 tensor
// it writes equals the reference.
func FuzzPlan(f *testing.F) {
	// shape: element type (bits 0-1: uint8, float32, invalid), layout
	// (bits 2-3: invalid, NCHW, NHWC), BGR (bit 4), resize (bits 5-6:
	// invalid, none, stretch, letterbox).
	f.Add(uint8(10), uint16(7), uint16(5), uint16(9), uint16(4), uint8(0x78), uint8(3), int8(0), int8(0), uint64(1))
	f.Add(uint8(11), uint16(33), uint16(17), uint16(16), uint16(16), uint8(0x45), uint8(0x1b), int8(0), int8(0), uint64(2))
	f.Add(uint8(2), uint16(40), uint16(30), uint16(40), uint16(30), uint8(0x24), uint8(0), int8(0), int8(-1), uint64(3))
	f.Add(uint8(0), uint16(1), uint16(1), uint16(64), uint16(3), uint8(0x79), uint8(0x0d), int8(3), int8(5), uint64(4))
	f.Add(uint8(6), uint16(50), uint16(2), uint16(5), uint16(50), uint8(0x54), uint8(3), int8(-1), int8(0), uint64(5))
	f.Add(uint8(11), uint16(9), uint16(9), uint16(9), uint16(9), uint8(0x28), uint8(0), int8(0), int8(0), uint64(6))
	f.Add(uint8(10), uint16(13), uint16(11), uint16(8), uint16(8), uint8(0x79), uint8(1), int8(0), int8(0), uint64(3<<40|1<<48|8))
	f.Add(uint8(99), uint16(0), uint16(70000&0xffff), uint16(1), uint16(1), uint8(0xff), uint8(255), int8(-128), int8(127), uint64(7))
	f.Fuzz(func(t *testing.T, format uint8, sw, sh, dw, dh uint16, shape, pad uint8, srcDelta, dstDelta int8, seed uint64) {
		c := Config{SrcWidth: int(sw), SrcHeight: int(sh), DstWidth: int(dw), DstHeight: int(dh), PadValue: 114}
		// Sizes beyond a hundred pixels add time, not cases: fold them
		// (0 stays 0, an error case).
		for _, d := range []*int{&c.SrcWidth, &c.SrcHeight, &c.DstWidth, &c.DstHeight} {
			if *d > 96 {
				*d = 1 + *d%96
			}
		}
		fs := Formats()
		if int(format) < len(fs) {
			c.SrcFormat = fs[format]
		} else {
			c.SrcFormat = Format([]string{"", "YUY2", "rgb", "GRAY8"}[int(format)%4])
		}
		c.DstType = []tensor.DType{tensor.U8, tensor.F32, 0, tensor.I8}[shape&3]
		c.DstLayout = Layout(shape >> 2 & 3)
		c.ChannelOrder = OrderRGB + ChannelOrder(shape>>4&1)
		c.Resize = Resize(shape >> 5 & 3)
		if c.DstType == tensor.F32 {
			c.Mean, c.Std = imagenet.mean, imagenet.std
		}
		// The colorimetry from the seed's high bits (0 and up: an invalid
		// matrix or range is ErrConfig).
		c.Matrix, c.Range = ColorMatrix(seed>>40%6), ColorRange(seed>>48%3)
		// pad: strides with padding (bit 0), offsets with gaps (bit 1),
		// a stride too short (bit 2), the tensor at the start of its
		// memory rather than the end (bit 3).
		if fi, ok := formats[c.SrcFormat]; ok && c.SrcWidth > 0 && c.SrcHeight > 0 && pad&7 != 0 {
			c.SrcStrides, c.SrcOffsets = make([]int, fi.planes), make([]int, fi.planes)
			at := 0
			for i := range fi.planes {
				rows, rb := planeBytes(c.SrcFormat, fi, i, c.SrcWidth, c.SrcHeight)
				c.SrcStrides[i] = rb + int(pad&1)*(1+int(pad>>4))
				if pad&4 != 0 {
					c.SrcStrides[i] = rb - 1
				}
				at += int(pad&2) * 3
				c.SrcOffsets[i] = at
				at += c.SrcStrides[i] * rows
			}
		}
		p, err := NewPlan(c)
		if err != nil {
			if !errors.Is(err, ErrConfig) && !errors.Is(err, ErrFormat) {
				t.Fatalf("%+v: %v wraps neither ErrConfig nor ErrFormat", c, err)
			}
			return
		}
		defer p.Close()
		srcLen, dstLen := max(p.SrcSize()+int(srcDelta), 0), max(p.DstSize()+int(dstDelta), 0)
		atEnd := pad&8 == 0
		if atEnd && c.DstType == tensor.F32 {
			dstLen &^= 3 // a float tensor ending at the page starts 4-aligned (TestRunChecks tests ErrAlign)
		}
		src, dst := guarded(t, srcLen, atEnd), guarded(t, dstLen, atEnd)
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		for i := range src {
			src[i] = byte(rng.IntN(256))
		}
		err = p.Run(dst, src)
		short := srcLen < p.SrcSize() || dstLen < p.DstSize()
		switch {
		case short && !errors.Is(err, ErrShort):
			t.Fatalf("%+v with %d/%d bytes: %v, want ErrShort", c, srcLen, dstLen, err)
		case !short && err != nil:
			t.Fatalf("%+v: %v", c, err)
		case !short && c.DstType == tensor.U8:
			want := refValues(p.Config(), src)
			cfg := p.Config()
			for k := range 3 {
				for y := range cfg.DstHeight {
					for x := range cfg.DstWidth {
						if g, w := float64(dst[refIndex(cfg, k, x, y)]), want[k][y*cfg.DstWidth+x]; g != w {
							t.Fatalf("%+v: channel %d (%d,%d): %v, reference %v", cfg, k, x, y, g, w)
						}
					}
				}
			}
		}
	})
}
