package tensordecode

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// Name is the element's factory name.
const Name = "tensordecode"

var cat = gst.NewDebugCategory(Name, gst.DebugColorNone, "tensordecode: model outputs to regions of interest")

// settings are the property values, read at start.
type settings struct {
	mode           string
	labels         string
	scoreThreshold float64
	iouThreshold   float64
	maxDetections  uint
	topK           uint
	softmax        bool
	minArea        uint
	unclipRatio    float64
	mapThreshold   float64
	connectivity   uint
	yoloLayout     string
	inputWidth     uint
	inputHeight    uint
	postMessages   bool
	resultsFrom    string
}

// maxCount bounds the count properties (any larger value means the same:
// no frame has that many objects).
const maxCount = 1 << 20

var props = proptable.New(func(e *element) sync.Locker { return &e.settings },
	proptable.String("mode", "Mode",
		"How the tensors are read: \"classify\" (one tensor of class scores: the top-k classes as whole-frame regions), "+
			"\"boxes-ssd\" (SSD post-processed boxes, classes, scores, count), \"boxes-yolo\" (YOLOv5 [1 N 5+C] or YOLOv8 [1 4+C N], "+
			"thresholded and suppressed), \"map-boxes\" (a probability map [1 1 H W]: one box per connected region) or \"ctc\" "+
			"(a text recogniser's [N T C] per-step probabilities: greedy CTC into one text per line, its tokens the labels file's "+
			"lines; on whole frames each a \"text\" region with a \"classification\"). "+
			"On region results (tensorinfer inference-region=roi-list) classify and ctc write a \"classification\" onto each region, "+
			"the others boxes inside it.",
		"boxes-yolo", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.mode }, decode.ModeNames()...),
	proptable.String("labels", "Labels",
		"Path of a labels file, one label per line, line i naming class i (blank lines are classes without a label); "+
			"in ctc mode the dictionary, line i the token of class i (the blank is class 0; lines are not trimmed); "+
			"empty: no labels. UTF-8. A file that cannot be read, or a line that is not UTF-8, is an error at the state change to PAUSED.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.labels }),
	proptable.Double("score-threshold", "Score threshold",
		"Objects must score above this: the class probability (classify; after softmax when set), SSD's score, "+
			"YOLO's objectness × class score (v5) or class score (v8), a map region's mean probability.",
		-math.MaxFloat64, math.MaxFloat64, 0.25, proptable.WritableInReady, func(e *element) *float64 { return &e.settings.Values.scoreThreshold }),
	proptable.Double("iou-threshold", "IoU threshold",
		"In boxes-yolo mode, the non-maximum suppression's bound: a box whose intersection over union with a better box of its class exceeds it is dropped.",
		0, 1, 0.45, proptable.WritableInReady, func(e *element) *float64 { return &e.settings.Values.iouThreshold }),
	proptable.Uint("max-detections", "Maximum detections",
		"The most objects a frame gets, the best kept; 0: no limit.",
		0, maxCount, 100, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.maxDetections }),
	proptable.Uint("top-k", "Top k",
		"In classify mode, how many of the best classes a frame gets; 0: every class over the score threshold.",
		0, maxCount, 1, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.topK }),
	proptable.Bool("softmax", "Softmax",
		"In classify mode, take the scores as logits and apply softmax before the threshold.",
		false, proptable.WritableInReady, func(e *element) *bool { return &e.settings.Values.softmax }),
	proptable.Uint("min-area", "Minimum area",
		"In map-boxes mode, regions of fewer map cells are dropped.",
		0, math.MaxInt32, 0, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.minArea }),
	proptable.Double("unclip-ratio", "Unclip ratio",
		"In map-boxes mode, each region's box grows by area × ratio / perimeter on every side, as DBNet's post-processing "+
			"expands text regions (1.5 there); 0: boxes as found.",
		0, 100, 0, proptable.WritableInReady, func(e *element) *float64 { return &e.settings.Values.unclipRatio }),
	proptable.Double("map-threshold", "Map threshold",
		"In map-boxes mode, map cells above this are foreground.",
		-math.MaxFloat64, math.MaxFloat64, 0.5, proptable.WritableInReady, func(e *element) *float64 { return &e.settings.Values.mapThreshold }),
	proptable.Uint("connectivity", "Connectivity",
		"In map-boxes mode, cells sharing an edge (4), or an edge or a corner (8), are one region.",
		4, 8, 8, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.connectivity }),
	proptable.String("yolo-layout", "YOLO layout",
		"In boxes-yolo mode, the output's layout: \"v5\" ([1 N 5+C]), \"v8\" ([1 4+C N]) or \"auto\" (from the shape: the layout that fits, "+
			"else the one whose class count is the labels', else v8 when the middle dimension is the smaller).",
		"auto", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.yoloLayout }, "auto", "v5", "v8"),
	proptable.Uint("input-width", "Input width",
		"The model input's width in pixels, the frame's in tensors mode (with input-height; 0 and 0: from the outputs "+
			"where they tell it — a YOLO output's candidate count, a map's size — else needed by boxes-ssd's normalized boxes); "+
			"in video mode the GstTensorPinMeta's size, these only when it has none.",
		0, math.MaxInt32, 0, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.inputWidth }),
	proptable.Uint("input-height", "Input height",
		"The model input's height in pixels (see input-width).",
		0, math.MaxInt32, 0, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.inputHeight }),
	proptable.Bool("post-messages", "Post messages",
		"Post each frame's objects as the element message tensordecode-objects (pts, and objects: an array of "+
			"object structures with x, y, w, h, class-id, confidence and label; region-id for a region's result).",
		false, proptable.WritableInReady, func(e *element) *bool { return &e.settings.Values.postMessages }),
	proptable.String("results-from", "Results from",
		"In video mode, the name of the tensorinfer whose results are decoded, when a frame carries several "+
			"(each tensorinfer output=video in a line adds its own); empty: the latest, the tensorinfer just before this element.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.resultsFrom }),
	proptable.Stats("Counters since start: frames decoded, objects found, decode-ns-total (wall time spent decoding), "+
		"frames-without-tensors (video buffers without a GstTensorPinMeta, passed through), regions (region results decoded), "+
		"results-carried (a tracked region's standing result written again on a frame its tensorinfer did not run it), "+
		"non-finite (candidates dropped for a NaN or an infinity in the model's outputs).",
		func(e *element) *gst.Structure { return e.statsStructure() }),
)

