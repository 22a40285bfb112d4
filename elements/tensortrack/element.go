package tensortrack

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/track"
)

// Name is the element's factory name.
const Name = "tensortrack"

var cat = gst.NewDebugCategory(Name, gst.DebugColorNone, "tensortrack: objects followed over frames")

// settings are the property values: the tracker's read at start,
// post-messages pushed into the C state when set.
type settings struct {
	maxLost       uint
	minHits       uint
	iouThreshold  float64
	highThreshold float64
	lowThreshold  float64
	classAgnostic bool
	postMessages  bool
	resultsFrom   string
}

// maxLostLimit bounds max-lost (an hour at 30 frames a second).
const maxLostLimit = 108000

// minHitsLimit bounds min-hits (ten seconds at 30 frames a second).
const minHitsLimit = 300

func pushSettings(_ *glib.Object, e *element) {
	s := e.settings.Read()
	pushPostMessages(e.self, s.postMessages)
}

var props = proptable.New(func(e *element) sync.Locker { return &e.settings },
	proptable.Uint("max-lost", "Maximum frames lost",
		"How many frames a track lives on without a detection (predicted, at the motion model's place) before it ends; frames the detector did not run on count.",
		0, maxLostLimit, uint(track.DefaultConfig().MaxLost), proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.maxLost }),
	proptable.Uint("min-hits", "Minimum hits",
		"How many detector runs in a row must see a new object before its track gets an id and is written on the frames (a box seen once may be noise); "+
			"until then its region is left without one. 1: an id at the first detection (a second model with reclassify-interval then runs once per object, not also on its unconfirmed first sightings). "+
			"On the first detector run after a start or a flushing seek, tracks get their ids at once.",
		1, minHitsLimit, uint(track.DefaultConfig().MinHits), proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.minHits }),
	proptable.Double("iou-threshold", "IoU threshold",
		"A detection continues a track whose predicted box it overlaps with this intersection over union or more (or, for a confident detection, whose centre is within a box size and the prediction's uncertainty).",
		0, 1, track.DefaultConfig().IoUThreshold, proptable.WritableInReady, func(e *element) *float64 { return &e.settings.Values.iouThreshold }),
	proptable.Double("high-threshold", "High threshold",
		"Detections of this confidence or more are matched to the tracks first, and only they start tracks (ByteTrack's first pass).",
		0, 1, track.DefaultConfig().HighThreshold, proptable.WritableInReady, func(e *element) *float64 { return &e.settings.Values.highThreshold }),
	proptable.Double("low-threshold", "Low threshold",
		"Detections of this confidence or more, below high-threshold, continue the tracks left without one (ByteTrack's second pass: a partly hidden object scores low); below it they are ignored. At most high-threshold.",
		0, 1, track.DefaultConfig().LowThreshold, proptable.WritableInReady, func(e *element) *float64 { return &e.settings.Values.lowThreshold }),
	proptable.Bool("class-agnostic", "Class-agnostic",
		"Match detections to tracks whatever their class and label; otherwise a detection only continues a track of its class and label.",
		false, proptable.WritableInReady, func(e *element) *bool { return &e.settings.Values.classAgnostic }),
	proptable.Bool("post-messages", "Post messages",
		"Post an element message tensortrack-ended for each track that ends (id, first-pts, last-pts, frames-seen, its last box x, y, w, h, label, class-id).",
		false, glib.ParameterReadWrite, func(e *element) *bool { return &e.settings.Values.postMessages }).
		Then(pushSettings),
	proptable.String("results-from", "Results from",
		"The name of the tensorinfer whose GstTensorPinMeta tells which frames repeat its last run (interval), when a frame carries several: "+
			"the one whose results tensordecode decoded (its results-from); empty: the latest, the tensorinfer just before.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.resultsFrom }),
	proptable.Stats("Counters since start: frames, tracks-started (given an id), tracks-ended, tracks-alive (now), predicted-regions (regions written at a track's predicted place: moved or added).",
		func(e *element) *gst.Structure { return e.statsStructure() }),
)

// streamState exists between Start and Stop, behind stateMu: the
// streaming thread's frames and events and the state changes share the
// tracker.
type streamState struct {
	tr  *track.Tracker
	res track.Result
	// Per frame, kept across frames (no allocation in steady state).
	dets    []track.Detection
	claimed []bool // by result track: it has its region this frame
	// The last detector run's detections and, by detection, the id of
	// the track it matched (0: none): the frames repeating the run carry
	// the same regions.
	runDets  []track.Detection
	runTrack []uint64
}

