package tensorinfer

// regions.go: inference on regions of interest (inference-region=
// roi-list) — a second model on what a first found: a text recogniser
// on each text line a detector boxed, a classifier on each car. Every
// frame is made in C (regions.c); Go sets the element up at caps, makes a
// shape the first time a frame needs it, and grows the ring when one
// frame's batches need more slots than it has.
//
// Shapes: the model's batch dimension, when free, takes a frame's
// regions batch-size at a time (rows rounded up to a power of two, so a
// few shapes serve every count); its free spatial side, when it has one
// (a recogniser's width), follows each batch's widest region at the
// fixed side, rounded up to a multiple of 32 and at most
// max-region-side. Each shape is a session reshaped from the element's
// (the model loaded once: infer.Session.Reshaped) whose input is bound
// once over the batch input and whose outputs are bound once over every
// output slot: a frame binds nothing, allocates nothing and maps nothing
// once its shapes exist. The output slots are sized for the largest
// shape (the base session's: batch-size rows at the largest free side).

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/internal/ortabi"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/preprocess"
)

// freeSideStep rounds a batch's free side up: a few sizes serve every
// region, each made once.
const freeSideStep = 32

// ErrRegions: the model's input is not one a region crop can feed.
var ErrRegions = errors.New("region inference")

// regionGeometry is what the model's input declares, for regions: its
// layout, batch (batch: the rows a run takes at most; 1 for a fixed batch
// of 1) and image sides (0: free).
type regionGeometry struct {
	name           string
	dtype          tensor.DType
	layout         preprocess.Layout
	batch          int
	fixedW, fixedH int
	capW, capH     int // the largest image: a free side at max-region-side
}

// regionGeometryOf reads m (the model's one input) for region runs.
func regionGeometryOf(set settings, m infer.TensorInfo) (regionGeometry, error) {
	g := regionGeometry{name: m.Name, dtype: m.DType}
	ms := m.ModelShape
	if len(ms) != 4 || (m.DType != tensor.U8 && m.DType != tensor.F32) {
		return g, fmt.Errorf("%w: input %q declares %s %s; regions feed 3-channel images (uint8 or float32, NCHW or NHWC)",
			ErrRegions, m.Name, m.ElementType, infer.Declared(ms))
	}
	var hi, wi int
	switch {
	case ms[1] == 3:
		g.layout, hi, wi = preprocess.NCHW, 2, 3
	case ms[3] == 3:
		g.layout, hi, wi = preprocess.NHWC, 1, 2
	default:
		return g, fmt.Errorf("%w: input %q declares %s, with no dimension of 3 channels at NCHW's or NHWC's place",
			ErrRegions, m.Name, infer.Declared(ms))
	}
	switch ms[0] {
	case -1:
		g.batch = int(set.batchSize)
	case 1:
		g.batch = 1
	default:
		return g, fmt.Errorf("%w: input %q declares %s: a fixed batch of %d; regions run in a free batch or one at a time (1)",
			ErrRegions, m.Name, infer.Declared(ms), ms[0])
	}
	for _, d := range []struct {
		i    int
		set  uint
		name string
	}{{hi, set.regionHeight, "region-height"}, {wi, set.regionWidth, "region-width"}} {
		switch {
		case d.set == 0:
		case ms[d.i] < 0:
			ms = slices.Clone(ms)
			ms[d.i] = int64(d.set)
		case ms[d.i] != int64(d.set):
			return g, fmt.Errorf("%w: input %q declares %s; %s=%d differs from its fixed size", ErrRegions, m.Name,
				infer.Declared(m.ModelShape), d.name, d.set)
		}
	}
	if ms[hi] < 0 && ms[wi] < 0 {
		return g, fmt.Errorf("%w: input %q declares %s: height and width both free; a region's image needs one side fixed "+
			"(its size then follows the region's aspect) or both: set region-height or region-width", ErrRegions, m.Name, infer.Declared(ms))
	}
	free := max(int(set.maxRegionSide)/freeSideStep*freeSideStep, freeSideStep)
	g.fixedH, g.fixedW, g.capH, g.capW = int(ms[hi]), int(ms[wi]), int(ms[hi]), int(ms[wi])
	if ms[hi] < 0 {
		g.fixedH, g.capH = 0, free
	}
	if ms[wi] < 0 {
		g.fixedW, g.capW = 0, free
	}
	return g, nil
}

