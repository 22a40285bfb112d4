package tensorinfer

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
)

// TransformCaps: sink to src, the model's outputs as other/tensors (for
// fixed input caps whose input the model cannot take: an error naming the
// input, posted once, and no caps); src to sink, what the model takes
// (modelSinkCaps) ahead of the sink template.
func (e *element) TransformCaps(self *base.GstBaseTransform, dir gst.PadDirection, caps, filter *gst.Caps) (ret *gst.Caps) {
	defer gstglue.RecoverTrampoline(e.raw(), "transform-caps", &ret, nil)
	var out *gst.Caps
	video := e.readSettings().output == outputVideo
	switch {
	case video && dir == gst.PadDirectionSource:
		// The video goes through: what the model takes, of what
		// downstream takes.
		sink := e.sinkCaps()
		out = sink.IntersectFull(caps, gst.CapsIntersectFirst)
		gstglue.ReleaseCaps(sink)
	case video:
		out = caps.Copy()
	case dir == gst.PadDirectionSource:
		out = e.sinkCaps()
	default:
		out = e.outputCaps(self, caps)
	}
	if filter != nil && filter.Unsafe() != nil && out != nil {
		// The filter's order first, as GStreamer's transforms do; within
		// each of its structures ours keep their order, the model's first.
		f := filter.IntersectFull(out, gst.CapsIntersectFirst)
		gstglue.ReleaseCaps(out)
		out = f
	}
	return gstglue.GiveCaps(out)
}

// sinkCaps are the caps the sink pad takes: what the model's input takes
// as it is, first, so that an upstream that can produce it (a converter,
// a scaler, tensorsrc) negotiates it with no capsfilter; then the
// template, so that caps the model cannot take still reach set_caps and
// its error naming what the model takes and what was given.
func (e *element) sinkCaps() *gst.Caps {
	st := e.current()
	if st == nil {
		return sinkTemplate()
	}
	s := modelSinkCaps(st.info, st.set)
	if st.preprocessing() {
		s = preprocessSinkCaps(st.info, st.set)
	}
	if s == "" {
		return sinkTemplate()
	}
	return gst.NewCapsFromString(s + "; " + sinkTemplateString())
}

// channelFormats are the packed 8-bit video formats by channel count,
// in order of preference: models are trained on RGB far more often than
// on BGR.
var channelFormats = map[int][]string{
	1: {"GRAY8"},
	3: {"RGB", "BGR"},
	4: {"RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR"},
}

// modelSinkCaps describes the model's input as caps ("" when it has no
// single input a frame can feed): raw video in every packed format whose
// channels the model takes, at its width and height (a range where they
// are free), with and without memory:DMABuf, when the model takes uint8
// or float32 (the engine converts uint8); then other/tensors of the
// model's type, with its dimensions when it fixes every one. The model's
// layout is read as FitInput reads it (readings); [? ? ? ?] takes any
// packed format of 3 or 4 channels.
func modelSinkCaps(info infer.ModelInfo, set settings) string {
	if len(info.Inputs) != 1 || (set.input != "" && set.input != info.Inputs[0].Name) {
		return ""
	}
	m := info.Inputs[0]
	ms := m.ModelShape
	r := len(ms)
	if m.DType == 0 {
		return ""
	}
	var parts []string
	if r >= 3 && (m.DType == tensor.U8 || m.DType == tensor.F32) && leadingOnes(ms[:r-3]) {
		for _, rd := range readings(ms[r-3:]) {
			formats := channelFormats[int(rd.c)]
			if rd.c < 0 {
				formats = slices.Concat(channelFormats[3], channelFormats[4])
			}
			video := fmt.Sprintf("format=(string){ %s }, width=(int)%s, height=(int)%s, framerate=(fraction)[0/1,2147483647/1]",
				strings.Join(formats, ", "), capsDim(rd.w), capsDim(rd.h))
			parts = append(parts,
				capslayout.MediaVideo+"("+capslayout.FeatureDMABuf+"), "+video,
				capslayout.MediaVideo+", "+video)
		}
	}
	tensors := fmt.Sprintf("%s, format=(string)static, num_tensors=(int)1, types=(string)%s", capslayout.MediaTensors, m.DType)
	if !m.Dynamic() {
		shape := make([]int, r)
		for i, d := range ms {
			shape[i] = int(d)
		}
		tensors += fmt.Sprintf(", dimensions=(string)%s", capslayout.Dimensions(shape))
	}
	return strings.Join(append(parts, tensors), "; ")
}

