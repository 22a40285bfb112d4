package tensordecode

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// streamState exists between Start and Stop. Its per-frame fields belong
// to the streaming thread (TransformIP and SetCaps run there).
type streamState struct {
	set     settings
	mode    decode.Mode
	dec     *decode.Decoder
	cLabels cLabels
	maps    maps
	msg     message

	// From the caps: the tensors (names, types, shapes; Data set per
	// frame, and cleared after), and the transform of tensors mode.
	haveCaps bool
	tensors  []decode.Tensor
	dims     string // the caps' dimensions and types, for error texts
	tr       decode.Transform
}

// config is the decoder's configuration the settings ask for, with the
// labels read.
func (s settings) config(labels []string) (decode.Config, error) {
	mode, err := decode.ParseMode(s.mode)
	if err != nil {
		return decode.Config{}, err
	}
	layout, err := decode.ParseYOLOLayout(s.yoloLayout)
	if err != nil {
		return decode.Config{}, err
	}
	return decode.Config{
		Mode: mode, Labels: labels, ScoreThreshold: s.scoreThreshold, IoUThreshold: s.iouThreshold,
		MaxDetections: int(s.maxDetections), TopK: int(s.topK), Softmax: s.softmax, MinArea: int(s.minArea),
		UnclipRatio: s.unclipRatio, MapThreshold: s.mapThreshold, Connectivity: int(s.connectivity), YOLOLayout: layout,
	}, nil
}

// Start reads the labels file and makes the decoder: a file that cannot
// be read, or settings the decoder refuses, are an error naming them and
// a refused state change.
func (e *element) Start(self *base.GstBaseTransform) (ret bool) {
	defer e.guard("start", func() { ret = false })
	set := e.readSettings()
	e.stats.reset()
	var labels []string
	if set.labels != "" {
		var err error
		if labels, err = decode.ReadLabels(set.labels); err != nil {
			code := gstc.ResourceOpenRead
			if errors.Is(err, fs.ErrNotExist) {
				code = gstc.ResourceNotFound
			}
			gstc.PostErrorRaw(e.raw(), code, "tensordecode: "+err.Error(), "")
			return false
		}
	}
	cfg, err := set.config(labels)
	var dec *decode.Decoder
	if err == nil {
		dec, err = decode.New(cfg)
	}
	if err != nil {
		gstc.PostErrorRaw(e.raw(), gstc.ResourceSettings, "tensordecode: "+err.Error(), "")
		return false
	}
	st := &streamState{set: set, mode: cfg.Mode, dec: dec, cLabels: newCLabels(labels), maps: newMaps()}
	e.stateMu.Lock()
	e.state = st
	e.stateMu.Unlock()
	cat.LogInfo(fmt.Sprintf("started: mode %s, %d labels", set.mode, len(labels)))
	return true
}

func (e *element) Stop(self *base.GstBaseTransform) (ret bool) {
	defer e.guard("stop", func() { ret = false })
	e.stateMu.Lock()
	st := e.state
	e.state = nil
	e.stateMu.Unlock()
	if st != nil {
		st.maps.free()
		st.cLabels.free()
	}
	return true
}

// SetCaps reads the tensors the caps describe and checks them against the
// mode: a layout the mode does not read is a negotiation error quoting
// the tensors' dims (the decoder's text) and the caps' dimensions and
// types; in tensors mode, a model input size neither set nor told by the
// outputs is an error asking for input-width and input-height.
func (e *element) SetCaps(self *base.GstBaseTransform, incaps, outcaps *gst.Caps) (ret bool) {
	defer e.guard("set-caps", func() { ret = false })
	st := e.current()
	if st == nil {
		return false
	}
	f, err := capslayout.FromCaps(incaps)
	if err != nil {
		gstc.PostErrorRaw(e.raw(), gstc.CoreNegotiation, fmt.Sprintf("tensordecode: caps %v: %v", incaps, err), "")
		return false
	}
	st.haveCaps = false
	st.tensors = st.tensors[:0]
	names := capsNames(incaps, len(f.Planes))
	for i, p := range f.Planes {
		st.tensors = append(st.tensors, decode.Tensor{Name: names[i], DType: p.Layout.DType, Shape: p.Layout.Shape})
	}
	st.dims = capsDims(incaps)
	if err := st.dec.Check(st.tensors); err != nil {
		gstc.PostErrorRaw(e.raw(), gstc.CoreNegotiation, fmt.Sprintf("tensordecode: %v (caps %s)", err, st.dims), "")
		return false
	}
	tr, err := tensorsTransform(st.set, st.dec.Config(), st.tensors)
	if err != nil {
		gstc.PostErrorRaw(e.raw(), gstc.StreamFormat, fmt.Sprintf("tensordecode: %v (caps %s)", err, st.dims), "")
		return false
	}
	st.tr, st.haveCaps = tr, true
	cat.LogInfo(fmt.Sprintf("caps %v: transform %+v", incaps, tr))
	return true
}

// errInputSize: tensors mode without the model input's size.
var errInputSize = errors.New("the model input's size is not known")

// tensorsTransform is the transform of tensors mode: no frame but the
// model input, so the identity on the input's size — input-width ×
// input-height when both are set, else what the outputs tell
// (decode.InputSize). Classify needs no size (its regions are the whole
// frame: 0×0 then); the other modes do.
func tensorsTransform(set settings, cfg decode.Config, ts []decode.Tensor) (decode.Transform, error) {
	if set.inputWidth > 0 && set.inputHeight > 0 {
		return decode.Identity(int(set.inputWidth), int(set.inputHeight)), nil
	}
	if w, h, ok := decode.InputSize(cfg, ts); ok {
		return decode.Identity(w, h), nil
	}
	if cfg.Mode == decode.Classify {
		return decode.Transform{}, nil
	}
	var outs []string
	for _, t := range ts {
		outs = append(outs, t.String())
	}
	return decode.Transform{}, fmt.Errorf("%w: mode %v cannot tell it from the outputs (%s): set input-width and input-height",
		errInputSize, cfg.Mode, strings.Join(outs, ", "))
}

// capsNames returns the caps' names field split into n names (this
// project's field: tensorinfer writes the model's output names), or n
// empty names when it is missing or does not list n.
func capsNames(caps *gst.Caps, n int) []string {
	names := make([]string, n)
	v, err := caps.GetStructureAt(0).GetValue("names")
	if s, ok := v.(string); err == nil && ok {
		if parts := strings.Split(s, ","); len(parts) == n {
			for i, p := range parts {
				names[i] = strings.TrimSpace(p)
			}
		}
	}
	return names
}

// capsDims quotes the caps' dimensions and types fields (NNStreamer's
// order, innermost first) for error texts.
func capsDims(caps *gst.Caps) string {
	st := caps.GetStructureAt(0)
	d, _ := st.GetValue("dimensions")
	t, _ := st.GetValue("types")
	return fmt.Sprintf("dimensions=%v types=%v", d, t)
}
