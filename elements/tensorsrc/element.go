package tensorsrc

import (
	"fmt"
	"math"
	"sync"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
)

// Name is the element's factory name.
const Name = "tensorsrc"

var cat = gst.NewDebugCategory(Name, gst.DebugColorNone, "tensorsrc: a ring of pinned tensors pushed as DMA-BUF/fd buffers")

// settings are the property values. They are read at Start (backend,
// pool size, pattern) and during negotiation (caps targets).
type settings struct {
	poolSize   int
	backend    string
	pattern    string
	width      int
	height     int
	format     string
	dimensions string
	dtype      string
	fpsN, fpsD int
	isLive     bool
	handoff    string
}

var defaults = settings{
	poolSize: 4, backend: "auto", pattern: "counter", width: 320, height: 240,
	format: "RGB", dimensions: "", dtype: "uint8", fpsN: 30, fpsD: 1, handoff: handoffAdopt,
}

// Property indexes, in InstallProperties order (go-glib passes SetProperty
// and GetProperty the 0-based index).
const (
	propPoolSize = iota
	propBackend
	propPattern
	propWidth
	propHeight
	propFormat
	propDimensions
	propType
	propFramerate
	propIsLive
	propHandoff
	propStats
)

func strp(s string) *string { return &s }

func properties() []*glib.ParamSpec {
	rw := glib.ParameterReadWrite | gst.ParameterMutableReady
	return []*glib.ParamSpec{
		glib.NewUintParam("pool-size", "Pool size",
			"Number of tensors in the ring; a buffer is reused once downstream has freed it", 1, 64, uint(defaults.poolSize), rw),
		glib.NewStringParam("backend", "Backend",
			"Where the tensors are allocated: auto (dma-heap when present, else memfd), dma-heap, udmabuf or memfd", strp(defaults.backend), rw),
		glib.NewStringParam("pattern", "Pattern",
			"Content of each frame: counter (byte i of frame n is n*7+i), gradient (byte i is i), black, or app (tensors pushed through the Go API)", strp(defaults.pattern), rw),
		glib.NewIntParam("width", "Width", "Preferred video width when downstream leaves it open", 1, 16384, defaults.width, rw),
		glib.NewIntParam("height", "Height", "Preferred video height when downstream leaves it open", 1, 16384, defaults.height, rw),
		glib.NewStringParam("format", "Format",
			"Preferred raw video format when downstream leaves it open, one of "+capslayout.VideoFormats(), strp(defaults.format), rw),
		glib.NewStringParam("dimensions", "Dimensions",
			"Preferred other/tensors dimensions, innermost first as in NNStreamer (e.g. 3:320:240:1); empty derives them from format, width and height", strp(defaults.dimensions), rw),
		glib.NewStringParam("type", "Type", "Preferred other/tensors element type (uint8, float32, ...)", strp(defaults.dtype), rw),
		gstc.NewFractionParam("framerate", "Frame rate", "Preferred frame rate when downstream leaves it open",
			[2]int{0, 1}, [2]int{math.MaxInt32, 1}, [2]int{defaults.fpsN, defaults.fpsD}, rw),
		glib.NewBoolParam("is-live", "Is live", "Act as a live source: produce only in PLAYING and pace buffers on the clock", defaults.isLive, rw),
		glib.NewStringParam("handoff", "Hand-off",
			"How the CPU-access bracket of each frame ends: adopt (it stays open while the buffer travels and every CPU reader downstream shares it; it ends when the last holder frees the buffer) or close (the source ends it right after writing, so a device reader downstream sees flushed caches; CPU readers bracket their own reads)",
			strp(defaults.handoff), rw),
		glib.NewBoxedParam("stats", "Statistics",
			"Counters of the current or last run (frames, mmaps, sync brackets and who closed them, waits for a free slot)", gst.TypeStructure, glib.ParameterReadable),
	}
}

// element is the Go side of a tensorsrc instance.
type element struct {
	settingsMu sync.Mutex
	settings   settings

	// mu guards the streaming state, every ring and slot, and runs; cond
	// (on mu) is broadcast when a slot is freed, the app pushes, the
	// source is unlocked, started or stopped, or a ring is ready.
	mu   sync.Mutex
	cond *sync.Cond
	st   *state // nil outside Start..Stop
	runs int    // Start calls so far

	// stats are the counters of the current or last run.
	stats *runStats
}

// New implements glib.GoObjectSubclass.
func (*element) New() glib.GoObjectSubclass {
	e := &element{settings: defaults, stats: newRunStats(0, "")}
	e.cond = sync.NewCond(&e.mu)
	return e
}

