package tensorinfer

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
)

// Name is the element's factory name.
const Name = "tensorinfer"

var (
	cat  = gst.NewDebugCategory(Name, gst.DebugColorNone, "tensorinfer: ONNX Runtime bound once on pinned tensors")
	perf = gst.NewDebugCategory("GST_PERFORMANCE", gst.DebugColorNone, "")
)

// settings are the property values, read at start and per frame.
type settings struct {
	model      string
	ortLibrary string
	threads    uint
	input      string
	outputs    string // comma-separated names; "" = the model's
	maxLeases  uint
	// syncTimeout bounds the wait for an input dma-buf's fences
	// (milliseconds; 0: the kernel waits without a limit);
	// onSyncTimeout is "drop" or "error".
	syncTimeout   uint
	onSyncTimeout string
	proposePool   bool
	// output: "tensors" (the outputs as other/tensors) or "video" (the
	// input video with the outputs in a GstTensorPinMeta); interval: run
	// every interval-th frame (video), the others get the last result.
	output   string
	interval uint
	// Pre-processing (preprocess.go): resize is none, stretch or
	// letterbox; mean, std, scale and offset are one number or three
	// (proptable.ParseNumbers: "v", "r,g,b" or "<r, g, b>").
	resize, channelOrder     string
	padValue                 float64
	mean, std, scale, offset string
	// Region inference (regions.go): inferenceRegion is full-frame or
	// roi-list; objectClass a comma list of region types or detection
	// labels ("": every region).
	inferenceRegion string
	objectClass     string
	minRegionSize   uint
	batchSize       uint
	maxRegions      uint
	maxRegionSide   uint
	regionWidth     uint
	regionHeight    uint
	inputWidth      uint
	inputHeight     uint
	// reclassifyInterval: region mode's runs per track (1 every frame).
	reclassifyInterval uint
}

// Inference-region choices.
const (
	regionFullFrame = "full-frame"
	regionROIList   = "roi-list"
)

// Output choices.
const (
	outputTensors = "tensors"
	outputVideo   = "video"
)

// On-sync-timeout choices.
const (
	onTimeoutDrop  = "drop"
	onTimeoutError = "error"
)

