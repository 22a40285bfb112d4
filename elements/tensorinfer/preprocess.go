package tensorinfer

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/preprocess"
)

// Pre-processing: the frame (packed RGB formats, NV12, I420, at any
// size) goes through package preprocess's fused pass — scale or
// letterbox, channel order, normalisation, HWC→CHW — straight into the
// model's input, a pinned tensor of the element's own bound once as the
// session's input slot. It is on when any of resize, mean, std, scale,
// offset or channel-order=bgr is set; otherwise frames feed the model as
// they are (today's way, converted only where the model needs it).

// preInputSlot is the session input slot of the pre-processed tensor
// (the frames' own memories are not bound then).
const preInputSlot = 0

// preState is pre-processing's state: the plan for the caps' layout, and
// the tensor it writes, bound as preInputSlot.
type preState struct {
	plan    *preprocess.Plan
	cfg     preprocess.Config
	regions bool // a region plan (regions.go): t is the batch input
	t       *tensor.Tensor
	pin     pin.HostPin
	strides []int // the layout the plan was made for (a video meta may differ)
	offsets []int
	// capsStrides and capsOffsets: the caps' layout (a frame without a
	// video meta).
	capsStrides, capsOffsets []int
}

func (p *preState) close() {
	if p == nil {
		return
	}
	if p.plan != nil {
		p.plan.Close()
	}
	p.pin.Release()
	if p.t != nil {
		p.t.Close()
	}
}

// preprocessing reports whether the settings ask for the pass.
func (s settings) preprocessing() bool {
	return s.regions() || s.resize != "none" || s.normalising() || s.channelOrder == "bgr"
}

// normalising: a normalisation property is set (it overrides the
// modelinfo file's).
func (s settings) normalising() bool {
	return s.mean != "" || s.std != "" || s.scale != "" || s.offset != ""
}

// preprocessing reports whether the stream runs the pass: asked by the
// settings, or a .modelinfo file beside the model describes its input.
func (st *streamState) preprocessing() bool {
	return st.set.preprocessing() || st.modelInfo != nil
}

// loadModelInfo reads the model's .modelinfo file (GStreamer 1.28's, beside
// the model), if there is one, and keeps its input's entry: its
// normalisation applies unless a property sets one.
func (st *streamState) loadModelInfo() error {
	mi, path, err := preprocess.LoadModelInfo(st.set.model)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %v", infer.ErrModel, err)
	}
	in, err := mi.Input(st.set.input)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", infer.ErrModel, path, err)
	}
	st.modelInfo, st.modelInfoPath = in, path
	cat.LogInfo("pre-processing from " + path)
	return nil
}

// perColour reads a per-colour property (mean, std, scale, offset): one
// number for every colour or three (red, green, blue), as a plain list
// or GStreamer's array (proptable.ParseNumbers); def fills an unset one.
// The error names the property and its value, in words.
func perColour(name, s string, def float32) ([3]float32, error) {
	out := [3]float32{def, def, def}
	if s == "" {
		return out, nil
	}
	v, err := proptable.ParseNumbers(s)
	if err == nil && len(v) != 1 && len(v) != 3 {
		err = fmt.Errorf("%d numbers, not 1 or 3", len(v))
	}
	if err != nil {
		return out, fmt.Errorf("property %s=%q: %v; write one number (every colour) or three, red, green and blue: "+
			"0.485,0.456,0.406 or GStreamer's array <0.485, 0.456, 0.406>", name, s, err)
	}
	for i := range out {
		out[i] = float32(v[min(i, len(v)-1)])
	}
	return out, nil
}

// checkNormalisation reads the normalisation properties, for an error at
// start rather than at the first caps.
func (s settings) checkNormalisation() error {
	for _, p := range []struct{ name, value string }{{"mean", s.mean}, {"std", s.std}, {"scale", s.scale}, {"offset", s.offset}} {
		if _, err := perColour(p.name, p.value, 0); err != nil {
			return err
		}
	}
	return nil
}

// errPreModel: the model's input is not an image the pass can write.
var errPreModel = errors.New("pre-processing writes 3-channel images")

