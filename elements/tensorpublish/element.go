package tensorpublish

import (
	"math"
	"sync"
	"time"
	"unsafe"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
)

// Name is the element's factory name.
const Name = "tensorpublish"

var cat = gst.NewDebugCategory(Name, gst.DebugColorNone, "tensorpublish: frame results to a file or an MQTT broker")

// settings are the property values, read at start.
type settings struct {
	location       string
	fileMode       string
	mqttAddress    string
	topic          string
	qos            uint
	clientID       string
	username       string
	password       string
	tlsCAFile      string
	maxQueued      uint
	flushTimeout   uint // ms
	onUnreachable  string
	addEmptyFrames bool
	source         string
}

// DefaultTopic is the topic property's default.
const DefaultTopic = "gst-tensorpin/results"

var props = proptable.New(func(e *element) sync.Locker { return &e.settings },
	proptable.String("location", "Location",
		"File the results are written to, one JSON line per frame, each written as soon as it is made (tail -f shows it); "+
			"\"-\" is the standard output; empty: no file.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.location }),
	proptable.String("file-mode", "File mode",
		"What happens to an existing file at start: \"truncate\" empties it, \"append\" adds the new lines after its own.",
		"truncate", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.fileMode }, "truncate", "append"),
	proptable.String("mqtt-address", "MQTT address",
		"MQTT broker the results are published to, one message per frame: tcp://host:1883 (or mqtt://), or tls://host:8883 "+
			"(ssl://, mqtts://) over TLS; empty: no broker.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.mqttAddress }),
	proptable.String("topic", "Topic",
		"MQTT topic the messages are published to (no wildcard).",
		DefaultTopic, proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.topic }),
	proptable.Uint("qos", "QoS",
		"MQTT quality of service: 0 (at most once: what is on the way when the connection drops is lost) or 1 (at least once: "+
			"each message is sent again until the broker acknowledges it; a reconnection may deliver one twice).",
		0, 1, 1, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.qos }),
	proptable.String("client-id", "Client id",
		"MQTT client identifier, unique per broker; empty: tensorpublish-HOST-PID-NAME.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.clientID }),
	proptable.String("username", "Username",
		"MQTT user name; empty: none.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.username }),
	proptable.String("password", "Password",
		"MQTT password (write-only); empty: none.",
		"", glib.ParameterWritable|gst.ParameterMutableReady, func(e *element) *string { return &e.settings.Values.password }),
	proptable.String("tls-ca-file", "TLS CA file",
		"PEM file of the certificate authorities that sign the broker's certificate, for a tls:// address; empty: the system's.",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.tlsCAFile }),
	proptable.Uint("max-queued", "Maximum queued",
		"Messages each destination keeps while it cannot send them (a slow or absent broker, a slow file): beyond, the oldest "+
			"are dropped and counted in stats dropped. The stream never waits for a destination.",
		1, 1<<20, 1000, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.maxQueued }),
	proptable.Uint("flush-timeout", "Flush timeout",
		"At EOS, the longest wait in milliseconds for the destinations to send what they hold before EOS goes on; 0: no wait.",
		0, math.MaxInt32, 2000, proptable.WritableInReady, func(e *element) *uint { return &e.settings.Values.flushTimeout }),
	proptable.String("on-unreachable", "On unreachable",
		"A broker that cannot be reached at start: \"warn\" posts a warning and keeps trying (with back-off), keeping the newest "+
			"max-queued messages; \"error\" fails the pipeline. A broker lost later is always a warning and a reconnection.",
		"warn", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.onUnreachable }, "warn", "error"),
	proptable.Bool("add-empty-frames", "Add empty frames",
		"Write a line (publish a message) for frames without any object too.",
		false, proptable.WritableInReady, func(e *element) *bool { return &e.settings.Values.addEmptyFrames }),
	proptable.String("source", "Source",
		"Name written in each line's source field (e.g. the camera's); empty: \"\".",
		"", proptable.WritableInReady, func(e *element) *string { return &e.settings.Values.source }),
	proptable.Stats("Counters since start: frames, objects (regions read), messages (lines made), published (written or acknowledged, "+
		"summed over the destinations), dropped (the oldest beyond max-queued, and what a stop or a write error lost), "+
		"queued (held now), reconnects (connections to the broker after a failure or a loss), frame-ns-total "+
		"(time spent on the streaming thread).",
		func(e *element) *gst.Structure { return e.statsStructure() }),
)