// element is the Go side of one tensortrack instance. Settings and
// streaming state are separate, each behind its own lock.
type element struct {
	// Props: the GObject property vfuncs, through props (Bind in New).
	proptable.Props[element]

	settings proptable.Guarded[settings]

	stateMu sync.Mutex
	state   *streamState // nil outside Start..Stop
	nextID  uint64       // the next track id: ids are never reused, run after run

	// self is the GstElement this is the Go side of (borrowed: the Go
	// instance lives exactly as long). go-gst v1.4.0's GstBaseTransform
	// trampolines hand the vfuncs a nil *base.GstBaseTransform.
	self unsafe.Pointer
}

func (*element) New() glib.GoObjectSubclass {
	return proptable.Instance(props, &element{nextID: 1}, cat)
}

func (e *element) ClassInit(klass *glib.ObjectClass) {
	caps := gst.NewCapsFromString(capslayout.MediaVideo + "; " + capslayout.MediaVideo + "(" + capslayout.FeatureDMABuf + ")")
	props.InitClass(klass, proptable.Class{
		LongName:       "Tensor tracker",
		Classification: "Filter/Analyzer/Video",
		Description: "Follows the objects of a frame's regions of interest (GstVideoRegionOfInterestMeta with a detection structure) over frames: " +
			"each region gets its track's id and a tracking structure, and frames without a detector run get the tracks' predicted regions",
		Sink: caps,
		Src:  caps,
	})
	// After go-gst's InitClass: every frame is track.c's, with one call
	// into Go.
	installClass(klass)
}

// InstanceInit gives the instance its C state and makes it an in-place
// transform: a buffer others hold is made writable by GstBaseTransform
// first (a shallow copy: metas are the buffer's, memories are shared).
func (e *element) InstanceInit(obj *glib.Object) {
	e.self = obj.Unsafe()
	attachState(e.self, e)
	pushPostMessages(e.self, e.settings.Read().postMessages)
	t := base.ToGstBaseTransform(obj)
	t.SetInPlace(true)
	t.SetQoSEnabled(false)
}

// Start makes the tracker from the settings: thresholds the tracker
// refuses (low-threshold above high-threshold) are a settings error and a
// refused state change. Ids go on from the last run's.
func (e *element) Start(self *base.GstBaseTransform) (ret bool) {
	defer gstglue.RecoverTrampoline(gstglue.RawElementOf(e.self), "start", &ret, false)
	s := e.settings.Read()
	cfg := track.DefaultConfig()
	cfg.MaxLost = int(s.maxLost)
	cfg.MinHits = int(s.minHits)
	cfg.IoUThreshold, cfg.HighThreshold, cfg.LowThreshold = s.iouThreshold, s.highThreshold, s.lowThreshold
	cfg.ClassAgnostic = s.classAgnostic
	// Start and Stop never run at once (GStreamer's state lock): nextID
	// cannot change between here and the state's install, and the error
	// is posted with no lock held.
	e.stateMu.Lock()
	cfg.FirstID = e.nextID
	e.stateMu.Unlock()
	tr, err := track.New(cfg)
	if err != nil {
		gstglue.PostErrorRaw(gstglue.RawElementOf(e.self), gstglue.ResourceSettings, "tensortrack: "+err.Error(), "")
		return false
	}
	resetCounters(e.self)
	pushResultsFrom(e.self, s.resultsFrom)
	e.stateMu.Lock()
	e.state = &streamState{tr: tr}
	e.stateMu.Unlock()
	cat.LogInfo(fmt.Sprintf("started: max-lost %d, min-hits %d, iou-threshold %g, thresholds %g/%g, class-agnostic %v, ids from %d",
		cfg.MaxLost, cfg.MinHits, cfg.IoUThreshold, cfg.HighThreshold, cfg.LowThreshold, cfg.ClassAgnostic, cfg.FirstID))
	return true
}

// Stop ends the tracks still alive (their messages posted: a stream
// stopped without EOS ends nothing silently) and drops the tracker.
func (e *element) Stop(self *base.GstBaseTransform) (ret bool) {
	defer gstglue.RecoverTrampoline(gstglue.RawElementOf(e.self), "stop", &ret, false)
	endAll(e.self) // outside stateMu: it calls back into Go, and posts
	e.stateMu.Lock()
	defer e.stateMu.Unlock()
	if e.state != nil {
		e.nextID = e.state.tr.NextID()
		e.state = nil
	}
	return true
}

// Register registers tensortrack with plugin (nil: statically, for Go
// programs that do not load the plugin .so).
func Register(plugin *gst.Plugin) bool {
	return gst.RegisterElement(plugin, Name, gst.RankNone, &element{}, base.ExtendsBaseTransform)
}