var props = proptable.New(func(e *element) sync.Locker { return &e.settings },
	proptable.String("model", "Model",
		"Path of the ONNX model file. Read at the state change to PAUSED; a missing, truncated or invalid file is an error naming it.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.model }),
	proptable.String("ort-library", "ONNX Runtime library",
		"Path of libonnxruntime.so (>= 1.24); empty: $ONNXRUNTIME_LIB, else libonnxruntime.so.1 / libonnxruntime.so through the loader's search path. One library per process.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.ortLibrary }),
	proptable.Uint("threads", "Threads",
		"ONNX Runtime's intra-op threads (1: the run stays on the streaming thread's core budget).",
		1, 256, 1, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.threads }),
	proptable.String("input", "Input",
		"Name of the model input fed with each frame; empty: the model's only input.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.input }),
	proptable.String("outputs", "Outputs",
		"Comma-separated names of the model outputs pushed downstream, one tensor (one fd memory) each, in this order; empty: all of the model's outputs in its order.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.outputs }),
	proptable.Uint("max-leases", "Maximum leases",
		"Output frames downstream may hold at once: the output ring has max-leases+1 slots (more if downstream's allocation answer asks for it); when every slot is downstream the streaming thread waits.",
		1, 1024, 4, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.maxLeases }),
	proptable.Bool("propose-pool", "Propose pool",
		"Offer upstream a pool of fd memory (dma-heap where present, else memfd) that the element pins and binds once per buffer.",
		true, proptable.WritableInReady, func(e *element) *bool { return &e.settings.Values.proposePool }),
	proptable.Uint("sync-timeout", "Sync timeout",
		"Milliseconds to wait at most for an input dma-buf's fences before reading it; 0: no limit (a flush or a stop still ends the wait). On timeout, on-sync-timeout decides.",
		0, 3600000, 1000, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.syncTimeout }),
	proptable.String("on-sync-timeout", "On sync timeout",
		"What an input frame whose fences did not signal within sync-timeout becomes: \"drop\" (dropped and counted) or \"error\".",
		onTimeoutError, proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.onSyncTimeout }, onTimeoutDrop, onTimeoutError),
	proptable.String("output", "Output",
		"What the src pad carries: \"tensors\" (the model's outputs as other/tensors, one fd memory each) or \"video\" "+
			"(the input video unchanged, no pixel copied, each buffer with its frame's outputs in a GstTensorPinMeta "+
			"— gsttensorpinmeta.h — that holds them until the buffer is freed, and the frame-to-model transform).",
		outputTensors, proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.output }, outputTensors, outputVideo),
	proptable.Uint("interval", "Interval",
		"With output=video, run the model on every interval-th frame and give the frames between the last result (1: every frame).",
		1, 1000, 1, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.interval }),
	proptable.String("resize", "Resize",
		"How a frame becomes the model's input size: \"none\" (the frame must be the model's size), \"stretch\" or \"letterbox\" "+
			"(aspect kept, the rest pad-value). Anything but none (or mean, std, scale, offset, channel-order=bgr) runs the fused "+
			"pre-processing pass: any frame size, RGB/BGR/RGBx/BGRx/xRGB/xBGR/RGBA/BGRA/ARGB/ABGR/NV12/I420.",
		"none", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.resize }, "none", "stretch", "letterbox"),
	proptable.String("channel-order", "Channel order",
		"Channel order of the model's input: \"rgb\" or \"bgr\".",
		"rgb", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.channelOrder }, "rgb", "bgr"),
	proptable.Double("pad-value", "Pad value",
		"Letterbox padding, in pixel units (0-255), normalised as a pixel.",
		0, 255, 0, proptable.WritableInReady, func(e *element) *float64 { return &e.settings.Values.padValue }),
	proptable.String("mean", "Mean",
		"Per-colour mean subtracted after scaling pixels to [0, 1] (float32 models): one number, or three for red, green and blue "+
			"(0.485,0.456,0.406, or GStreamer's array <0.485, 0.456, 0.406>).",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.mean }),
	proptable.String("std", "Standard deviation",
		"Per-colour divisor after the mean (float32 models): one number, or three for red, green and blue "+
			"(0.229,0.224,0.225, or GStreamer's array <0.229, 0.224, 0.225>).",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.std }),
	proptable.String("scale", "Scale",
		"Per-colour factor on pixel values (float32 models, when mean and std are unset; default 1/255): one number, "+
			"or three for red, green and blue (a,b,c or GStreamer's array <a, b, c>).",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.scale }),
	proptable.String("offset", "Offset",
		"Per-colour value added after scale (float32 models): one number, or three for red, green and blue "+
			"(a,b,c or GStreamer's array <a, b, c>).",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.offset }),
	proptable.String("inference-region", "Inference region",
		"What the model runs on: \"full-frame\" (each frame) or \"roi-list\" (each region of interest of the frame — "+
			"its GstVideoRegionOfInterestMetas, as tensordecode adds them — cropped from the frame by the pre-processing pass, "+
			"in batches of batch-size; the video passes on unchanged with one GstTensorPinMeta per batch naming its regions; "+
			"implies output=video).",
		regionFullFrame, proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.inferenceRegion }, regionFullFrame, regionROIList),
	proptable.String("object-class", "Object class",
		"With inference-region=roi-list, the regions run on: a comma-separated list of region types or detection labels "+
			"(e.g. \"car,truck\"); empty: every region.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.objectClass }),
	proptable.Uint("min-region-size", "Minimum region size",
		"With inference-region=roi-list, regions smaller than this many frame pixels on a side (after clipping to the frame) are skipped and counted.",
		1, 65535, 4, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.minRegionSize }),
	proptable.Uint("batch-size", "Batch size",
		"With inference-region=roi-list and a model whose batch dimension is free, the most regions one run takes (a frame's regions go "+
			"in as few runs as this allows); a model with a batch of 1 runs once per region.",
		1, 64, 8, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.batchSize }),
	proptable.Uint("max-regions", "Maximum regions",
		"With inference-region=roi-list, the most regions of a frame the model runs on; the rest are skipped and counted.",
		1, 4096, 64, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.maxRegions }),
	proptable.Uint("max-region-side", "Maximum free side",
		"With inference-region=roi-list and a model whose width (or height) is free, as a text recogniser's [? 3 48 ?]: the "+
			"largest size that side takes, in model pixels. Each batch's free side keeps its widest region's aspect ratio at "+
			"the fixed side (rounded up to a multiple of 32, narrower regions padded with pad-value), up to this.",
		32, 8192, 960, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.maxRegionSide }),
	proptable.Uint("region-width", "Region width",
		"With inference-region=roi-list and a model whose input width is free, fix it: each region's image is this wide "+
			"(0: the model's, or free when the model leaves it free).",
		0, 8192, 0, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.regionWidth }),
	proptable.Uint("region-height", "Region height",
		"With inference-region=roi-list and a model whose input height is free, fix it: each region's image is this high "+
			"(0: the model's, or free when the model leaves it free). A model that leaves both free, as PaddleOCR's direction "+
			"classifier [? 3 ? ?], needs one fixed (region-height=48: the width then follows each region up to max-region-side).",
		0, 8192, 0, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.regionHeight }),
	proptable.Uint("reclassify-interval", "Reclassify interval",
		"With inference-region=roi-list, how often a tracked object is run again: a region whose \"tracking\" structure "+
			"(tensortrack's) names a track run fewer than this many frames ago is skipped and counted in regions-reused, its "+
			"track's last result standing (tensordecode writes it onto the region again). 0: once per track; 1: every frame.",
		0, 1000000, 1, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.reclassifyInterval }),
	proptable.Uint("input-width", "Input width",
		"On whole frames, with a model whose input width is free (a detector's [? 3 ? ?]), fix it: frames are resized into "+
			"this width by resize (stretch or letterbox; with resize=none they must be this wide). 0: the frame's width. "+
			"Convolutional detectors want a multiple of 32 (DBNet, YOLO).",
		0, 8192, 0, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.inputWidth }),
	proptable.Uint("input-height", "Input height",
		"On whole frames, with a model whose input height is free, fix it (see input-width). 0: the frame's height.",
		0, 8192, 0, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.inputHeight }),
	proptable.Stats("Counters since start: frames, runs, input-binds, output-binds, copies, bytes-copied, conversions, run-ns-total (wall), "+
		"run-cpu-ns-sampled and run-wall-ns-sampled over runs-cpu-sampled (the run's CPU and wall time on a sample of the runs), "+
		"pin-cache hits and misses, mmaps, output ring size, waits for a free output slot, begin events matched and expired, "+
		"end events sent, drops, fence waits and timeouts, the frames done in C with no call into Go (steady-frames), "+
		"input bindings destroyed (input-unbinds) and live (inputs-bound), "+
		"pools proposed upstream (pools-proposed) and proposals that reused one (pools-reused), frames given an earlier "+
		"run's result (frames-reused), frames pre-processed (preprocessed, preprocess-ns-total), and in region mode the "+
		"regions run, too small, dropped and reused (regions, regions-too-small, regions-dropped, regions-reused) and the "+
		"batch shapes made (region-shapes).",
		func(e *element) *gst.Structure { return e.statsStructure() }),
)