// preConfig is the pass's configuration for frames of f into the
// model's input m (its shape fixed from the frame when it is free and
// resize is none), and the input's fixed shape.
func preConfig(set settings, mi *preprocess.TensorInfo, f capslayout.Format, m infer.TensorInfo) (preprocess.Config, []int64, error) {
	var c preprocess.Config
	ms := m.ModelShape
	if len(ms) != 4 || (m.DType != tensor.U8 && m.DType != tensor.F32) {
		return c, nil, fmt.Errorf("%w (uint8 or float32, NCHW or NHWC); input %q declares %s %s",
			errPreModel, m.Name, m.ElementType, infer.Declared(ms))
	}
	c.DstType = m.DType
	var hi, wi int
	switch {
	case ms[1] == 3:
		c.DstLayout, hi, wi = preprocess.NCHW, 2, 3
	case ms[3] == 3:
		c.DstLayout, hi, wi = preprocess.NHWC, 1, 2
	default:
		return c, nil, fmt.Errorf("%w: input %q declares %s %s, with no dimension of 3 channels at NCHW's or NHWC's place",
			errPreModel, m.Name, m.ElementType, infer.Declared(ms))
	}
	c.SrcFormat = preprocess.Format(f.VideoFormat)
	c.SrcWidth, c.SrcHeight = f.Width, f.Height
	var err error
	if c.SrcFormat == preprocess.NV12 || c.SrcFormat == preprocess.I420 {
		// The caps' colorimetry, GStreamer's defaults where they name none.
		if c.Matrix, err = preprocess.ParseColorMatrix(f.Colorimetry.Matrix); err != nil {
			return c, nil, fmt.Errorf("%s caps' colorimetry: %w", f.VideoFormat, err)
		}
		if f.Colorimetry.FullRange {
			c.Range = preprocess.RangeFull
		}
	}
	if c.Resize, err = preprocess.ParseResize(set.resize); err != nil {
		return c, nil, err
	}
	if c.ChannelOrder, err = preprocess.ParseChannelOrder(set.channelOrder); err != nil {
		return c, nil, err
	}
	shape := append([]int64(nil), ms...)
	shape[0] = 1
	for _, d := range []struct {
		i     int
		frame int
	}{{hi, f.Height}, {wi, f.Width}} {
		if shape[d.i] < 0 {
			if c.Resize != preprocess.ResizeNone {
				return c, nil, fmt.Errorf("%w: input %q declares %s: resize=%s needs the model's height and width; "+
					"with them free, resize=none feeds the frame's", infer.ErrDynamicDims, m.Name, infer.Declared(ms), set.resize)
			}
			shape[d.i] = int64(d.frame)
		}
	}
	if c.DstLayout == preprocess.NCHW {
		shape[1] = 3
	} else {
		shape[3] = 3
	}
	c.DstHeight, c.DstWidth = int(shape[hi]), int(shape[wi])
	c.PadValue = float32(set.padValue)
	if m.DType == tensor.F32 {
		if set.mean != "" || set.std != "" {
			if c.Mean, err = perColour("mean", set.mean, 0); err != nil {
				return c, nil, err
			}
			if c.Std, err = perColour("std", set.std, 1); err != nil {
				return c, nil, err
			}
		} else {
			if c.Scale, err = perColour("scale", set.scale, 1.0/255); err != nil {
				return c, nil, err
			}
			if c.Offset, err = perColour("offset", set.offset, 0); err != nil {
				return c, nil, err
			}
		}
	}
	if mi != nil && !set.normalising() && m.DType == tensor.F32 {
		// The file's ranges (or mean and stddev), applied to a copy:
		// the model itself says the type, layout and size.
		fc := c
		if _, err := mi.Apply(&fc); err != nil {
			return c, nil, err
		}
		c.Scale, c.Offset, c.Mean, c.Std = fc.Scale, fc.Offset, fc.Mean, fc.Std
	}
	return c, shape, nil
}

