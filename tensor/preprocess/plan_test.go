package preprocess

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

func yoloConfig(f Format, w, h int) Config {
	return Config{SrcFormat: f, SrcWidth: w, SrcHeight: h, DstWidth: 640, DstHeight: 640,
		DstType: tensor.F32, DstLayout: NCHW, ChannelOrder: OrderRGB, Resize: ResizeLetterbox,
		PadValue: 114, Scale: [3]float32{1. / 255, 1. / 255, 1. / 255}}
}

func f32At(b []byte, i int) float32 { return math.Float32frombits(binary.NativeEndian.Uint32(b[4*i:])) }

// TestLetterbox1080p checks the geometry of 1920×1080 into 640×640
// against hand-computed numbers: scale 1/3, a 640×360 band at row 140,
// 140 rows of padding above and below, and a Transform that maps the
// band's corners to the frame's.
func TestLetterbox1080p(t *testing.T) {
	c := yoloConfig(RGBx, 1920, 1080)
	p, err := NewPlan(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if x, y, w, h := p.Content(); x != 0 || y != 140 || w != 640 || h != 360 {
		t.Fatalf("content (%d,%d) %dx%d, want (0,140) 640x360", x, y, w, h)
	}
	want := decode.Transform{InputWidth: 640, InputHeight: 640, FrameWidth: 1920, FrameHeight: 1080,
		ScaleX: 1. / 3, ScaleY: 1. / 3, OffsetX: 0, OffsetY: 140}
	if got := p.Transform(); got != want {
		t.Fatalf("transform %+v, want %+v", got, want)
	}
	for _, pt := range [][4]float64{{0, 140, 0, 0}, {640, 500, 1920, 1080}, {320, 320, 960, 540}} {
		if fx, fy := p.Transform().ToFrame(pt[0], pt[1]); math.Abs(fx-pt[2]) > 1e-9 || math.Abs(fy-pt[3]) > 1e-9 {
			t.Errorf("model (%v,%v) → frame (%v,%v), want (%v,%v)", pt[0], pt[1], fx, fy, pt[2], pt[3])
		}
	}

	// A white frame: the band is 1.0, the padding 114/255, row by row.
	src := bytes.Repeat([]byte{255}, p.SrcSize())
	dst := make([]byte, p.DstSize())
	if err := p.Run(dst, src); err != nil {
		t.Fatal(err)
	}
	pad := float32(114) * float32(1./255)
	for ch := range 3 {
		for y := range 640 {
			wantV, where := pad, "padding"
			if y >= 140 && y < 500 {
				wantV, where = 1, "band"
			}
			for x := range 640 {
				if v := f32At(dst, ch*640*640+y*640+x); math.Abs(float64(v-wantV)) > 1e-6 {
					t.Fatalf("channel %d (%d,%d) in the %s: %v, want %v", ch, x, y, where, v, wantV)
				}
			}
		}
	}
}

// TestLetterboxShapes checks the other hand-computed geometries: a
// portrait frame (bands left and right), a size that rounds, an odd
// padding (the odd pixel goes right/bottom), and stretch and none.
func TestLetterboxShapes(t *testing.T) {
	cases := []struct {
		sw, sh, dw, dh int
		r              Resize
		x, y, w, h     int
	}{
		{1080, 1920, 640, 640, ResizeLetterbox, 140, 0, 360, 640},
		{1000, 563, 640, 640, ResizeLetterbox, 0, 140, 640, 360},    // 563 × 0.64 = 360.32
		{1280, 720, 416, 416, ResizeLetterbox, 0, 91, 416, 234},     // 416 − 234 = 182
		{640, 481, 640, 640, ResizeLetterbox, 0, 79, 640, 481},      // 159 rows: 79 above, 80 below
		{100, 100, 300, 200, ResizeLetterbox, 50, 0, 200, 200},      // upscale
		{1920, 1080, 640, 640, ResizeStretch, 0, 0, 640, 640},       // stretch
		{64, 48, 64, 48, ResizeNone, 0, 0, 64, 48},                  // none
		{1, 1000, 640, 640, ResizeLetterbox, 319, 0, 1, 640},        // 0.64 wide: at least 1; 639 columns of padding, 319 left
		{3, 2, 2, 2, ResizeLetterbox, 0, 0, 2, 1},                   // 1.33 high: rounds to 1
		{7, 3, 5, 5, ResizeLetterbox, 0, 1, 5, 2},                   // 2.14 high
		{2, 7, 5, 5, ResizeLetterbox, 2, 0, 1, 5},                   // 1.43 wide
		{1920, 1080, 1920, 1080, ResizeLetterbox, 0, 0, 1920, 1080}, // no padding
	}
	for _, k := range cases {
		c := yoloConfig(RGB, k.sw, k.sh)
		c.DstWidth, c.DstHeight, c.Resize = k.dw, k.dh, k.r
		p, err := NewPlan(c)
		if err != nil {
			t.Fatalf("%+v: %v", k, err)
		}
		x, y, w, h := p.Content()
		if x != k.x || y != k.y || w != k.w || h != k.h {
			t.Errorf("%dx%d → %dx%d %v: content (%d,%d) %dx%d, want (%d,%d) %dx%d",
				k.sw, k.sh, k.dw, k.dh, k.r, x, y, w, h, k.x, k.y, k.w, k.h)
		}
		tr := p.Transform()
		if err := tr.Validate(); err != nil {
			t.Errorf("%+v: %v", k, err)
		}
		if tr.ScaleX != float64(k.w)/float64(k.sw) || tr.ScaleY != float64(k.h)/float64(k.sh) ||
			tr.OffsetX != float64(k.x) || tr.OffsetY != float64(k.y) {
			t.Errorf("%+v: transform %+v", k, tr)
		}
		p.Close()
	}
	// Stretch's and none's transforms are package decode's own.
	p, _ := NewPlan(Config{SrcFormat: RGB, SrcWidth: 1920, SrcHeight: 1080, DstWidth: 640, DstHeight: 640,
		DstType: tensor.U8, DstLayout: NHWC, ChannelOrder: OrderRGB, Resize: ResizeStretch})
	if got, want := p.Transform(), decode.Stretch(1920, 1080, 640, 640); got != want {
		t.Errorf("stretch transform %+v, want %+v", got, want)
	}
	p.Close()
	p, _ = NewPlan(Config{SrcFormat: RGB, SrcWidth: 64, SrcHeight: 48, DstWidth: 64, DstHeight: 48,
		DstType: tensor.U8, DstLayout: NHWC, ChannelOrder: OrderRGB, Resize: ResizeNone})
	if got, want := p.Transform(), decode.Identity(64, 48); got != want {
		t.Errorf("none transform %+v, want %+v", got, want)
	}
	p.Close()
}

// TestDefaultStrides compares the strides, offsets and sizes a Config
// without them gets with GstVideoInfo's for the same formats and sizes
// (gst_video_info_set_format, GStreamer 1.22).
func TestDefaultStrides(t *testing.T) {
	cases := []struct {
		f                Format
		w, h             int
		strides, offsets []int
		gstSize          int
	}{
		{RGB, 1920, 1080, []int{5760}, []int{0}, 6220800},
		{RGB, 5, 3, []int{16}, []int{0}, 48},
		{RGBx, 641, 361, []int{2564}, []int{0}, 925604},
		{NV12, 1920, 1080, []int{1920, 1920}, []int{0, 2073600}, 3110400},
		{NV12, 5, 3, []int{8, 8}, []int{0, 32}, 48},
		{NV12, 641, 361, []int{644, 644}, []int{0, 233128}, 349692},
		{I420, 1920, 1080, []int{1920, 960, 960}, []int{0, 2073600, 2592000}, 3110400},
		{I420, 5, 3, []int{8, 4, 4}, []int{0, 32, 40}, 48},
		{I420, 641, 361, []int{644, 324, 324}, []int{0, 233128, 291772}, 350416},
	}
	for _, k := range cases {
		p, err := NewPlan(Config{SrcFormat: k.f, SrcWidth: k.w, SrcHeight: k.h, DstWidth: k.w, DstHeight: k.h,
			DstType: tensor.U8, DstLayout: NCHW, ChannelOrder: OrderRGB, Resize: ResizeNone})
		if err != nil {
			t.Fatal(err)
		}
		c := p.Config()
		if !equalInts(c.SrcStrides, k.strides) || !equalInts(c.SrcOffsets, k.offsets) {
			t.Errorf("%s %dx%d: strides %v offsets %v, GStreamer's %v %v", k.f, k.w, k.h, c.SrcStrides, c.SrcOffsets, k.strides, k.offsets)
		}
		// The plan needs no more than GStreamer's buffer holds.
		if p.SrcSize() > k.gstSize {
			t.Errorf("%s %dx%d: needs %d bytes, GStreamer's frame is %d", k.f, k.w, k.h, p.SrcSize(), k.gstSize)
		}
		p.Close()
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBadConfigs: each config is refused with the sentinel and a text
// naming the problem.
func TestBadConfigs(t *testing.T) {
	good := yoloConfig(NV12, 1920, 1080)
	cases := []struct {
		name  string
		edit  func(*Config)
		is    error
		words string
	}{
		{"format", func(c *Config) { c.SrcFormat = "YUY2" }, ErrFormat, `SrcFormat "YUY2"`},
		{"no format", func(c *Config) { c.SrcFormat = "" }, ErrFormat, "SrcFormat"},
		{"width", func(c *Config) { c.SrcWidth = 0 }, ErrConfig, "SrcWidth 0"},
		{"height", func(c *Config) { c.DstHeight = MaxDim + 1 }, ErrConfig, "DstHeight 16385"},
		{"strides count", func(c *Config) { c.SrcStrides = []int{1920} }, ErrConfig, "SrcStrides [1920]: NV12 has 2 plane(s)"},
		{"offsets count", func(c *Config) { c.SrcOffsets = []int{0, 1, 2} }, ErrConfig, "SrcOffsets [0 1 2]"},
		{"short stride", func(c *Config) { c.SrcStrides = []int{1920, 1918} }, ErrConfig, "SrcStrides[1] 1918"},
		{"negative offset", func(c *Config) { c.SrcOffsets = []int{0, -4} }, ErrConfig, "SrcOffsets[1] -4"},
		{"dtype", func(c *Config) { c.DstType = tensor.F16 }, ErrConfig, "DstType float16"},
		{"no dtype", func(c *Config) { c.DstType = 0 }, ErrConfig, "DstType"},
		{"layout", func(c *Config) { c.DstLayout = 0 }, ErrConfig, "DstLayout"},
		{"order", func(c *Config) { c.ChannelOrder = 9 }, ErrConfig, "ChannelOrder"},
		{"resize", func(c *Config) { c.Resize = 0 }, ErrConfig, "Resize"},
		{"resize none", func(c *Config) { c.Resize = ResizeNone }, ErrConfig, "Resize none: the frame is 1920x1080, the tensor 640x640"},
		{"matrix", func(c *Config) { c.Matrix = 7 }, ErrConfig, "Matrix ColorMatrix(7)"},
		{"range", func(c *Config) { c.Range = 2 }, ErrConfig, "Range ColorRange(2)"},
		{"pad", func(c *Config) { c.PadValue = 256 }, ErrConfig, "PadValue 256"},
		{"pad NaN", func(c *Config) { c.PadValue = float32(math.NaN()) }, ErrConfig, "PadValue"},
		{"no normalisation", func(c *Config) { c.Scale = [3]float32{} }, ErrConfig, "needs Mean/Std"},
		{"both", func(c *Config) { c.Std = [3]float32{1, 1, 1} }, ErrConfig, "both set"},
		{"zero std", func(c *Config) { c.Scale = [3]float32{}; c.Std = [3]float32{0.2, 0, 0.2} }, ErrConfig, "Std not 0"},
		{"inf scale", func(c *Config) { c.Scale[1] = float32(math.Inf(1)) }, ErrConfig, "Scale"},
		{"uint8 normalised", func(c *Config) { c.DstType = tensor.U8 }, ErrConfig, "a uint8 tensor takes no normalisation"},
	}
	for _, k := range cases {
		c := good
		k.edit(&c)
		p, err := NewPlan(c)
		if err == nil {
			p.Close()
			t.Errorf("%s: accepted", k.name)
			continue
		}
		if !errors.Is(err, k.is) || !strings.Contains(err.Error(), k.words) {
			t.Errorf("%s: %v; want %v naming %q", k.name, err, k.is, k.words)
		}
	}
}

// TestRunChecks: short slices, a misaligned tensor and a closed plan are
// errors, through Run and through the C entry point alike; Close is
// idempotent.
func TestRunChecks(t *testing.T) {
	p, err := NewPlan(yoloConfig(NV12, 33, 17))
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, p.SrcSize())
	dst := make([]byte, p.DstSize()+4)
	if err := p.Run(dst[:p.DstSize()], src[:p.SrcSize()-1]); !errors.Is(err, ErrShort) || !strings.Contains(err.Error(), "needs") {
		t.Errorf("short frame: %v", err)
	}
	if err := p.Run(dst[:p.DstSize()-1], src); !errors.Is(err, ErrShort) {
		t.Errorf("short tensor: %v", err)
	}
	if err := p.Run(dst[1:], src); !errors.Is(err, ErrAlign) {
		t.Errorf("misaligned tensor: %v", err)
	}
	if err := p.Run(nil, nil); !errors.Is(err, ErrShort) {
		t.Errorf("nil slices: %v", err)
	}
	cp := p.CPlan()
	for _, k := range []struct {
		dst, src []byte
		rc       int
	}{
		{dst[:p.DstSize()], src, 0},
		{dst[:p.DstSize()], src[:1], -2},
		{dst[:3], src, -2},
		{dst[1 : 1+p.DstSize()], src, -3},
	} {
		if rc := runThroughPointer(cp, k.dst, k.src); rc != k.rc {
			t.Errorf("gstpp_run with %d/%d bytes: %d, want %d", len(k.src), len(k.dst), rc, k.rc)
		}
	}
	runtime.KeepAlive(p)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Run(dst, src); !errors.Is(err, ErrClosed) {
		t.Errorf("closed: %v", err)
	}
	if p.CPlan() != nil {
		t.Error("CPlan after Close is not nil")
	}
}

// TestCEntryPoint: gstpp_run called through CRunFunc's pointer writes
// the tensor Run writes.
func TestCEntryPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, f := range []Format{BGRx, I420} {
		c, src := frameFor(t, yoloConfig(f, 101, 57), true, rng)
		p, err := NewPlan(c)
		if err != nil {
			t.Fatal(err)
		}
		viaGo, viaC := make([]byte, p.DstSize()), make([]byte, p.DstSize())
		if err := p.Run(viaGo, src); err != nil {
			t.Fatal(err)
		}
		if rc := runThroughPointer(p.CPlan(), viaC, src); rc != 0 {
			t.Fatalf("%s: gstpp_run: %d", f, rc)
		}
		if !bytes.Equal(viaGo, viaC) {
			t.Errorf("%s: the C entry point's tensor differs from Run's", f)
		}
		p.Close()
	}
}

// TestRunAllocatesNothing: a frame costs no Go allocation.
func TestRunAllocatesNothing(t *testing.T) {
	p, err := NewPlan(yoloConfig(NV12, 320, 240))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src, dst := make([]byte, p.SrcSize()), make([]byte, p.DstSize())
	if n := testing.AllocsPerRun(20, func() {
		if err := p.Run(dst, src); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations a frame", n)
	}
}

// TestConcurrentRunAndClose: Runs from several goroutines on one plan
// take turns (each tensor is right: the scratch is not shared mid-frame)
// and a Close among them waits for the frame in progress.
func TestConcurrentRunAndClose(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	// An upscale of NV12 keeps converted rows in the plan's scratch
	// across tensor rows: the case concurrent frames would corrupt.
	c, src := frameFor(t, Config{SrcFormat: NV12, SrcWidth: 61, SrcHeight: 47, DstWidth: 160, DstHeight: 120,
		DstType: tensor.U8, DstLayout: NHWC, ChannelOrder: OrderBGR, Resize: ResizeStretch}, false, rng)
	p, err := NewPlan(c)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, p.DstSize())
	if err := p.Run(want, src); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]byte, p.DstSize())
			for i := range 50 {
				err := p.Run(dst, src)
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil || !bytes.Equal(dst, want) {
					t.Errorf("goroutine %d frame %d: %v, or the tensor differs", g, i, err)
					return
				}
				if g == 0 && i == 25 {
					p.Close()
				}
			}
		}()
	}
	wg.Wait()
}

