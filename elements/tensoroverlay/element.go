package tensoroverlay

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
)

// Name is the element's factory name.
const Name = "tensoroverlay"

var cat = gst.NewDebugCategory(Name, gst.DebugColorNone, "tensoroverlay: regions of interest drawn on video frames")

// Formats are the raw video formats the element draws on, in caps order.
var Formats = []string{"RGB", "BGR", "RGBx", "BGRx", "xRGB", "xBGR", "RGBA", "BGRA", "ARGB", "ABGR", "NV12", "I420"}

// settings are the property values; a change is pushed into the C state,
// which a frame reads once.
type settings struct {
	lineWidth  uint
	color      uint // 0xAARRGGBB
	drawLabels bool
	fontScale  uint
}

// DefaultColor is the color property's default: opaque green.
const DefaultColor = 0xFF00FF00

// pushSettings runs after each set of a setting: the next frame draws
// with it.
func pushSettings(_ *glib.Object, e *element) { e.push() }

var props = proptable.New(func(e *element) sync.Locker { return &e.settings },
	proptable.Uint("line-width", "Line width",
		"Thickness in pixels of each box's outline, drawn inside the region's rectangle.",
		1, 256, 2, glib.ParameterReadWrite, func(e *element) *uint { return &e.settings.Values.lineWidth }).
		Then(pushSettings),
	proptable.Uint("color", "Color",
		"Colour of the outlines and of the label backgrounds, as 0xAARRGGBB (default 0xFF00FF00, opaque green): alpha 0xFF paints the colour, a lower alpha blends it over the frame.",
		0, 0xFFFFFFFF, DefaultColor, glib.ParameterReadWrite, func(e *element) *uint { return &e.settings.Values.color }).
		Then(pushSettings),
	proptable.Bool("draw-labels", "Draw labels",
		"Draw above each box its label and confidence (\"person 0.87\"; \"#12 person 0.87\" with a tracking id), and under it "+
			"a line per classification (a second model's class or text, \"OK 0.95\"), in black or white on the box's colour.",
		true, glib.ParameterReadWrite, func(e *element) *bool { return &e.settings.Values.drawLabels }).
		Then(pushSettings),
	proptable.Uint("font-scale", "Font scale",
		"Size of the label text: each pixel of the 5x7 font is font-scale by font-scale pixels.",
		1, 16, 2, glib.ParameterReadWrite, func(e *element) *uint { return &e.settings.Values.fontScale }).
		Then(pushSettings),
	proptable.Stats("Counters since start: frames, boxes drawn, and copies (frames whose memory was copied to draw on them: a buffer shared by a tee or a holder upstream, or read-only memory).",
		func(e *element) *gst.Structure { return e.statsStructure() }),
)

// element is the Go side of one tensoroverlay instance: its settings, and
// the pointer to the instance whose C state draws the frames.
type element struct {
	// Props: the GObject property vfuncs, through props (Bind in New).
	proptable.Props[element]

	settings proptable.Guarded[settings]

	// self is the GstElement this is the Go side of (borrowed: the Go
	// instance lives exactly as long): the settings go to its C state,
	// the counters come from there.
	self unsafe.Pointer
}

func (*element) New() glib.GoObjectSubclass { return proptable.Instance(props, &element{}, cat) }

func (e *element) ClassInit(klass *glib.ObjectClass) {
	caps := capsString()
	props.InitClass(klass, proptable.Class{
		LongName:       "Tensor overlay",
		Classification: "Filter/Effect/Video",
		Description:    "Draws each region of interest of a frame (GstVideoRegionOfInterestMeta) as a box outline with a label and confidence above it, in place",
		Sink:           gst.NewCapsFromString(caps),
		Src:            gst.NewCapsFromString(caps),
	})
	// After go-gst's InitClass: every frame is overlay.c's, with no call
	// into Go.
	installClass(klass)
}

// capsString is both pads' caps: the formats, any size and any framerate
// (or none: a still image's caps); GstBaseTransform's default
// transform_caps makes the src caps the sink caps.
func capsString() string {
	return "video/x-raw, format=(string){ " + strings.Join(Formats, ", ") + " }, width=(int)[1,2147483647], height=(int)[1,2147483647]"
}

// InstanceInit gives the instance its C state with the default settings
// and makes it an in-place transform.
func (e *element) InstanceInit(obj *glib.Object) {
	e.self = obj.Unsafe()
	attachState(e.self, e.settings.Read())
	base.ToGstBaseTransform(obj).SetInPlace(true)
}

// push hands the settings to the C state. Under the settings lock, so
// that two sets racing reach C in the order they were stored.
func (e *element) push() {
	e.settings.Lock()
	defer e.settings.Unlock()
	pushParams(e.self, e.settings.Values)
}

// Register registers tensoroverlay with plugin (nil: statically, for Go
// programs that do not load the plugin .so).
func Register(plugin *gst.Plugin) bool {
	return gst.RegisterElement(plugin, Name, gst.RankNone, &element{}, base.ExtendsBaseTransform)
}