// ClassInit implements glib.GoObjectSubclass.
func (*element) ClassInit(klass *glib.ObjectClass) {
	ec := gst.ToElementClass(klass)
	ec.SetMetadata("Tensor ring source", "Source/Video/Tensor",
		"Pushes a ring of pinned tensors (DMA-BUF or memfd) as zero-copy buffers, with GstTensorSync cache-coherency brackets",
		"gst-tensorpin developers")
	ec.AddPadTemplate(gst.NewPadTemplate("src", gst.PadDirectionSource, gst.PadPresenceAlways,
		gst.NewCapsFromString(templateCaps(true))))
	klass.InstallProperties(properties())
	// After go-gst's InitClass (go-glib runs it before ClassInit): create
	// and upstream GstTensorSync end events take gstc's allocation-free
	// trampolines; other events still reach Event through go-gst's.
	gstc.InstallPushSrcCreate(klass)
	gstc.InstallBaseSrcTensorSync(klass)
	gstc.InstallLiveGetTimes(klass)
}

// InstanceInit implements glib.Initter: time format, and the probe that
// announces each buffer's bracket right before the buffer.
func (*element) InstanceInit(obj *glib.Object) {
	src := base.ToGstBaseSrc(obj)
	src.SetFormat(gst.FormatTime)
	if pad := src.GetStaticPad("src"); pad != nil {
		gstc.InstallTensorSyncAnnouncer(pad)
		gstc.ReleasePad(pad)
	}
}

// Register registers tensorsrc with plugin (nil: statically, for Go
// programs and tests that do not load the plugin .so).
func Register(plugin *gst.Plugin) bool {
	return gst.RegisterElement(plugin, Name, gst.RankNone, &element{}, base.ExtendsPushSrc)
}

func (e *element) snapshot() settings {
	e.settingsMu.Lock()
	defer e.settingsMu.Unlock()
	return e.settings
}

// SetProperty implements glib.GoObject (id is 0-based).
func (e *element) SetProperty(obj *glib.Object, id uint, value *glib.Value) {
	if id == propFramerate {
		n, d, ok := gstc.ValueFraction(value)
		if ok && d > 0 {
			e.settingsMu.Lock()
			e.settings.fpsN, e.settings.fpsD = n, d
			e.settingsMu.Unlock()
		}
		return
	}
	v, err := value.GoValue()
	if err != nil {
		cat.LogWarning(fmt.Sprintf("property %d: %v", id, err))
		return
	}
	// The param specs fix each value's type; comma-ok keeps a mismatch
	// from panicking on a GStreamer thread anyway.
	str, _ := v.(string)
	num, _ := v.(int)
	e.settingsMu.Lock()
	defer e.settingsMu.Unlock()
	s := &e.settings
	switch id {
	case propPoolSize:
		if n, ok := v.(uint); ok {
			s.poolSize = int(n)
		}
	case propBackend:
		s.backend = str
	case propPattern:
		s.pattern = str
	case propWidth:
		s.width = num
	case propHeight:
		s.height = num
	case propFormat:
		s.format = str
	case propDimensions:
		s.dimensions = str
	case propType:
		s.dtype = str
	case propHandoff:
		s.handoff = str
	case propIsLive:
		s.isLive, _ = v.(bool)
		base.ToGstBaseSrc(obj).SetLive(s.isLive)
	}
}

// GetProperty implements glib.GoObject (id is 0-based).
func (e *element) GetProperty(_ *glib.Object, id uint) *glib.Value {
	s := e.snapshot()
	var v any
	switch id {
	case propPoolSize:
		v = uint(s.poolSize)
	case propBackend:
		v = s.backend
	case propPattern:
		v = s.pattern
	case propWidth:
		v = s.width
	case propHeight:
		v = s.height
	case propFormat:
		v = s.format
	case propDimensions:
		v = s.dimensions
	case propType:
		v = s.dtype
	case propFramerate:
		fv, _ := gstc.NewFractionValue(s.fpsN, s.fpsD)
		return fv
	case propIsLive:
		v = s.isLive
	case propHandoff:
		v = s.handoff
	case propStats:
		e.mu.Lock()
		rs := e.stats
		e.mu.Unlock()
		sv, _ := gstc.TakeStructureValue(rs.structure())
		return sv
	default:
		return nil
	}
	gv, err := glib.GValue(v)
	if err != nil {
		return nil
	}
	return gv
}