// TestDroppedPlanIsFreed: a Plan never closed has its C memory freed
// once it is unreachable.
func TestDroppedPlanIsFreed(t *testing.T) {
	before := plansFreed()
	func() {
		p, err := NewPlan(yoloConfig(RGB, 64, 64))
		if err != nil {
			t.Fatal(err)
		}
		_ = p.DstSize()
	}()
	for range 50 {
		runtime.GC()
		if plansFreed() > before {
			return
		}
		runtime.Gosched()
	}
	t.Fatal("the dropped plan's C memory was not freed")
}

// TestKernelInUse logs which kernel the CPU runs, for the benchmarks'
// reader.
func TestKernelInUse(t *testing.T) {
	p, err := NewPlan(yoloConfig(RGB, 8, 8))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	t.Logf("kernel: %s", p.kernel())
}

// The colorimetry's names are GStreamer's (a caps' colorimetry, what
// gst_video_colorimetry_to_string and GstVideoColorMatrix's nicks say),
// read back by the Parse functions; other names are ErrConfig.
func TestColorimetryNames(t *testing.T) {
	for m, name := range map[ColorMatrix]string{MatrixBT601: "bt601", MatrixBT709: "bt709", MatrixBT2020: "bt2020",
		MatrixSMPTE240M: "smpte240m", MatrixFCC: "fcc"} {
		if got, err := ParseColorMatrix(strings.ToUpper(name)); m.String() != name || err != nil || got != m {
			t.Errorf("%v: String %q, ParseColorMatrix(%q) = %v, %v", m, m.String(), strings.ToUpper(name), got, err)
		}
	}
	for r, name := range map[ColorRange]string{RangeLimited: "16-235", RangeFull: "0-255"} {
		if got, err := ParseColorRange(name); r.String() != name || err != nil || got != r {
			t.Errorf("%v: String %q, ParseColorRange(%q) = %v, %v", r, r.String(), name, got, err)
		}
	}
	for _, bad := range []string{"", "rgb", "unknown", "bt2100"} {
		if _, err := ParseColorMatrix(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseColorMatrix(%q): %v, want ErrConfig", bad, err)
		}
	}
	if _, err := ParseColorRange("unknown"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseColorRange(unknown): %v, want ErrConfig", err)
	}
}
