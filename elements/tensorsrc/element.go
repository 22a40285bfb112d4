package tensorsrc

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
)

// Name is the element's factory name.
const Name = "tensorsrc"

var cat = gst.NewDebugCategory(Name, gst.DebugColorNone, "tensorsrc: a ring of pinned tensors pushed as DMA-BUF/fd buffers")

// settings are the property values. They are read at Start (backend,
// pool size, pattern, handoff) and during negotiation (caps targets).
type settings struct {
	poolSize    uint
	maxPoolSize uint
	backend     string
	pattern     string
	width       int
	height      int
	format      string
	dimensions  string
	dtype       string
	framerate   [2]int // numerator, denominator
	isLive      bool
	handoff     string
	// syncTimeout bounds (ms; 0: no bound) the wait for the fences a
	// slot's dma-buf may still carry when its bracket opens for writing.
	syncTimeout uint
}

// props is the element's property table (see package proptable).
var props = proptable.New(func(e *element) sync.Locker { return &e.settings },
	proptable.Uint("pool-size", "Pool size",
		"Number of tensors in the ring; a buffer is reused once downstream has freed it",
		1, 64, 4, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.poolSize }),
	proptable.Uint("max-pool-size", "Maximum pool size",
		"Most tensors the ring grows to, one at a time, when every tensor is held downstream while a sink waits for its preroll (PAUSED): "+
			"then no queue or prerolled sink frees one, and without a new tensor the pipeline never prerolls (a tee whose queues hold the whole ring). "+
			"The ring grows after 100 ms with no tensor back, then after twice as long each time in a row (at most 10 s), and keeps what it grew, each tensor pinned once; "+
			"in PLAYING it never grows (back-pressure), nor in a prerolled pipeline. A value at or below the ring's size (pool-size, or downstream's min-buffers) never grows it",
		1, 64, 64, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.maxPoolSize }),
	proptable.String("backend", "Backend",
		"Where the tensors are allocated: auto (dma-heap when present, else memfd), dma-heap, udmabuf or memfd",
		"auto", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.backend }),
	proptable.String("pattern", "Pattern",
		"Content of each frame: counter (byte i of frame n is n*7+i), gradient (byte i is i), black, none (the slot's bytes are left as they are, zeros at first: a producer whose cost does not grow with the frame, for benchmarks), or app (tensors pushed through the Go API)",
		"counter", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.pattern }),
	proptable.Int("width", "Width", "Preferred video width when downstream leaves it open",
		1, 16384, 320, proptable.WritableInReady, func(e *element) *int { return &e.settings.Values.width }),
	proptable.Int("height", "Height", "Preferred video height when downstream leaves it open",
		1, 16384, 240, proptable.WritableInReady, func(e *element) *int { return &e.settings.Values.height }),
	proptable.String("format", "Format",
		"Preferred raw video format when downstream leaves it open, one of "+capslayout.VideoFormats(),
		"RGB", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.format }),
	proptable.String("dimensions", "Dimensions",
		"Preferred other/tensors dimensions, innermost first as in NNStreamer (e.g. 3:320:240:1); empty derives them from format, width and height",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.dimensions }),
	proptable.String("type", "Type", "Preferred other/tensors element type (uint8, float32, ...)",
		"uint8", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.dtype }),
	proptable.Fraction("framerate", "Frame rate", "Preferred frame rate when downstream leaves it open",
		[2]int{0, 1}, [2]int{math.MaxInt32, 1}, [2]int{30, 1}, proptable.WritableInReady,
		func(e *element) *[2]int { return &e.settings.Values.framerate }),
	proptable.Bool("is-live", "Is live", "Act as a live source: produce only in PLAYING and pace buffers on the clock",
		false, proptable.WritableInReady, func(e *element) *bool { return &e.settings.Values.isLive }).
		Then(func(obj *glib.Object, e *element) { base.ToGstBaseSrc(obj).SetLive(e.settings.Read().isLive) }),
	proptable.String("handoff", "Hand-off",
		"How the CPU-access bracket of each frame ends: adopt (it stays open while the buffer travels and every CPU reader downstream shares it; it ends when the last holder frees the buffer) or close (the source ends it right after writing, so a device reader downstream sees flushed caches; CPU readers bracket their own reads)",
		handoffAdopt, proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.handoff }, handoffAdopt, handoffClose),
	proptable.Uint("sync-timeout", "Sync timeout",
		"Milliseconds to wait at most for a slot's dma-buf fences (a device's write fence attached with the Go API's SetWriteFence, or a reader's, not yet signalled when the slot comes round) before opening its bracket for writing; 0: no limit (a flush or a stop still ends the wait). A timeout is an error.",
		0, 3600000, 1000, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.syncTimeout }),
	proptable.Stats("Counters of the current or last run (frames, mmaps, sync brackets opened, closed and ended here, reader end events, waits for a free slot, fence waits and timeouts, write fences attached)",
		func(e *element) *gst.Structure {
			e.mu.Lock()
			rs := e.stats
			e.mu.Unlock()
			return rs.structure()
		}),
)