// element is the Go side of one tensorinfer instance. Settings and
// streaming state are separate, each behind its own lock.
type element struct {
	// Props: the GObject property vfuncs, through props (Bind in New).
	proptable.Props[element]

	settings proptable.Guarded[settings]

	stateMu sync.Mutex
	state   *streamState // nil outside Start..Stop

	stats counters
	// slots numbers the pinned input memories for the element's whole
	// life (see tensorpinsink): an input slot's number is never given to
	// another memory while its pin lives.
	slots *pincache.Slots
	// self is the GstElement this is the Go side of (borrowed: the Go
	// instance lives exactly as long). go-gst v1.4.0's GstBaseTransform
	// trampolines hand the vfuncs a nil *base.GstBaseTransform (its
	// ToGstBaseTransform does not take the C pointer they pass), so the
	// vfuncs never use their self argument.
	self unsafe.Pointer
}

// raw returns the element as a borrowed RawElement.
func (e *element) raw() gstglue.RawElement {
	return gstglue.RawElementOf(e.self)
}

func (*element) New() glib.GoObjectSubclass {
	return proptable.Instance(props, &element{slots: pincache.NewSlots()}, cat)
}

func (e *element) ClassInit(klass *glib.ObjectClass) {
	props.InitClass(klass, proptable.Class{
		LongName:       "Tensor inference (ONNX Runtime)",
		Classification: "Filter/Tensor",
		Description:    "Runs an ONNX model on pinned frames, bound once per input pool slot and per output ring slot; outputs other/tensors fd memory",
		Sink:           sinkTemplate(),
		Src:            srcTemplate(),
	})
	// After go-gst's InitClass: the per-frame vfunc and GstTensorSync
	// begin events take frameengine's allocation-free trampolines.
	installBaseTransform(klass)
	// The sink pad's caps are the model's (TransformCaps), whatever
	// downstream takes.
	installTransformSinkCaps(klass)
}