// setupPreprocess makes the pass and its bound tensor for frames of f
// (a new session first when the model's free dimensions change); the
// frames' own memory is then read whole, as one uint8 tensor.
func (e *element) setupPreprocess(st *streamState, f capslayout.Format) error {
	if f.Media != capslayout.MediaVideo {
		return fmt.Errorf("pre-processing reads video frames, not %s", f.Media)
	}
	if len(st.info.Inputs) != 1 {
		return fmt.Errorf("%w: %s: the model has %d inputs; tensorinfer feeds exactly one", infer.ErrInput, st.set.model, len(st.info.Inputs))
	}
	m := st.info.Inputs[0]
	cfg, shape, err := preConfig(st.set, st.modelInfo, f, m)
	if err != nil {
		return fmt.Errorf("%s: %w", st.set.model, err)
	}
	for _, p := range f.Planes {
		g, err := p.Layout.Geometry()
		if err != nil {
			return fmt.Errorf("caps' plane layout %v: %w", p.Layout, err)
		}
		cfg.SrcStrides = append(cfg.SrcStrides, g.Stride)
		cfg.SrcOffsets = append(cfg.SrcOffsets, p.Layout.Offset)
	}
	if m.Dynamic() {
		shapes := map[string][]int64{m.Name: shape}
		if st.sess == nil || !sameShapes(shapes, st.shapes) {
			if err := e.reopenSession(st, shapes); err != nil {
				return err
			}
		}
	}
	pre := &preState{cfg: cfg, strides: cfg.SrcStrides, offsets: cfg.SrcOffsets, capsStrides: cfg.SrcStrides, capsOffsets: cfg.SrcOffsets}
	if pre.plan, err = preprocess.NewPlan(cfg); err != nil {
		return fmt.Errorf("%s: pre-processing: %w", st.set.model, err)
	}
	in := st.sess.Input()
	if pre.t, err = tensor.Alloc(in.Layout(), tensor.AllocOptions{Source: tensor.SourceMemfd, Name: "tensorinfer-input"}); err != nil {
		pre.close()
		return gstglue.Fail(gstglue.ResourceNoSpaceLeft, "cannot allocate the model's input: %v", err)
	}
	if pre.pin, err = pre.t.PinHost(); err != nil {
		pre.close()
		return gstglue.Fail(gstglue.ResourceNoSpaceLeft, "cannot pin the model's input: %v", err)
	}
	// The old pass (if any) goes once the new one is bound in its
	// place: a bind that fails leaves the element as it was.
	if err := st.sess.BindInput(preInputSlot, infer.Input{Pin: &pre.pin, Layout: in.Layout()}); err != nil {
		pre.close()
		return err
	}
	old := st.pre
	st.pre = pre
	st.setEnginePreprocess()
	old.close()
	// The frame is read whole: its memory as one uint8 tensor.
	st.inLayout = tensor.Layout{DType: tensor.U8, Shape: []int{f.FrameSize}}
	if st.set.output == outputVideo {
		tr := pre.plan.Transform()
		caps := tensorsCapsOf(st.sess.Outputs())
		defer gstglue.ReleaseCaps(caps)
		st.video.Set(true, int(st.set.interval), caps, tensormeta.Transform{ModelWidth: cfg.DstWidth, ModelHeight: cfg.DstHeight,
			ScaleX: tr.ScaleX, ScaleY: tr.ScaleY, OffsetX: tr.OffsetX, OffsetY: tr.OffsetY})
	}
	colour := ""
	if cfg.SrcFormat == preprocess.NV12 || cfg.SrcFormat == preprocess.I420 {
		colour = fmt.Sprintf(" %v %v", cfg.Matrix, cfg.Range)
	}
	cat.LogInfo(fmt.Sprintf("pre-processing %s%s %dx%d → %v %s %dx%d (%s, %s)", cfg.SrcFormat, colour, cfg.SrcWidth, cfg.SrcHeight,
		cfg.DstType, cfg.DstLayout, cfg.DstWidth, cfg.DstHeight, cfg.Resize, cfg.ChannelOrder))
	return nil
}