// shape is the model input's shape for rows images of w × h.
func (g regionGeometry) shape(rows, w, h int) []int64 {
	if g.layout == preprocess.NHWC {
		return []int64{int64(rows), int64(h), int64(w), 3}
	}
	return []int64{int64(rows), 3, int64(h), int64(w)}
}

// imageBytes is one w × h image's bytes in the batch input.
func (g regionGeometry) imageBytes(w, h int) int { return w * h * 3 * g.dtype.Size() }

// regionVariant is a shape made: rows images of w × h, its session (nil:
// the base session, whose shape it is), the C table's index.
type regionVariant struct {
	rows, w, h int
	sess       *infer.Session
}

// regionState is the stream's region inference: the input's geometry,
// the shapes made (index for index with the C frame's table).
type regionState struct {
	geom     regionGeometry
	variants []*regionVariant
}

// setupRegions makes region inference for frames of f: the base
// session at the largest shape (its output ring sized for it), the pass
// (a region plan, its strides the caps'), the batch input pinned once and
// bound to the base session, the C frame's region fields; the shapes of
// an earlier caps go (their sessions closed).
func (e *element) setupRegions(st *streamState, f capslayout.Format) error {
	if f.Media != capslayout.MediaVideo {
		return fmt.Errorf("%w reads video frames, not %s", ErrRegions, f.Media)
	}
	if len(st.info.Inputs) != 1 {
		return fmt.Errorf("%w: %s: the model has %d inputs; tensorinfer feeds exactly one", infer.ErrInput, st.set.model, len(st.info.Inputs))
	}
	m := st.info.Inputs[0]
	g, err := regionGeometryOf(st.set, m)
	if err != nil {
		return fmt.Errorf("%s: %w", st.set.model, err)
	}
	st.closeRegions()
	shapes := map[string][]int64{m.Name: g.shape(g.batch, g.capW, g.capH)}
	if st.sess == nil || !sameShapes(shapes, st.shapes) {
		if err := e.reopenSession(st, shapes); err != nil {
			return err
		}
	}
	for _, o := range st.sess.Outputs() {
		if len(o.Shape) == 0 || o.Shape[0] != int64(g.batch) {
			return fmt.Errorf("%w: %s: output %q is %v at a batch of %d; a region's result is a row of every output, "+
				"so each output's first dimension must be the batch", ErrRegions, st.set.model, o.Name, o.Shape, g.batch)
		}
	}
	// The pass: preConfig's normalisation and channel order for an image
	// of the largest size (a region's own size comes with each run).
	fixed := m
	fixed.ModelShape = g.shape(g.batch, g.capW, g.capH)
	set := st.set
	if set.resize == "none" {
		set.resize = "stretch"
	}
	cfg, _, err := preConfig(set, st.modelInfo, f, fixed)
	if err != nil {
		return fmt.Errorf("%s: %w", st.set.model, err)
	}
	for _, p := range f.Planes {
		pg, err := p.Layout.Geometry()
		if err != nil {
			return fmt.Errorf("caps' plane layout %v: %w", p.Layout, err)
		}
		cfg.SrcStrides = append(cfg.SrcStrides, pg.Stride)
		cfg.SrcOffsets = append(cfg.SrcOffsets, p.Layout.Offset)
	}
	pre := &preState{cfg: cfg, regions: true, strides: cfg.SrcStrides, offsets: cfg.SrcOffsets,
		capsStrides: cfg.SrcStrides, capsOffsets: cfg.SrcOffsets}
	if pre.plan, err = preprocess.NewRegionPlan(cfg); err != nil {
		return fmt.Errorf("%s: pre-processing: %w", st.set.model, err)
	}
	in := st.sess.Input()
	if pre.t, err = tensor.Alloc(in.Layout(), tensor.AllocOptions{Source: tensor.SourceMemfd, Name: "tensorinfer-batch"}); err != nil {
		pre.close()
		return gstglue.Fail(gstglue.ResourceNoSpaceLeft, "cannot allocate the batch input: %v", err)
	}
	if pre.pin, err = pre.t.PinHost(); err != nil {
		pre.close()
		return gstglue.Fail(gstglue.ResourceNoSpaceLeft, "cannot pin the batch input: %v", err)
	}
	if err := st.sess.BindInput(preInputSlot, infer.Input{Pin: &pre.pin, Layout: in.Layout()}); err != nil {
		pre.close()
		return err
	}
	old := st.pre
	st.pre = pre
	st.region = &regionState{geom: g}
	st.setEnginePreprocess()
	old.close()
	st.inLayout = tensor.Layout{DType: tensor.U8, Shape: []int{f.FrameSize}}
	// The video goes on; each batch's meta carries its own caps.
	st.video.Set(true, 1, nil, tensormeta.Transform{})
	st.engine.SetRegions(st.set, g, f.Width, f.Height, unsafe.Pointer(unsafe.SliceData(pre.pin.Bytes())), len(pre.pin.Bytes()))
	cat.LogInfo(fmt.Sprintf("regions of %s %dx%d → batches of up to %d %v images of %dx%d at most (%v, %s)", cfg.SrcFormat,
		f.Width, f.Height, g.batch, g.dtype, g.capW, g.capH, g.layout, cfg.ChannelOrder))
	return nil
}