// reading is where a model's image dimensions are: channels, height,
// width (-1: free).
type reading struct{ c, h, w int64 }

// readings returns how packed video frames ([H W C]; GRAY8's [H W]) can
// fill a model's last three dimensions d, as FitInput fills them: NCHW
// when the model fixes its channels there and leaves the last dimension
// free (FitInput's choice when both fit) or fixes a channel count video
// has there; NHWC when its last dimension is free or a channel count of
// 3 or 4. One channel is GRAY8, [H W] frames, which fit NCHW's [1 H W]
// only.
func readings(d []int64) []reading {
	nchw := reading{d[0], d[1], d[2]}
	nhwc := reading{d[2], d[0], d[1]}
	if d[0] >= 0 && d[2] < 0 {
		if channelFormats[int(d[0])] == nil {
			return nil
		}
		return []reading{nchw}
	}
	var out []reading
	if nhwc.c < 0 || nhwc.c == 3 || nhwc.c == 4 {
		out = append(out, nhwc)
	}
	if nchw.c >= 0 && channelFormats[int(nchw.c)] != nil {
		out = append(out, nchw)
	}
	return out
}

// leadingOnes: the model's dimensions before the image's are a batch of
// one (or free, to be fixed to one).
func leadingOnes(dims []int64) bool {
	for _, d := range dims {
		if d != 1 && d >= 0 {
			return false
		}
	}
	return true
}

func capsDim(d int64) string {
	if d < 0 {
		return "[1,2147483647]"
	}
	return fmt.Sprint(d)
}

// outputCaps returns the caps of the model's outputs for input caps (new
// caps owned by the caller).
func (e *element) outputCaps(self *base.GstBaseTransform, in *gst.Caps) *gst.Caps {
	st := e.current()
	if st == nil {
		return gst.NewCapsFromString(tensorsTemplate())
	}
	var layout *tensor.Layout
	var outs []infer.TensorInfo
	if in != nil && in.Unsafe() != nil && in.IsFixed() {
		f, err := capslayout.FromCaps(in)
		switch {
		case err == nil && st.preprocessing():
			outs, err = e.preprocessOutputs(st, f)
		case err == nil:
			var l tensor.Layout
			l, err = inputLayout(st, f)
			layout = &l
		}
		if err != nil {
			e.refuse(self, st, in, err)
			return gst.NewEmptyCaps()
		}
	}
	var err error
	if outs == nil {
		outs, err = e.outputsFor(st, layout)
	}
	if errors.Is(err, errFreeDims) {
		return gst.NewCapsFromString(tensorsTemplate()) // fixed when the input caps are
	}
	if err != nil {
		if in != nil && in.Unsafe() != nil && in.IsFixed() {
			e.refuse(self, st, in, err)
		}
		return gst.NewEmptyCaps()
	}
	s := tensorsCaps(outs)
	if in != nil {
		if n, d, ok := gstglue.CapsFraction(in, 0, "framerate"); ok {
			s += fmt.Sprintf(", framerate=(fraction)%d/%d", n, d)
		}
	}
	return gst.NewCapsFromString(s)
}

// refuse posts, once per caps, why the element cannot take them.
func (e *element) refuse(self *base.GstBaseTransform, st *streamState, caps *gst.Caps, err error) {
	text := caps.String()
	e.stateMu.Lock()
	again := st.refusedCaps == text
	st.refusedCaps = text
	e.stateMu.Unlock()
	if !again {
		gstglue.PostErrorRaw(e.raw(), gstglue.CoreNegotiation, "tensorinfer: "+err.Error(), "caps: "+text)
	}
}

