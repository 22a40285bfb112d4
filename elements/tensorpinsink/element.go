package tensorpinsink

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
)

// Name is the element's factory name.
const Name = "tensorpinsink"

var (
	cat = gst.NewDebugCategory(Name, gst.DebugColorNone, "tensorpinsink: pinned tensors from buffers")
	// perf is GStreamer's own GST_PERFORMANCE category (the lookup returns
	// the existing one), where copies are reported.
	perf = gst.NewDebugCategory("GST_PERFORMANCE", gst.DebugColorNone, "")
)

// settings are the property values; read at Start and per frame.
type settings struct {
	cacheSize        uint
	maxLeases        uint
	drop             bool
	emitSignals      bool
	postSyncMessages bool
	proposePool      bool
	// poolHandoff is "adopt" or "close": what the proposed dma-heap
	// pool does with a producer's write bracket (see ProposePinnedPool).
	poolHandoff string
	// syncTimeout bounds the wait for a dma-buf's fences before each
	// frame's bracket opens (milliseconds; 0: no wait here, the kernel
	// waits inside START without a limit); onSyncTimeout is "drop" or
	// "error".
	syncTimeout   uint
	onSyncTimeout string
}

// Pool-handoff choices.
const (
	poolHandoffAdopt = "adopt"
	poolHandoffClose = "close"
)

// On-sync-timeout choices.
const (
	onTimeoutDrop  = "drop"
	onTimeoutError = "error"
)

// props is the element's property table (see package proptable): the
// settings are read at start (cache-size, max-leases) and per frame.
var props = proptable.New(func(s *sink) sync.Locker { return &s.settings },
	proptable.Uint("cache-size", "Cache size",
		"Buffers (dma-buf regions) kept imported, mapped and pinned at once, at first; at least max-leases+1, and grown (with a warning; stats cache-capacity) when the producer cycles through more buffers than that. The least recently used is released beyond it.",
		1, 4096, 16, proptable.WritableInReady, func(s *sink) *uint { return &s.settings.Values.cacheSize }),
	proptable.Uint("max-leases", "Maximum leases",
		"Most frames the application may hold unreleased; beyond it the streaming thread waits (or drops, with drop=true).",
		1, 1024, 4, proptable.WritableInReady, func(s *sink) *uint { return &s.settings.Values.maxLeases }),
	proptable.Bool("drop", "Drop",
		"Drop (and count) frames when max-leases frames are held, instead of making the streaming thread wait.",
		false, glib.ParameterReadWrite, func(s *sink) *bool { return &s.settings.Values.drop }),
	proptable.Bool("emit-signals", "Emit signals",
		"Emit new-frame (buffer, address, size, slot, planes) for every frame; the frame is released when the handlers return.",
		false, glib.ParameterReadWrite, func(s *sink) *bool { return &s.settings.Values.emitSignals }),
	proptable.Bool("post-sync-messages", "Post sync messages",
		"Post each frame's bracket phases (begin at delivery, end at release) on the bus as GstTensorSync element messages.",
		false, glib.ParameterReadWrite, func(s *sink) *bool { return &s.settings.Values.postSyncMessages }),
	proptable.Bool("propose-pool", "Propose pool",
		"Offer upstream a pool of fd memory (dma-heap where present, else memfd) that the sink pins once per buffer, so producers that take it write into pinned memory without a copy.",
		true, proptable.WritableInReady, func(s *sink) *bool { return &s.settings.Values.proposePool }),
	proptable.String("pool-handoff", "Pool handoff",
		"What the proposed dma-heap pool does with a producer's CPU write: \"adopt\" keeps its cache-coherency bracket open while the buffer travels, so the sink joins it and a frame costs one DMA_BUF_IOCTL_SYNC START and one END; \"close\" ends it when the producer unmaps, for a device that reads the buffer before the sink (the sink then brackets its own read).",
		poolHandoffAdopt, proptable.WritableInReady, func(s *sink) *string { return &s.settings.Values.poolHandoff }, poolHandoffAdopt, poolHandoffClose),
	proptable.Uint("sync-timeout", "Sync timeout",
		"Milliseconds to wait at most for a dma-buf's fences (the producing device's unfinished work) before reading a frame; 0: no limit (a flush or a stop still ends the wait). On timeout, on-sync-timeout decides.",
		0, 3600000, 1000, proptable.WritableInReady, func(s *sink) *uint { return &s.settings.Values.syncTimeout }),
	proptable.String("on-sync-timeout", "On sync timeout",
		"What a frame whose fences did not signal within sync-timeout becomes: \"drop\" (dropped and counted, streaming goes on) or \"error\" (an error naming the dma-buf, the access and the time waited).",
		onTimeoutError, proptable.WritableInReady, func(s *sink) *string { return &s.settings.Values.onSyncTimeout }, onTimeoutDrop, onTimeoutError),
	proptable.Stats("Counters since start: frames, pin-cache hits and misses, mmaps, bracket halves and joins, begin events matched, expired and rejected (out of band), cache capacity, copies, bytes copied, leases, drops, fence waits (count, total and longest in ns) and fence timeouts.",
		func(s *sink) *gst.Structure { return s.stats.structure("tensorpinsink-stats") }),
)

