package preprocess

// plan.go: a Plan owns its C GstppPlan (plan.h): Go fills its numbers
// and tables once, pass.c runs it per frame.

/*
// -O3: the vectoriser's settings (gcc's -O2 before 12 vectorises
// nothing, and 12's -O2 only the cheapest loops); package flags come
// after CGO_CFLAGS, so this wins over the default -O2.
#cgo CFLAGS: -O3
#cgo noescape gstpp_run
#cgo nocallback gstpp_run
#include "plan.h"

static void *gstpp_run_func (void) { return (void *) gstpp_run; }
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// Plan is one Config's pass, its tables built once: Run converts a
// frame per call with no allocation. A Plan runs one frame at a time
// (concurrent Runs take turns: the pass's row scratch is the plan's).
// Close frees its C memory; a Plan dropped without Close is freed by
// the garbage collector.
type Plan struct {
	mu      sync.Mutex
	c       *C.GstppPlan // nil once closed
	cleanup runtime.Cleanup

	cfg       Config
	srcSize   int
	dstSize   int
	geometry  geometry
	transform decode.Transform
}

// NewPlan validates c and builds its pass. Errors wrap ErrFormat or
// ErrConfig and name the field.
func NewPlan(c Config) (*Plan, error) {
	k, err := check(c)
	if err != nil {
		return nil, err
	}
	cfg, fi, g := k.cfg, k.fi, k.geometry
	yuv := fi.planes > 1
	ebpp, rowElems := fi.bpp, cfg.SrcWidth*fi.bpp
	// The colour each tensor channel holds, and where that colour lies in
	// a working row: byte rgb[colour] of a packed pixel, or plane colour
	// of the planar RGB row a YUV row is converted to.
	colours := [3]int{0, 1, 2}
	if cfg.ChannelOrder == OrderBGR {
		colours = [3]int{2, 1, 0}
	}
	var coff [3]int
	for ch, col := range colours {
		if yuv {
			coff[ch] = col * cfg.SrcWidth
		} else {
			coff[ch] = fi.rgb[col]
		}
	}
	if yuv {
		ebpp, rowElems = 1, 3*cfg.SrcWidth
	}

	yuvFlag := C.int(0)
	if yuv {
		yuvFlag = 1
	}
	cp := C.gstpp_plan_alloc(C.int32_t(g.cw), C.int32_t(g.ch), C.int32_t(rowElems), yuvFlag)
	if cp == nil {
		return nil, fmt.Errorf("preprocess: cannot allocate a plan for %s %dx%d → %dx%d", cfg.SrcFormat,
			cfg.SrcWidth, cfg.SrcHeight, cfg.DstWidth, cfg.DstHeight)
	}
	switch cfg.SrcFormat {
	case NV12:
		cp.kind = C.GSTPP_SRC_NV12
	case I420:
		cp.kind = C.GSTPP_SRC_I420
	default:
		cp.kind = C.GSTPP_SRC_PACKED
	}
	cp.impl = C.gstpp_best_impl()
	cp.src_w, cp.src_h, cp.bpp = C.int32_t(cfg.SrcWidth), C.int32_t(cfg.SrcHeight), C.int32_t(fi.bpp)
	for i := range fi.planes {
		cp.stride[i], cp.offset[i] = C.int64_t(cfg.SrcStrides[i]), C.int64_t(cfg.SrcOffsets[i])
	}
	cp.src_size = C.size_t(k.srcSize)
	cp.dst_type = C.GSTPP_DST_F32
	if cfg.DstType == tensor.U8 {
		cp.dst_type = C.GSTPP_DST_U8
	}
	if cfg.DstLayout == NHWC {
		cp.nhwc = 1
	}
	cp.dst_w, cp.dst_h, cp.dst_size = C.int32_t(cfg.DstWidth), C.int32_t(cfg.DstHeight), C.size_t(k.dstSize)
	cp.cx, cp.cy, cp.cw, cp.ch = C.int32_t(g.cx), C.int32_t(g.cy), C.int32_t(g.cw), C.int32_t(g.ch)
	cp.ebpp, cp.row_elems = C.int32_t(ebpp), C.int32_t(rowElems)
	for ch, col := range colours {
		cp.coff[ch] = C.int32_t(coff[ch])
		cp.k[ch], cp.o[ch] = C.float(k.k[col]), C.float(k.o[col])
		cp.padf[ch] = C.float(float64(cfg.PadValue)*k.k[col] + k.o[col])
	}
	cp.padu = C.uint8_t(k.padU8)

	fillTables(cp, cfg, g, ebpp)

	p := &Plan{c: cp, cfg: cfg, srcSize: k.srcSize, dstSize: k.dstSize, geometry: g,
		transform: g.transform(cfg.SrcWidth, cfg.SrcHeight, cfg.DstWidth, cfg.DstHeight)}
	// The safety net captures only the C pointer: a cleanup that held p
	// would keep it reachable forever.
	p.cleanup = runtime.AddCleanup(p, func(c *C.GstppPlan) { C.gstpp_plan_free(c) }, cp)
	return p, nil
}

// fillTables writes the per-column and per-row taps into the plan's C
// tables: column taps as working-row element indices, weights both as
// integers (the uint8 path) and as floats (the same values / 2048).
func fillTables(cp *C.GstppPlan, cfg Config, g geometry, ebpp int) {
	xi0, xi1, wx0, wx1 := taps(cfg.SrcWidth, g.cw)
	yi0, yi1, wy0, wy1 := taps(cfg.SrcHeight, g.ch)
	i32 := func(p *C.int32_t, n int) []int32 { return unsafe.Slice((*int32)(unsafe.Pointer(p)), n) }
	f32 := func(p *C.float, n int) []float32 { return unsafe.Slice((*float32)(unsafe.Pointer(p)), n) }
	cxi0, cxi1, cwx0, cwx1 := i32(cp.xi0, g.cw), i32(cp.xi1, g.cw), i32(cp.wxi0, g.cw), i32(cp.wxi1, g.cw)
	fwx0, fwx1 := f32(cp.wxf0, g.cw), f32(cp.wxf1, g.cw)
	for x := range g.cw {
		cxi0[x], cxi1[x] = xi0[x]*int32(ebpp), xi1[x]*int32(ebpp)
		cwx0[x], cwx1[x] = wx0[x], wx1[x]
		fwx0[x], fwx1[x] = float32(wx0[x])/wOne, float32(wx1[x])/wOne
	}
	cyi0, cyi1, cwy0, cwy1 := i32(cp.yi0, g.ch), i32(cp.yi1, g.ch), i32(cp.wyi0, g.ch), i32(cp.wyi1, g.ch)
	fwy0, fwy1 := f32(cp.wyf0, g.ch), f32(cp.wyf1, g.ch)
	for y := range g.ch {
		cyi0[y], cyi1[y], cwy0[y], cwy1[y] = yi0[y], yi1[y], wy0[y], wy1[y]
		fwy0[y], fwy1[y] = float32(wy0[y])/wOne, float32(wy1[y])/wOne
	}
	// The shortcuts pass.c takes: one tap a column when no column has a
	// second weight, and no table at all when column x samples x.
	cp.xtaps, cp.ident = 1, C.int32_t(ebpp)
	for x := range g.cw {
		if wx1[x] != 0 {
			cp.xtaps, cp.ident = 2, 0
			break
		}
		if xi0[x] != int32(x) {
			cp.ident = 0
		}
	}
}

// Run converts the frame src into the tensor dst: every one of
// DstSize's bytes of dst is written and nothing after them; at most
// SrcSize bytes of src are read. Errors wrap ErrShort (a slice shorter
// than the plan needs), ErrAlign (a float32 tensor not 4-byte aligned)
// or ErrClosed. No allocation.
func (p *Plan) Run(dst, src []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c == nil {
		return ErrClosed
	}
	if len(src) < p.srcSize {
		return fmt.Errorf("%w: the frame (%s %dx%d) needs %d bytes, given %d",
			ErrShort, p.cfg.SrcFormat, p.cfg.SrcWidth, p.cfg.SrcHeight, p.srcSize, len(src))
	}
	if len(dst) < p.dstSize {
		return fmt.Errorf("%w: the tensor (%v %v %dx%dx3) needs %d bytes, given %d",
			ErrShort, p.cfg.DstType, p.cfg.DstLayout, p.cfg.DstWidth, p.cfg.DstHeight, p.dstSize, len(dst))
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	if a := uintptr(p.cfg.DstType.Size()); uintptr(d)%a != 0 {
		return fmt.Errorf("%w: the %v tensor starts at %#x", ErrAlign, p.cfg.DstType, uintptr(d))
	}
	rc := C.gstpp_run(p.c, (*C.uint8_t)(unsafe.SliceData(src)), C.size_t(len(src)), d, C.size_t(len(dst)))
	if rc != C.GSTPP_OK {
		// The checks above are the C pass's: a mismatch is a bug here.
		return fmt.Errorf("preprocess: gstpp_run returned %d after Go's checks passed", int(rc))
	}
	return nil
}

// Close frees the plan's C memory; later Runs return ErrClosed.
// Idempotent, and safe while another goroutine runs the plan (Close
// waits for that frame). A C engine must have stopped calling
// gstpp_run on CPlan's pointer.
func (p *Plan) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c != nil {
		p.cleanup.Stop()
		C.gstpp_plan_free(p.c)
		p.c = nil
	}
	return nil
}

// CPlan returns the address of the plan's GstppPlan (preprocess.h) for
// a C engine calling gstpp_run through CRunFunc, or nil once closed.
// It is valid until Close; keep the Plan reachable (runtime.KeepAlive)
// as long as C uses it, and run it one frame at a time — not alongside
// the Plan's own Run.
func (p *Plan) CPlan() unsafe.Pointer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return unsafe.Pointer(p.c)
}

// useBaseline makes the plan run the kernel compiled for the build's
// baseline instruction set instead of the CPU's best, so that the tests
// check both.
func (p *Plan) useBaseline() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c != nil {
		p.c.impl = C.GSTPP_IMPL_GENERIC
	}
}

// kernel names the kernel the plan runs, for the tests and benchmarks.
func (p *Plan) kernel() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c != nil && p.c.impl == C.GSTPP_IMPL_AVX2 {
		return "avx2"
	}
	return "baseline"
}

// plansFreed counts the C plans freed, by Close or by the cleanup.
func plansFreed() uint64 { return uint64(C.gstpp_plans_freed()) }

// runThroughPointer runs the plan as a C engine does: gstpp_run called
// through the pointer CRunFunc gives, on CPlan's plan.
func runThroughPointer(plan unsafe.Pointer, dst, src []byte) int {
	return int(C.gstpp_call(CRunFunc(), (*C.GstppPlan)(plan), (*C.uint8_t)(unsafe.SliceData(src)), C.size_t(len(src)),
		unsafe.Pointer(unsafe.SliceData(dst)), C.size_t(len(dst))))
}

// CRunFunc returns the address of gstpp_run, a GstppRunFunc
// (preprocess.h): a C file of another package calls the pass through
// it, as it cannot link this package's C symbols by name.
func CRunFunc() unsafe.Pointer { return C.gstpp_run_func() }

// Config returns the plan's Config with the strides and offsets it
// uses (GStreamer's defaults filled in).
func (p *Plan) Config() Config {
	c := p.cfg
	c.SrcStrides = append([]int(nil), c.SrcStrides...)
	c.SrcOffsets = append([]int(nil), c.SrcOffsets...)
	return c
}

// SrcSize is the bytes a frame must hold: the last plane's last pixel
// (by the strides and offsets), not GStreamer's rounded-up size.
func (p *Plan) SrcSize() int { return p.srcSize }

// DstSize is the tensor's bytes: DstWidth × DstHeight × 3 × element size.
func (p *Plan) DstSize() int { return p.dstSize }

// Content returns where the resized frame lies in the tensor, in
// tensor pixels: columns [x, x+w), rows [y, y+h). The rest is padding.
func (p *Plan) Content() (x, y, w, h int) {
	g := p.geometry
	return g.cx, g.cy, g.cw, g.ch
}

// Transform maps the tensor's pixel coordinates back to the frame's, for
// the decoders: frame_x = (model_x − OffsetX) / ScaleX, the same for y,
// with the resized size the pass used (a letterbox's scales are the
// rounded size over the frame's, each axis its own).
func (p *Plan) Transform() decode.Transform { return p.transform }