// outputsFor returns the outputs the session for layout binds, their
// shapes fixed: the running session's when layout is nil or fits it;
// else a session made for layout's shapes, which ONNX Runtime shapes the
// outputs of and SetCaps then takes (st.spare). A model with free
// dimensions and no layout yet is errFreeDims.
func (e *element) outputsFor(st *streamState, layout *tensor.Layout) ([]infer.TensorInfo, error) {
	e.stateMu.Lock()
	sess, fixed := st.sess, st.shapes
	e.stateMu.Unlock()
	if sess != nil && (layout == nil || fixed == nil) {
		return sess.Outputs(), nil
	}
	if layout == nil {
		return nil, errFreeDims
	}
	p, err := planFrames(st.info, st.set, *layout)
	if err != nil {
		return nil, err
	}
	if sess != nil && sameShapes(p.shapes, fixed) {
		return sess.Outputs(), nil
	}
	return st.spareOutputs(p.shapes)
}

// errFreeDims: the model's outputs are not known before the input caps
// fix its free dimensions.
var errFreeDims = errors.New("free dimensions: no input caps yet")

// framePlan is how frames of fixed caps feed the model's input: the
// shapes that fix the model's free input dimensions (nil when it fixes
// them all: the session made at start) and the dimension order the
// frames are bound in.
type framePlan struct {
	shapes    map[string][]int64
	transpose infer.Transpose
}

// planFrames fits frames of layout l to the model's input (infer.FitInput:
// the conversion's own mapping, NCHW or NHWC, free batch, height, width
// and channels). The outputs' free dimensions are left to the session,
// which has ONNX Runtime shape them for the input.
func planFrames(info infer.ModelInfo, set settings, l tensor.Layout) (framePlan, error) {
	if len(info.Inputs) != 1 {
		return framePlan{}, fmt.Errorf("%w: %s: the model has %d inputs; tensorinfer feeds exactly one", infer.ErrInput, set.model, len(info.Inputs))
	}
	in := info.Inputs[0]
	shape, tr, err := infer.FitInput(in, l.Shape)
	if err != nil {
		return framePlan{}, fmt.Errorf("%s: %w", set.model, err)
	}
	p := framePlan{transpose: tr}
	if in.Dynamic() {
		p.shapes = map[string][]int64{in.Name: shape}
	}
	return p, nil
}

// tensorsCapsOf is tensorsCaps as new caps (the caller's).
func tensorsCapsOf(outs []infer.TensorInfo) *gst.Caps {
	return gst.NewCapsFromString(tensorsCaps(outs))
}

// tensorsCaps describes outputs as static other/tensors: NNStreamer's
// num_tensors, dimensions (innermost first, comma between tensors; a
// scalar is "1") and types, plus names (comma-separated; this project's
// field, which NNStreamer's caps do not define and its elements ignore).
// Names holding a comma are left out (names is then omitted).
func tensorsCaps(outs []infer.TensorInfo) string {
	dims, types, names := make([]string, len(outs)), make([]string, len(outs)), make([]string, len(outs))
	withNames := true
	for i, o := range outs {
		shape := make([]int, len(o.Shape))
		for j, d := range o.Shape {
			shape[j] = int(d)
		}
		if len(shape) == 0 {
			shape = []int{1}
		}
		dims[i] = capslayout.Dimensions(shape)
		types[i] = o.DType.String()
		names[i] = o.Name
		if strings.ContainsAny(o.Name, ",\"\\") {
			withNames = false
		}
	}
	s := fmt.Sprintf("%s, format=(string)static, num_tensors=(int)%d, dimensions=(string)\"%s\", types=(string)\"%s\"",
		capslayout.MediaTensors, len(outs), strings.Join(dims, ","), strings.Join(types, ","))
	if withNames {
		s += fmt.Sprintf(", names=(string)\"%s\"", strings.Join(names, ","))
	}
	return s
}