// regionVariant returns the C table's index of the shape rows × free
// (the free side's size; ignored when both sides are fixed), making it:
// a session reshaped from the base one (or the base itself for the
// largest shape), its input bound over the batch input and its outputs
// over every output slot, and its entry in the C frame's table.
func (e *element) regionVariant(st *streamState, rows, free int) (int, error) {
	rs := st.region
	if rs == nil || st.sess == nil || st.ring == nil || st.pre == nil {
		return 0, gstglue.Fail(gstglue.CoreNegotiation, "a region frame before caps")
	}
	g := rs.geom
	w, h := g.fixedW, g.fixedH
	if w == 0 {
		w = free
	}
	if h == 0 {
		h = free
	}
	if rows < 1 || rows > g.batch || w < 1 || w > g.capW || h < 1 || h > g.capH {
		return 0, gstglue.Fail(gstglue.CoreFailed, "a batch of %d at %dx%d is outside the model's %d at %dx%d", rows, w, h, g.batch, g.capW, g.capH)
	}
	if st.engine.NumVariants() >= maxVariants {
		return 0, gstglue.Fail(gstglue.CoreFailed, "%d shapes made: no more (max-region-side and batch-size bound them)", maxVariants)
	}
	v := &regionVariant{rows: rows, w: w, h: h}
	sess := st.sess
	if rows != g.batch || w != g.capW || h != g.capH {
		var err error
		if v.sess, err = st.sess.Reshaped(map[string][]int64{g.name: g.shape(rows, w, h)}); err != nil {
			return 0, gstglue.Fail(gstglue.LibraryFailed, "%v", err)
		}
		sess = v.sess
		if err := e.bindVariant(st, v, 0); err != nil {
			v.sess.Close()
			return 0, err
		}
	}
	caps := tensorsCapsOf(sess.Outputs())
	defer gstglue.ReleaseCaps(caps)
	io := make([]unsafe.Pointer, st.ring.c.Slots())
	for k := range io {
		io[k] = ortabi.Binding(sess, preInputSlot, k)
	}
	i := st.engine.AddVariant(rows, w, h, caps, io)
	rs.variants = append(rs.variants, v)
	e.stats.regionShapes.Store(uint64(len(rs.variants)))
	cat.LogInfo(fmt.Sprintf("region shape %d: %d rows of %dx%d", i, rows, w, h))
	return i, nil
}

// maxVariants bounds the shapes (the C table's size).
const maxVariants = 128

