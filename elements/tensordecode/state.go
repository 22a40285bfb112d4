package tensordecode

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// streamState exists between Start and Stop. Its per-frame fields belong
// to the streaming thread (BeforeTransform, TransformIP and SetCaps run
// there).
type streamState struct {
	set     settings
	mode    decode.Mode
	dec     *decode.Decoder
	cLabels cLabels
	maps    maps
	// name is the element's (read at start): the model a whole-frame
	// text names when no tensorinfer does (tensors mode).
	name string

	// From the caps. Tensors mode: the tensors (names, types, shapes;
	// Data set per frame, and cleared after) and the transform, fixed
	// by the caps and the properties. Video mode (video): the frame's
	// size; each frame's tensors and transform come with its meta.
	haveCaps bool
	video    bool
	lay      layout
	tr       decode.Transform
	frameW   int
	frameH   int

	// metaRead reads each frame's meta, making its caps string only when
	// the caps change (it holds the caps it remembers: closed at Stop).
	metaRead tensormeta.Reader
	// layouts are the metas' tensors by caps string, parsed once, not
	// every frame.
	layouts map[string]*resultLayout
	// regionObjs are the objects of the frame's region results (video
	// mode), reused from frame to frame.
	regionObjs []regionObject
	// decodedIDs: the regions whose rows this frame decoded. tracks: the
	// last result of each tracked region, carried onto it on frames its
	// tensorinfer did not run it (carryTracks); frameSeq counts the
	// frames for it; trackIDs, trackOf: the frame's tracked regions.
	decodedIDs []int
	tracks     map[uint64]*trackResult
	frameSeq   uint64
	trackIDs   []int32
	trackOf    []uint64
}

// layout is the tensors a buffer carries, as caps describe them.
type layout struct {
	tensors []decode.Tensor
	dims    string // the caps' dimensions and types, for error texts
}

// pending is a video buffer's decoding.
type pending struct {
	noMeta bool            // no GstTensorPinMeta (or one without tensors)
	objs   []decode.Object // the decoder's, valid until the next Decode
	// regions: the result is region results (st.regionObjs). model:
	// the tensorinfer that made the result (its name; "" unknown).
	regions bool
	model   string
	err     error // the frame cannot be decoded
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
	defer gstglue.RecoverTrampoline(e.raw(), "start", &ret, false)
	set := e.settings.Read()
	e.stats.reset()
	var labels []string
	if set.labels != "" {
		var err error
		read := decode.ReadLabels
		if set.mode == decode.CTC.String() {
			read = decode.ReadTokens // tokens may be spaces: not trimmed
		}
		if labels, err = read(set.labels); err != nil {
			code := gstglue.ResourceOpenRead
			if errors.Is(err, fs.ErrNotExist) {
				code = gstglue.ResourceNotFound
			}
			gstglue.PostErrorRaw(e.raw(), code, "tensordecode: "+err.Error(), "")
			return false
		}
	}
	cfg, err := set.config(labels)
	var dec *decode.Decoder
	if err == nil {
		dec, err = decode.New(cfg)
	}
	if err != nil {
		gstglue.PostErrorRaw(e.raw(), gstglue.ResourceSettings, "tensordecode: "+err.Error(), "")
		return false
	}
	st := &streamState{set: set, mode: cfg.Mode, dec: dec, cLabels: newCLabels(labels), maps: newMaps(), name: elementName(e.raw())}
	setPost(e.self, set.postMessages)
	e.state.Store(st)
	cat.LogInfo(fmt.Sprintf("started: mode %s, %d labels", set.mode, len(labels)))
	return true
}

func (e *element) Stop(self *base.GstBaseTransform) (ret bool) {
	defer gstglue.RecoverTrampoline(e.raw(), "stop", &ret, false)
	st := e.state.Swap(nil)
	if st != nil {
		st.maps.free()
		st.cLabels.free()
		st.metaRead.Close()
	}
	return true
}