// element is the Go side of one tensordecode instance. Settings and
// streaming state are separate: the settings behind their lock, the
// state swapped whole at start and stop.
type element struct {
	// Props: the GObject property vfuncs, through props (Bind in New).
	proptable.Props[element]

	settings proptable.Guarded[settings]

	state atomic.Pointer[streamState] // nil outside Start..Stop

	stats counters
	// self is the GstElement this is the Go side of (borrowed: the Go
	// instance lives exactly as long). go-gst v1.4.0's GstBaseTransform
	// trampolines hand the vfuncs a nil *base.GstBaseTransform, so the
	// vfuncs never use their self argument.
	self unsafe.Pointer
}

// raw returns the element as a borrowed RawElement.
func (e *element) raw() gstglue.RawElement { return gstglue.RawElementOf(e.self) }

func (*element) New() glib.GoObjectSubclass { return proptable.Instance(props, &element{}, cat) }

func (e *element) ClassInit(klass *glib.ObjectClass) {
	caps := padCaps()
	props.InitClass(klass, proptable.Class{
		LongName:       "Tensor decoder",
		Classification: "Filter/Tensor",
		Description: "Decodes a model's output tensors (classification, SSD or YOLO boxes, probability maps) into " +
			"GstVideoRegionOfInterestMeta on the buffer, which passes through: other/tensors, or video with " +
			"tensorinfer output=video's GstTensorPinMeta",
		Sink: caps,
		Src:  caps,
	})
	installFrame(klass)
}

// padCaps are both pads' caps: what tensorinfer pushes — other/tensors
// (tensors mode), or with output=video any raw video, in system or
// DMA-BUF memory (video mode: the tensors in each buffer's
// GstTensorPinMeta). The src pad's caps are the sink pad's.
func padCaps() *gst.Caps {
	return gst.NewCapsFromString(capslayout.MediaTensors +
		fmt.Sprintf(", format=(string)static, num_tensors=(int)[1,%d]; ", capslayout.MaxTensors) +
		capslayout.MediaVideo + "; " + capslayout.MediaVideo + "(" + capslayout.FeatureDMABuf + ")")
}

// InstanceInit binds e to the instance and makes the transform in-place:
// the buffer passes through, its regions of interest added. A buffer
// others hold too is made writable by GstBaseTransform first — a
// shallow copy (gst_buffer_copy: the memories are shared, not copied;
// metadata is the buffer's, not its memories') — and one that is not
// shared is used as it is.
func (e *element) InstanceInit(obj *glib.Object) {
	e.self = obj.Unsafe()
	gstglue.BindInstance(e.self, e)
	attachFrame(e.self)
	t := base.ToGstBaseTransform(obj)
	t.SetInPlace(true)
	t.SetQoSEnabled(false)
}

// Register registers tensordecode with plugin (nil: statically, for Go
// programs that do not load the plugin .so).
func Register(plugin *gst.Plugin) bool {
	return gst.RegisterElement(plugin, Name, gst.RankNone, &element{}, base.ExtendsBaseTransform)
}