// bindVariant binds v's input over the batch input and its outputs over
// output slots from on (the base session's are the ring's own).
func (e *element) bindVariant(st *streamState, v *regionVariant, from int) error {
	g := st.region.geom
	if from == 0 {
		in := v.sess.Input()
		p, err := st.pre.pin.Narrow(0, v.rows*g.imageBytes(v.w, v.h))
		if err != nil {
			return gstglue.Fail(gstglue.CoreFailed, "the batch input for %d rows of %dx%d: %v", v.rows, v.w, v.h, err)
		}
		defer p.Release()
		if err := v.sess.BindInput(preInputSlot, infer.Input{Pin: &p, Layout: in.Layout()}); err != nil {
			return gstglue.Fail(gstglue.CoreNegotiation, "%v", err)
		}
		e.stats.regionInputBinds.Add(1)
	}
	outs := v.sess.Outputs()
	for k := from; k < st.ring.c.Slots(); k++ {
		pins, err := st.ring.slotPins(k, outs)
		if err != nil {
			return err
		}
		err = v.sess.BindOutput(k, pins...)
		for _, p := range pins {
			p.Release()
		}
		if err != nil {
			return gstglue.Fail(gstglue.CoreNegotiation, "%v", err)
		}
		e.stats.regionOutBinds.Add(1)
	}
	return nil
}

// growRegionSlot adds one output slot to the ring, bound for every
// shape made: a frame's batches need more slots than the ring has.
func (e *element) growRegionSlot(st *streamState) error {
	if st.ring == nil || st.sess == nil || st.region == nil {
		return gstglue.Fail(gstglue.CoreNegotiation, "a region frame before caps")
	}
	from := st.ring.c.Slots()
	if from >= maxRing {
		return gstglue.Fail(gstglue.ResourceNoSpaceLeft, "the output ring has %d slots, its most", from)
	}
	if err := st.ring.grow(st.sess, from+1); err != nil {
		return err
	}
	return st.growRegionIO(e, from)
}

// growRegionIO gives every shape made its bindings with the output
// slots the ring grew, from output slot from on.
func (st *streamState) growRegionIO(e *element, from int) error {
	rs := st.region
	if rs == nil {
		return nil
	}
	n := st.ring.c.Slots()
	for i, v := range rs.variants {
		sess := st.sess
		if v.sess != nil {
			if err := e.bindVariant(st, v, from); err != nil {
				return err
			}
			sess = v.sess
		}
		for k := from; k < n; k++ {
			st.engine.SetVariantIO(i, k, ortabi.Binding(sess, preInputSlot, k))
		}
	}
	return nil
}

// closeRegions forgets the shapes made (their sessions closed, the C
// table cleared): a new caps, a new session, stop.
func (st *streamState) closeRegions() {
	if st.region == nil {
		return
	}
	if !st.engine.IsZero() {
		st.engine.ClearVariants()
	}
	for _, v := range st.region.variants {
		if v.sess != nil {
			if err := v.sess.Close(); err != nil {
				cat.LogWarning("closing a region shape's session: " + err.Error())
			}
		}
	}
	st.region = nil
}

// regionClasses is object-class as quark names: trimmed, empty ones
// dropped.
func regionClasses(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// regionVariantCall is the C frame's call for a shape (gstcGoInferVariant).
func (e *element) regionVariantCall(self gstglue.RawElement, rows, free int) int {
	st := e.current()
	if st == nil {
		return int(gst.FlowFlushing)
	}
	i, err := e.regionVariant(st, rows, free)
	if err != nil {
		gstglue.PostErrorRaw(self, gstglue.CodeOf(err, gstglue.CoreFailed), "tensorinfer: "+err.Error(), "")
		return int(gst.FlowError)
	}
	return i
}

// regionGrowCall is the C frame's call for one slot more
// (gstcGoInferGrow): false leaves the frame's remaining regions undone.
func (e *element) regionGrowCall(self gstglue.RawElement) bool {
	st := e.current()
	if st == nil {
		return false
	}
	if err := e.growRegionSlot(st); err != nil {
		cat.LogWarning("a frame's regions need another output slot: " + err.Error())
		return false
	}
	return true
}