// SetCaps reads the caps. other/tensors (tensors mode): the tensors they
// describe, checked against the mode — a layout the mode does not read
// is a negotiation error quoting the tensors' dims (the decoder's text)
// and the caps' dimensions and types; a model input size neither set nor
// told by the outputs is an error asking for input-width and
// input-height. video/x-raw (video mode): the frame's size, which each
// frame's transform maps back into.
func (e *element) SetCaps(self *base.GstBaseTransform, incaps, outcaps *gst.Caps) (ret bool) {
	defer gstglue.RecoverTrampoline(e.raw(), "set-caps", &ret, false)
	st := e.state.Load()
	if st == nil {
		return false
	}
	st.haveCaps = false
	if incaps.GetSize() == 1 && incaps.GetStructureAt(0).Name() == capslayout.MediaVideo {
		w, h, err := videoSize(incaps)
		if err != nil {
			gstglue.PostErrorRaw(e.raw(), gstglue.CoreNegotiation, fmt.Sprintf("tensordecode: caps %v: %v", incaps, err), "")
			return false
		}
		st.video, st.frameW, st.frameH, st.haveCaps = true, w, h, true
		cat.LogInfo(fmt.Sprintf("caps %v: video mode, %d×%d frames", incaps, w, h))
		return true
	}
	st.video = false
	lay, err := st.parseTensors(incaps)
	if err != nil {
		gstglue.PostErrorRaw(e.raw(), gstglue.CoreNegotiation, "tensordecode: "+err.Error(), "")
		return false
	}
	st.lay = lay
	tr, err := tensorsTransform(st.set, st.dec.Config(), st.lay.tensors)
	if err != nil {
		gstglue.PostErrorRaw(e.raw(), gstglue.StreamFormat, fmt.Sprintf("tensordecode: %v (caps %s)", err, st.lay.dims), "")
		return false
	}
	st.tr, st.haveCaps = tr, true
	cat.LogInfo(fmt.Sprintf("caps %v: transform %+v", incaps, tr))
	return true
}

// parseTensors reads the tensors other/tensors caps describe and checks
// them against the mode. Errors quote the caps (caps that are not such
// tensors) or are the decoder's, with the caps' dimensions and types.
func (st *streamState) parseTensors(caps *gst.Caps) (layout, error) {
	lay, err := parseLayout(caps)
	if err != nil {
		return layout{}, err
	}
	if err := st.dec.Check(lay.tensors); err != nil {
		return layout{}, fmt.Errorf("%w (caps %s)", err, lay.dims)
	}
	return lay, nil
}

// parseTensorsCaps is parseLayout of a caps string.
func (st *streamState) parseTensorsCaps(caps string) (layout, error) {
	c := gst.NewCapsFromString(caps)
	if c == nil {
		return layout{}, fmt.Errorf("the tensors' caps %q do not parse", caps)
	}
	defer gstglue.ReleaseCaps(c)
	return parseLayout(c)
}

// parseLayout reads the tensors other/tensors caps describe; errors
// quote the caps.
func parseLayout(caps *gst.Caps) (layout, error) {
	f, err := capslayout.FromCaps(caps)
	if err == nil && f.Media != capslayout.MediaTensors {
		err = fmt.Errorf("%s, want %s", f.Media, capslayout.MediaTensors)
	}
	if err != nil {
		return layout{}, fmt.Errorf("caps %v: %w", caps, err)
	}
	names := capsNames(caps, len(f.Planes))
	lay := layout{tensors: make([]decode.Tensor, 0, len(f.Planes)), dims: capsDims(caps)}
	for i, p := range f.Planes {
		lay.tensors = append(lay.tensors, decode.Tensor{Name: names[i], DType: p.Layout.DType, Shape: p.Layout.Shape})
	}
	return lay, nil
}

// videoSize reads video caps' width and height (any format).
func videoSize(caps *gst.Caps) (w, h int, err error) {
	s := caps.GetStructureAt(0)
	wv, err1 := s.GetValue("width")
	hv, err2 := s.GetValue("height")
	w, ok1 := wv.(int)
	h, ok2 := hv.(int)
	if err1 != nil || err2 != nil || !ok1 || !ok2 || w <= 0 || h <= 0 {
		return 0, 0, errors.New("video caps without a fixed positive width and height")
	}
	return w, h, nil
}

// videoTransform is a video frame's transform: the meta's (how the frame
// became the model's input) onto the frame's size. A meta without the
// model input's size (an input that is not an image) takes it from
// input-width × input-height, else from the outputs, and a scale that is
// not positive is the stretch onto it.
func (st *streamState) videoTransform(t tensormeta.Transform, lay layout) (decode.Transform, error) {
	tr := decode.Transform{InputWidth: t.ModelWidth, InputHeight: t.ModelHeight, FrameWidth: st.frameW, FrameHeight: st.frameH,
		ScaleX: t.ScaleX, ScaleY: t.ScaleY, OffsetX: t.OffsetX, OffsetY: t.OffsetY}
	if tr.InputWidth <= 0 || tr.InputHeight <= 0 {
		it, err := tensorsTransform(st.set, st.dec.Config(), lay.tensors)
		if err != nil {
			return decode.Transform{}, err
		}
		tr.InputWidth, tr.InputHeight = it.InputWidth, it.InputHeight
	}
	if !(tr.ScaleX > 0) || !(tr.ScaleY > 0) {
		if tr.InputWidth > 0 && tr.InputHeight > 0 {
			tr = decode.Stretch(st.frameW, st.frameH, tr.InputWidth, tr.InputHeight)
		}
	}
	return tr, nil
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