// sinkTemplate: every raw video format capslayout maps (with and without
// memory:DMABuf) and static other/tensors. New caps owned by the caller.
func sinkTemplate() *gst.Caps { return gst.NewCapsFromString(sinkTemplateString()) }

// sinkTemplateString is the sink template as caps text, for caps built
// around it: making the template's caps only to print them would leave
// them to a go-gst finalizer, which a C or Python process may never run.
func sinkTemplateString() string {
	video := "format=(string)" + capslayout.AllVideoFormats() +
		", width=(int)[1,2147483647], height=(int)[1,2147483647], framerate=(fraction)[0/1,2147483647/1]"
	return capslayout.MediaVideo + "(" + capslayout.FeatureDMABuf + "), " + video +
		"; " + capslayout.MediaVideo + ", " + video +
		"; " + capslayout.MediaTensors + fmt.Sprintf(", format=(string)static, num_tensors=(int)[1,%d]", capslayout.MaxTensors)
}

// srcTemplate: the outputs as other/tensors (output=tensors), or the input
// video passed on (output=video).
func srcTemplate() *gst.Caps {
	return gst.NewCapsFromString(tensorsTemplate() + "; " + sinkTemplateString())
}

func tensorsTemplate() string {
	return capslayout.MediaTensors + fmt.Sprintf(", format=(string)static, num_tensors=(int)[1,%d]", capslayout.MaxTensors)
}

// InstanceInit binds e to the instance for frameengine's trampolines. (Each
// output frame's write bracket is announced downstream right before its
// buffer by the frame's own push: inferFinishFrame.)
func (e *element) InstanceInit(obj *glib.Object) {
	e.self = obj.Unsafe()
	// The per-frame trampolines (prepare-output-buffer, GstTensorSync
	// begin) find e through a handle on the instance, not go-glib's
	// lookup.
	gstglue.BindInstance(e.self, e)
	t := base.ToGstBaseTransform(obj)
	t.SetQoSEnabled(false)
}

// readSettings returns the settings the element works with: region
// inference implies output=video.
func (e *element) readSettings() settings {
	set := e.settings.Read()
	if set.regions() {
		set.output = outputVideo
	}
	return set
}

// regions reports whether the model runs on regions of interest.
func (s settings) regions() bool { return s.inferenceRegion == regionROIList }

func (e *element) current() *streamState {
	e.stateMu.Lock()
	defer e.stateMu.Unlock()
	return e.state
}

// Register registers tensorinfer with plugin (nil: statically, for Go
// programs that do not load the plugin .so).
func Register(plugin *gst.Plugin) bool {
	return gst.RegisterElement(plugin, Name, gst.RankNone, &element{}, base.ExtendsBaseTransform)
}