// seekSignal is the seek signal, declared once: its GTypes, what Emit
// takes and its documentation (doc.go's Signals section, checked by
// TestSignalDocsAreGeneratedFromTheDeclarations) come from here.
var seekSignal = proptable.NewSignal6[uint64, uint64, float64, bool, bool, uint64]("seek",
	"The source was seeked: the stream restarts at position with frame number frame. Emitted on the thread that seeks, "+
		"after the flush and before streaming restarts, with no lock held; slots the application pushed and the source had "+
		"not sent were given back. Not emitted for the start's own initial segment.",
	proptable.Param{Name: "position", Doc: "where the stream restarts (ns)"},
	proptable.Param{Name: "stop", Doc: "the segment's stop (ns; GST_CLOCK_TIME_NONE: none)"},
	proptable.Param{Name: "rate", Doc: "the segment's rate (forward rates only)"},
	proptable.Param{Name: "flush", Doc: "TRUE for a flushing seek"},
	proptable.Param{Name: "segment", Doc: "TRUE for a segment seek (SEGMENT_DONE at the stop instead of EOS)"},
	proptable.Param{Name: "frame", Doc: "the frame number (seqnum) of the first buffer after the seek"},
)

// signals are the element's signals, registered in ClassInit.
var signals = []proptable.Signal{seekSignal}

// element is the Go side of a tensorsrc instance.
type element struct {
	// Props: the GObject property vfuncs, through props (Bind in New).
	proptable.Props[element]

	settings proptable.Guarded[settings]

	// self is the instance (a GstElement), bound to e in InstanceInit.
	self unsafe.Pointer

	// mu guards the streaming state, the rings' Go fields and runs.
	mu sync.Mutex
	// growMu makes the ring's growths one at a time (create's and the
	// application's Acquires'), so that slots are added in order. Held
	// while a tensor is allocated, never across a wait.
	growMu sync.Mutex
	st     *state // nil outside Start..Stop
	runs   int    // Start calls so far
	// appWake is what the application's Acquire waits on, in C: a pattern=app
	// ring's frees signal it; a start, a stop, a new ring, the end of the
	// stream and a cancelled context interrupt it. Made with the element,
	// its reference dropped when the element is unreachable.
	appWake frameengine.Wake

	// stats are the counters of the current or last run.
	stats *runStats

	// onSeek is the application's seek handler (Source.OnSeek), or nil.
	onSeek atomic.Pointer[func(Seek)]
}

// New implements glib.GoObjectSubclass.
func (*element) New() glib.GoObjectSubclass {
	e := &element{stats: newRunStats(0, 0, ""), appWake: frameengine.NewWake()}
	runtime.AddCleanup(e, frameengine.Wake.Unref, e.appWake)
	return proptable.Instance(props, e, cat)
}

// ClassInit implements glib.GoObjectSubclass.
func (*element) ClassInit(klass *glib.ObjectClass) {
	props.InitClass(klass, proptable.Class{
		LongName:       "Tensor ring source",
		Classification: "Source/Video/Tensor",
		Description:    "Pushes a ring of pinned tensors (DMA-BUF or memfd) as zero-copy buffers, with GstTensorSync cache-coherency brackets",
		Src:            gst.NewCapsFromString(templateCaps(true)),
	})
	if err := proptable.RegisterSignals(klass, signals...); err != nil {
		cat.LogError("cannot register the signals: " + err.Error())
	}
	// After go-gst's InitClass (go-glib runs it before ClassInit): create
	// and upstream GstTensorSync end events are the source's C frame's
	// (basesrc.c); other events still reach Event through go-gst's.
	installClass(klass)
	// No get_times: a live tensorsrc paces itself in create (livePacer
	// says why GstBaseSrc's wait is not used).
}

// InstanceInit implements glib.Initter: time format, the probe that
// announces each buffer's bracket right before the buffer, and e bound to
// the instance for the C frame's one call into Go (a growth of the ring,
// grow.go; never a frame's).
func (e *element) InstanceInit(obj *glib.Object) {
	e.self = obj.Unsafe()
	gstglue.BindInstance(e.self, e)
	src := base.ToGstBaseSrc(obj)
	src.SetFormat(gst.FormatTime)
	if pad := src.GetStaticPad("src"); pad != nil {
		frameengine.InstallTensorSyncAnnouncer(pad)
		gstglue.ReleasePad(pad)
	}
}

// Register registers tensorsrc with plugin (nil: statically, for Go
// programs and tests that do not load the plugin .so).
func Register(plugin *gst.Plugin) bool {
	return gst.RegisterElement(plugin, Name, gst.RankNone, &element{}, base.ExtendsPushSrc)
}