// replanPreprocess makes the pass's plan read a frame laid out with
// strides and offsets (its video meta's, or the caps' for a frame without
// one) when that is not the plan's layout: the engine asks Go for it when
// a frame's layout differs from the plan's.
func (e *element) replanPreprocess(st *streamState, strides, offsets []int) error {
	pre := st.pre
	if slices.Equal(strides, pre.strides) && slices.Equal(offsets, pre.offsets) {
		return nil
	}
	cfg := pre.cfg
	cfg.SrcStrides = append([]int(nil), strides...)
	cfg.SrcOffsets = append([]int(nil), offsets...)
	newPlan := preprocess.NewPlan
	if pre.regions {
		newPlan = preprocess.NewRegionPlan
	}
	plan, err := newPlan(cfg)
	if err != nil {
		return gstglue.Fail(gstglue.StreamFormat, "pre-processing the frame's video meta layout: %v", err)
	}
	old := pre.plan
	pre.plan, pre.cfg, pre.strides, pre.offsets = plan, cfg, cfg.SrcStrides, cfg.SrcOffsets
	st.setEnginePreprocess()
	old.Close() // after the engine let go of it
	return nil
}

// setEnginePreprocess gives the engine the pass, its bound input and its
// IoBindings (none: frames feed the model as they are).
func (st *streamState) setEnginePreprocess() {
	if st.engine.IsZero() {
		return
	}
	pre := st.pre
	if pre == nil || st.sess == nil || st.ring == nil {
		st.engine.SetPreprocess(enginePreprocess{})
		return
	}
	b := pre.pin.Bytes()
	st.engine.SetPreprocess(enginePreprocess{
		Plan: pre.plan.CPlan(), Run: preprocess.CRunFunc(), Dst: unsafe.Pointer(unsafe.SliceData(b)), DstLen: len(b),
		Strides: pre.strides, Offsets: pre.offsets, CapsStrides: pre.capsStrides, CapsOffsets: pre.capsOffsets,
		IO: st.engineIO(preInputSlot),
	})
}

// preprocessSinkCaps: with pre-processing, every format the pass reads,
// at any size (resize) or the model's (resize=none with its size fixed).
func preprocessSinkCaps(info infer.ModelInfo, set settings) string {
	if len(info.Inputs) != 1 {
		return ""
	}
	m := info.Inputs[0]
	var formats []string
	for _, f := range preprocess.Formats() {
		formats = append(formats, string(f))
	}
	w, h := "[1,2147483647]", "[1,2147483647]"
	if ms := m.ModelShape; set.resize == "none" && !set.regions() && len(ms) == 4 {
		hi, wi := 2, 3
		if ms[3] == 3 && ms[1] != 3 {
			hi, wi = 1, 2
		}
		w, h = capsDim(ms[wi]), capsDim(ms[hi])
	}
	video := fmt.Sprintf("format=(string){ %s }, width=(int)%s, height=(int)%s, framerate=(fraction)[0/1,2147483647/1]",
		strings.Join(formats, ", "), w, h)
	return capslayout.MediaVideo + "(" + capslayout.FeatureDMABuf + "), " + video + "; " + capslayout.MediaVideo + ", " + video
}

// preprocessOutputs returns the outputs for pre-processed frames of f:
// the session's when the model's input is fixed (or fixed alike), else
// those of a session made for the shape the frames give it.
func (e *element) preprocessOutputs(st *streamState, f capslayout.Format) ([]infer.TensorInfo, error) {
	if f.Media != capslayout.MediaVideo || len(st.info.Inputs) != 1 {
		return nil, fmt.Errorf("pre-processing reads video frames into a model's one input, not %s", f.Media)
	}
	m := st.info.Inputs[0]
	_, shape, err := preConfig(st.set, st.modelInfo, f, m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", st.set.model, err)
	}
	e.stateMu.Lock()
	sess, fixed := st.sess, st.shapes
	e.stateMu.Unlock()
	shapes := map[string][]int64{m.Name: shape}
	if sess != nil && (!m.Dynamic() || sameShapes(shapes, fixed)) {
		return sess.Outputs(), nil
	}
	return st.spareOutputs(shapes)
}