// element is the Go side of one tensorpublish instance. Settings and
// streaming state are separate, each behind its own lock.
type element struct {
	// Props: the GObject property vfuncs, through props (Bind in New).
	proptable.Props[element]

	settings proptable.Guarded[settings]

	stateMu sync.Mutex
	pub     *publisher // nil outside start..stop
	handle  uintptr    // pub's handle, for C
	last    Stats      // the last run's counters, after its stop

	// self is the GstElement this is the Go side of (borrowed: the Go
	// instance lives exactly as long).
	self unsafe.Pointer
}

func (*element) New() glib.GoObjectSubclass { return proptable.Instance(props, &element{}, cat) }

func (e *element) ClassInit(klass *glib.ObjectClass) {
	caps := gst.NewCapsFromString("video/x-raw; video/x-raw(memory:DMABuf)")
	props.InitClass(klass, proptable.Class{
		LongName:       "Tensor results publisher",
		Classification: "Filter/Network/Metadata",
		Description: "Writes each frame's regions of interest (GstVideoRegionOfInterestMeta with detection, classification and " +
			"tracking params) as a JSON line to a file or an MQTT message, in passthrough: the video goes on untouched",
		Sink: caps,
		Src:  caps,
	})
	// After go-gst's InitClass: every frame is publish.c's, one call
	// into Go per frame with objects.
	installClass(klass)
}

// InstanceInit gives the instance its C state and makes it a
// passthrough transform: buffers go on as they came.
func (e *element) InstanceInit(obj *glib.Object) {
	e.self = obj.Unsafe()
	attachState(e.self)
	t := base.ToGstBaseTransform(obj)
	t.SetPassthrough(true)
	t.SetQoSEnabled(false)
}

// Start opens the destinations: the file (an error names it when it
// cannot be opened) and the MQTT client's goroutine (which connects in
// the background: a broker that cannot be reached is its warning, or
// its error with on-unreachable=error, never a wait here).
func (e *element) Start(self *base.GstBaseTransform) (ok bool) {
	defer gstglue.RecoverTrampoline(gstglue.RawElementOf(e.self), "start", &ok, false)
	s := e.settings.Read()
	if s.location == "" && s.mqttAddress == "" {
		e.fail(gstglue.Fail(gstglue.ResourceSettings,
			"tensorpublish: no destination: set location (a file, or - for the standard output) or mqtt-address"))
		return false
	}
	p := &publisher{self: e.self, source: s.source, flushTimeout: time.Duration(s.flushTimeout) * time.Millisecond,
		line: make([]byte, 0, 4096)}
	var mcfg mqttConfig
	if s.mqttAddress != "" {
		var err error
		if mcfg, err = parseMQTT(s, e.name()); err != nil {
			e.fail(err)
			return false
		}
	}
	if s.location != "" {
		d, err := openFile(e.self, s.location, s.fileMode, int(s.maxQueued))
		if err != nil {
			e.fail(err)
			return false
		}
		p.dests = append(p.dests, d)
	}
	if s.mqttAddress != "" {
		p.dests = append(p.dests, startMQTT(e.self, mcfg, int(s.maxQueued)))
	}
	h := gstglue.NewHandle(p)
	e.stateMu.Lock()
	e.pub, e.handle = p, h
	e.stateMu.Unlock()
	setHandle(e.self, h, s.addEmptyFrames)
	return true
}

// Stop detaches the streaming state from C (no frame runs during a
// stop) and closes the destinations: their goroutines end, the file
// closes, the client disconnects; what was still queued is dropped,
// counted. Not under the state lock: closing waits.
func (e *element) Stop(self *base.GstBaseTransform) (ok bool) {
	defer gstglue.RecoverTrampoline(gstglue.RawElementOf(e.self), "stop", &ok, false)
	setHandle(e.self, 0, false)
	e.stateMu.Lock()
	p, h := e.pub, e.handle
	e.pub, e.handle = nil, 0
	e.stateMu.Unlock()
	if p == nil {
		return true
	}
	gstglue.TakeHandle(h)
	p.close()
	st := p.stats()
	e.stateMu.Lock()
	e.last = st
	e.stateMu.Unlock()
	return true
}

// fail posts err (a gstglue.CodedError carries its code) from the element.
func (e *element) fail(err error) {
	gstglue.PostErrorRaw(gstglue.RawElementOf(e.self), gstglue.CodeOf(err, gstglue.ResourceSettings), err.Error(), "")
}

// name is the element's name.
func (e *element) name() string { return elementName(e.self) }

// Register registers tensorpublish with plugin (nil: statically, for Go
// programs that do not load the plugin .so).
func Register(plugin *gst.Plugin) bool {
	return gst.RegisterElement(plugin, Name, gst.RankNone, &element{}, base.ExtendsBaseTransform)
}
