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
#cgo noescape gstpp_run_region
#cgo nocallback gstpp_run_region
#include "plan.h"

static void *gstpp_run_func (void) { return (void *) gstpp_run; }
static void *gstpp_run_region_func (void) { return (void *) gstpp_run_region; }
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
	return newPlan(c, false)
}

// NewRegionPlan is NewPlan for regions of c's frames (RunRegion), each
// resized into an image of at most c.DstWidth × c.DstHeight: the tables'
// capacity. Run converts the whole frame as NewPlan's plan would.
func NewRegionPlan(c Config) (*Plan, error) {
	return newPlan(c, true)
}

func newPlan(c Config, regions bool) (*Plan, error) {
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
	if yuv {
		// A region's working row starts at an even column: one more.
		ebpp, rowElems = 1, 3*(cfg.SrcWidth+1)
	}

	yuvFlag := C.int(0)
	if yuv {
		yuvFlag = 1
	}
	capW, capH := g.cw, g.ch
	if regions {
		capW, capH = cfg.DstWidth, cfg.DstHeight
	}
	cp := C.gstpp_plan_alloc(C.int32_t(capW), C.int32_t(capH), C.int32_t(rowElems), yuvFlag)
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
	cp.ebpp, cp.row_elems = C.int32_t(ebpp), C.int32_t(rowElems)
	cp.cap_w, cp.cap_h = C.int32_t(capW), C.int32_t(capH)
	for ch, col := range colours {
		cp.colour[ch] = C.int32_t(col)
		cp.k[ch], cp.o[ch] = C.float(k.k[col]), C.float(k.o[col])
		cp.padf[ch] = C.float(float64(cfg.PadValue)*k.k[col] + k.o[col])
	}
	for i := range 3 {
		cp.rgb_pos[i] = C.int32_t(fi.rgb[i])
	}
	cp.padu = C.uint8_t(k.padU8)
	if yuv {
		w := weightsOf(cfg.Matrix, cfg.Range)
		cp.yuv = C.GstppYuv{yk: C.float(w.yk), y0: C.float(w.y0), rv: C.float(w.rv), gu: C.float(w.gu), gv: C.float(w.gv), bu: C.float(w.bu)}
	}
	// The whole frame into the content rectangle: the working row, the
	// taps tables and the shortcuts, built in C (pass.c), as a region's.
	if rc := C.gstpp_plan_set_geometry(cp, 0, 0, C.int32_t(cfg.SrcWidth), C.int32_t(cfg.SrcHeight),
		C.int32_t(cfg.DstWidth), C.int32_t(cfg.DstHeight), C.int32_t(g.cx), C.int32_t(g.cy), C.int32_t(g.cw), C.int32_t(g.ch)); rc != C.GSTPP_OK {
		C.gstpp_plan_free(cp)
		return nil, fmt.Errorf("preprocess: the plan's geometry was refused (%d) after its checks passed", int(rc))
	}

	p := &Plan{c: cp, cfg: cfg, srcSize: k.srcSize, dstSize: k.dstSize, geometry: g,
		transform: g.transform(cfg.SrcWidth, cfg.SrcHeight, cfg.DstWidth, cfg.DstHeight)}
	// The safety net captures only the C pointer: a cleanup that held p
	// would keep it reachable forever.
	p.cleanup = runtime.AddCleanup(p, func(c *C.GstppPlan) { C.gstpp_plan_free(c) }, cp)
	return p, nil
}

// Run converts the frame src into the tensor dst: every one of
// DstSize's bytes of dst is written and nothing after them; at most
// SrcSize bytes of src are read. Errors wrap ErrShort (a slice shorter
// than the plan needs), ErrAlign (a float32 tensor not 4-byte aligned)
// or ErrClosed. No allocation.
func (p *Plan) Run(dst, src []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, err := p.check(dst, src, p.dstSize, func() string {
		return fmt.Sprintf("the tensor (%v %v %dx%dx3)", p.cfg.DstType, p.cfg.DstLayout, p.cfg.DstWidth, p.cfg.DstHeight)
	})
	if err != nil {
		return err
	}
	rc := C.gstpp_run(p.c, (*C.uint8_t)(unsafe.SliceData(src)), C.size_t(len(src)), d, C.size_t(len(dst)))
	if rc != C.GSTPP_OK {
		// The checks above are the C pass's: a mismatch is a bug here.
		return fmt.Errorf("preprocess: gstpp_run returned %d after Go's checks passed", int(rc))
	}
	return nil
}