// newFrame is the new-frame signal: its contract lives here, once (its
// parameters' GTypes, what Emit takes and the documentation all come from
// this declaration). Signals change only by adding: this one's six
// handler arguments are frozen (see CHANGELOG.md).
var newFrame = proptable.NewSignal5[*gst.Buffer, uint64, uint64, uint, *gst.Structure]("new-frame",
	"Emitted for every frame when emit-signals is true, on the streaming thread, with the frame inside its "+
		"CPU-access bracket; the frame is released when the handlers return, so read (or copy) the memory in the handler.",
	proptable.Param{Name: "buffer", Doc: "the frame's GstBuffer (borrowed for the call)"},
	proptable.Param{Name: "address", Doc: "host address of plane 0's first element, the same for every frame of its slot"},
	proptable.Param{Name: "size", Doc: "bytes of plane 0 from that address: its rows with their stride, no padding after the last"},
	proptable.Param{Name: "slot", Doc: "pool slot of plane 0's memory: bind the address once per slot"},
	proptable.Param{Name: "planes", Doc: "a tensorpinsink-planes GstStructure (borrowed): n-planes (guint) and per-plane arrays " +
		"address, size, offset (guint64) and stride, slot (guint), index i for plane i"},
)

// signals are the element's signals, registered in ClassInit.
var signals = []proptable.Signal{newFrame}

// sink is the Go side of one tensorpinsink instance.
type sink struct {
	settings proptable.Guarded[settings]

	stateMu sync.Mutex
	state   *streamState // nil outside Start..Stop

	stats   counters
	handler atomic.Pointer[func(Frame)]
	// slots numbers the pinned memories for the element's whole life, not
	// per start: a slot whose pins the application still holds from an
	// earlier run is never given to another memory.
	slots *pincache.Slots
}

// qdataKeys lends each running element a qdata key of its own.
var qdataKeys = gstglue.NewQdataKeyPool("tensorpinsink")

func (*sink) New() glib.GoObjectSubclass {
	s := &sink{slots: pincache.NewSlots()}
	props.SetDefaults(s)
	return s
}

func (s *sink) ClassInit(klass *glib.ObjectClass) {
	props.InitClass(klass, proptable.Class{
		LongName:       "Tensor pin sink",
		Classification: "Sink/Video/Tensor",
		Description:    "Imports fd-backed buffers (DMA-BUF, memfd) as tensors with stable pinned addresses and brackets CPU access",
		Sink:           sinkCaps(),
	})
	if err := proptable.RegisterSignals(klass, signals...); err != nil {
		cat.LogError("cannot register the signals: " + err.Error())
	}
	// After go-gst's InitClass (go-glib runs it before ClassInit): render
	// and GstTensorSync begin events are the sink's C frame's
	// (basesink.c); other events still reach Event through go-gst's.
	installClass(klass)
}

func sinkCaps() *gst.Caps {
	video := "format=(string)" + capslayout.AllVideoFormats() +
		", width=(int)[1,2147483647], height=(int)[1,2147483647], framerate=(fraction)[0/1,2147483647/1]"
	return gst.NewCapsFromString(capslayout.MediaVideo + "(" + capslayout.FeatureDMABuf + "), " + video +
		"; " + capslayout.MediaVideo + ", " + video +
		"; " + capslayout.MediaTensors + fmt.Sprintf(", format=(string)static, num_tensors=(int)[1,%d]", capslayout.MaxTensors))
}

func (s *sink) SetProperty(obj *glib.Object, id uint, value *glib.Value) {
	defer gstglue.Guard[struct{}](gst.ToElement(obj), "set-property", nil, struct{}{})
	props.SetProperty(obj, s, id, value, cat)
	s.stateMu.Lock()
	if st := s.state; st != nil {
		s.pushSettings(st, s.settings.Read())
	}
	s.stateMu.Unlock()
}

// pushSettings gives the engine the properties it reads per frame.
func (s *sink) pushSettings(st *streamState, set settings) {
	st.engine.SetSettings(set.drop, set.emitSignals, set.postSyncMessages,
		time.Duration(set.syncTimeout)*time.Millisecond, set.onSyncTimeout == onTimeoutDrop)
}

func (s *sink) GetProperty(obj *glib.Object, id uint) *glib.Value {
	return props.GetProperty(obj, s, id)
}

// InstanceInit turns GstBaseSink's last-sample off: it would keep the last
// buffer after its frame is released, holding one pool slot for ever. Users
// who want it can set enable-last-sample=true.
func (s *sink) InstanceInit(obj *glib.Object) {
	// The frame engine's calls into Go find s through a handle on the
	// instance, not go-glib's lookup.
	gstglue.BindInstance(obj.Unsafe(), s)
	// The counters outlive the element for as long as s does (a Sink
	// handle reads its stats after the pipeline is gone).
	all := frameengine.CountersOf(gstglue.RawElementOf(obj.Unsafe()))
	runtime.AddCleanup(s, func(c frameengine.Counters) { c.Unref() }, all)
	s.stats.bind(all)
	base.ToGstBaseSink(obj).SetLastSampleEnabled(false)
}

// Register registers tensorpinsink with plugin (nil: statically, for Go
// programs that do not load the plugin .so).
func Register(plugin *gst.Plugin) bool {
	return gst.RegisterElement(plugin, Name, gst.RankNone, &sink{}, base.ExtendsBaseSink)
}