// check is Run's and RunRegion's checks, under p.mu: the plan open, src
// the frame's size, dst at least need bytes (what names it, for the
// error) and aligned for the tensor's type. It returns dst's address.
func (p *Plan) check(dst, src []byte, need int, what func() string) (unsafe.Pointer, error) {
	if p.c == nil {
		return nil, ErrClosed
	}
	if len(src) < p.srcSize {
		return nil, fmt.Errorf("%w: the frame (%s %dx%d) needs %d bytes, given %d",
			ErrShort, p.cfg.SrcFormat, p.cfg.SrcWidth, p.cfg.SrcHeight, p.srcSize, len(src))
	}
	if len(dst) < need {
		return nil, fmt.Errorf("%w: %s needs %d bytes, given %d", ErrShort, what(), need, len(dst))
	}
	d := unsafe.Pointer(unsafe.SliceData(dst))
	if a := uintptr(p.cfg.DstType.Size()); uintptr(d)%a != 0 {
		return nil, fmt.Errorf("%w: the %v tensor starts at %#x", ErrAlign, p.cfg.DstType, uintptr(d))
	}
	return d, nil
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

// useBest makes the plan run the CPU's best kernel again.
func (p *Plan) useBest() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c != nil {
		p.c.impl = C.gstpp_best_impl()
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

// Region is a rectangle of the frame (X, Y, W, H, inside it) and where
// it goes in an image of a batch: resized into the content rectangle
// (CX, CY, CW, CH) of a DstW × DstH image, the rest padding
// (preprocess.h's GstppRegion).
type Region struct {
	X, Y, W, H     int
	DstW, DstH     int
	CX, CY, CW, CH int
}

// RunRegion converts region r of the frame src into the image dst (at
// least r.DstW × r.DstH × 3 elements of the plan's type; its other bytes
// are not written): what a C engine does with CRegionFunc. The plan's
// tables are rebuilt for r (no allocation); Run afterwards converts the
// whole frame again. Errors wrap ErrConfig (a region not inside the
// frame, content not inside the image or larger than the plan's capacity:
// NewRegionPlan), ErrShort, ErrAlign or ErrClosed.
func (p *Plan) RunRegion(dst, src []byte, r Region) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, err := p.check(dst, src, max(r.DstW*r.DstH*3*p.cfg.DstType.Size(), 0), func() string {
		return fmt.Sprintf("the image (%v %dx%dx3)", p.cfg.DstType, r.DstW, r.DstH)
	})
	if err != nil {
		return err
	}
	if r.DstW < 1 || r.DstH < 1 {
		return fmt.Errorf("%w: the image (%v %dx%dx3) is empty", ErrShort, p.cfg.DstType, r.DstW, r.DstH)
	}
	cr := C.GstppRegion{x: C.int32_t(r.X), y: C.int32_t(r.Y), w: C.int32_t(r.W), h: C.int32_t(r.H),
		dst_w: C.int32_t(r.DstW), dst_h: C.int32_t(r.DstH), cx: C.int32_t(r.CX), cy: C.int32_t(r.CY), cw: C.int32_t(r.CW), ch: C.int32_t(r.CH)}
	rc := C.gstpp_run_region(p.c, (*C.uint8_t)(unsafe.SliceData(src)), C.size_t(len(src)), &cr, d, C.size_t(len(dst)))
	// The whole frame's geometry back, for Run.
	g := p.geometry
	C.gstpp_plan_set_geometry(p.c, 0, 0, C.int32_t(p.cfg.SrcWidth), C.int32_t(p.cfg.SrcHeight),
		C.int32_t(p.cfg.DstWidth), C.int32_t(p.cfg.DstHeight), C.int32_t(g.cx), C.int32_t(g.cy), C.int32_t(g.cw), C.int32_t(g.ch))
	if rc != C.GSTPP_OK {
		return fmt.Errorf("%w: region %+v of a %dx%d frame (content at most %dx%d): refused (%d)",
			ErrConfig, r, p.cfg.SrcWidth, p.cfg.SrcHeight, int(p.c.cap_w), int(p.c.cap_h), int(rc))
	}
	return nil
}

// CRegionFunc returns the address of gstpp_run_region, a
// GstppRegionFunc (preprocess.h), for a C engine.
func CRegionFunc() unsafe.Pointer { return C.gstpp_run_region_func() }

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
