package tensorsrc

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// pattern is the content of each frame.
type pattern uint8

const (
	patternCounter pattern = iota
	patternGradient
	patternBlack
	patternApp
	// patternNone writes nothing: a frame holds what its slot held (zeros
	// at first). The producer's cost then does not grow with the frame,
	// so a benchmark sees what the rest of the pipeline costs.
	patternNone
)

var patternNames = map[string]pattern{
	"counter": patternCounter, "gradient": patternGradient, "black": patternBlack, "app": patternApp, "none": patternNone,
}

// The handoff property's values.
const (
	handoffAdopt = "adopt"
	handoffClose = "close"
)

// errUnavailable marks a backend whose device this machine lacks.
var errUnavailable = errors.New("this machine does not provide it")

// backendChoice is a resolved backend property.
type backendChoice struct {
	name   string // what stats report: dma-heap, udmabuf or memfd
	source tensor.Source
	dmabuf bool // the tensors are real dma-bufs: offer memory:DMABuf
}

// resolveBackend turns the backend property into an allocation source.
// "auto" honours tensor.BackendEnv, then prefers the DMA heap when its
// device can be opened, else memfd. probe also checks that an explicit
// dma-heap or udmabuf device is usable (done at Start, not in GetCaps).
func resolveBackend(name string, probe bool) (backendChoice, error) {
	switch name {
	case "auto":
		if env := os.Getenv(tensor.BackendEnv); env != "" && env != "auto" {
			if _, err := tensor.ParseSource(env); err != nil || env == "heap" {
				return backendChoice{}, fmt.Errorf("%s=%q: tensorsrc needs an fd backend (dma-heap, udmabuf or memfd)", tensor.BackendEnv, env)
			}
			return resolveBackend(env, probe)
		}
		if tensor.DeviceUsable(tensor.DMAHeapPath) == nil {
			return backendChoice{"dma-heap", tensor.SourceDMAHeap, true}, nil
		}
		return backendChoice{"memfd", tensor.SourceMemfd, false}, nil
	case "memfd", "shm":
		return backendChoice{"memfd", tensor.SourceMemfd, false}, nil
	case "dma-heap", "udmabuf":
		c := backendChoice{"dma-heap", tensor.SourceDMAHeap, true}
		path := tensor.DMAHeapPath
		if name == "udmabuf" {
			c = backendChoice{"udmabuf", tensor.SourceUdmabuf, true}
			path = tensor.UdmabufPath
		}
		if probe {
			if err := tensor.DeviceUsable(path); err != nil {
				return c, fmt.Errorf("backend %s needs %s, which cannot be opened (%v): %w; use backend=memfd or backend=auto",
					name, path, err, errUnavailable)
			}
		}
		return c, nil
	}
	return backendChoice{}, fmt.Errorf("unknown backend %q: want auto, dma-heap, udmabuf or memfd", name)
}

// state exists from Start to Stop.
type state struct {
	backend  backendChoice
	pattern  pattern
	poolSize int
	// maxPoolSize: the max-pool-size property, the most tensors a ring
	// grows to (grow.go).
	maxPoolSize int
	// closeAfterWrite: handoff=close — the bracket ends in create (or
	// Push, for pattern=app) and no begin event is announced.
	closeAfterWrite bool
	// syncTimeout: the sync-timeout property (0: no bound).
	syncTimeout time.Duration
	// pacer paces frames on the clock when is-live (nil otherwise); it is
	// closed at Stop, after the streaming thread has left create.
	pacer *livePacer
	// frame is the element's frame in C: every frame, made by the create
	// trampoline as configureFrameLocked set it (each new ring, each caps
	// change); it holds the frame counter and pattern=app's queue.
	frame srcFrame
	// wake ends the C frame's waits (a free slot, fences): set by Unlock
	// and a non-flushing seek.
	wake  frameengine.Wake
	stats *runStats
	// ends: the element's end tally, which tracks the rings' memories.
	ends frameengine.EndTally

	format     capslayout.Format // negotiated (SetCaps); the ring follows in DecideAllocation
	haveFormat bool
	ring       *ring // nil until the first DecideAllocation
	fpsN       int   // negotiated frame rate (0: unknown)
	fpsD       int
	seeked     bool // DoSeek ran this run
	eos        bool // app: EndOfStream called (the C queue knows it too)
}

// Start checks the settings and creates the streaming state; the ring is
// allocated when caps are set.
func (e *element) Start(self *base.GstBaseSrc) (ret bool) {
	defer gstglue.Guard(self.Element, "start", &ret, false)
	s := e.settings.Read()
	pat, ok := patternNames[s.pattern]
	if !ok {
		gstglue.PostError(self.Element, gstglue.ResourceSettings,
			fmt.Sprintf("unknown pattern %q: want counter, gradient, black, none or app", s.pattern), "")
		return false
	}
	if s.handoff != handoffAdopt && s.handoff != handoffClose {
		gstglue.PostError(self.Element, gstglue.ResourceSettings,
			fmt.Sprintf("unknown handoff %q: want adopt or close", s.handoff), "")
		return false
	}
	b, err := resolveBackend(s.backend, true)
	if err != nil {
		code := gstglue.ResourceSettings
		if errors.Is(err, errUnavailable) {
			code = gstglue.ResourceOpenReadWrite
		}
		gstglue.PostError(self.Element, code, err.Error(), "")
		return false
	}
	if _, err := capslayout.VideoLayout(s.format, s.width, s.height, 0); err != nil {
		gstglue.PostError(self.Element, gstglue.ResourceSettings, fmt.Sprintf("format property: %v", err), "")
		return false
	}
	if _, err := tensor.ParseDType(s.dtype); err != nil {
		gstglue.PostError(self.Element, gstglue.ResourceSettings, fmt.Sprintf("type property: %v", err), "")
		return false
	}
	if s.dimensions != "" {
		if _, err := capslayout.TensorLayout(s.dimensions, s.dtype); err != nil {
			gstglue.PostError(self.Element, gstglue.ResourceSettings, fmt.Sprintf("dimensions property: %v", err), "")
			return false
		}
	}
	pool, maxPool := int(s.poolSize), int(s.maxPoolSize)
	st := &state{backend: b, pattern: pat, poolSize: pool, maxPoolSize: maxPool, stats: newRunStats(pool, maxPool, b.name),
		closeAfterWrite: s.handoff == handoffClose,
		syncTimeout:     time.Duration(s.syncTimeout) * time.Millisecond}
	if s.isLive {
		st.pacer = newLivePacer()
	}
	st.ends = frameengine.EndTallyOf(gstglue.RawElementOf(self.Unsafe()))
	st.frame = srcFrameOf(gstglue.RawElementOf(self.Unsafe()))
	st.frame.SetRing(nil, frameengine.Counters{})
	st.frame.SetFrame(0)
	st.frame.SetSeek(0)
	st.frame.AppSetEOS(false)
	st.wake = frameengine.WakeOf(gstglue.RawElementOf(self.Unsafe()))
	st.wake.SetFlushing(false)
	st.wake.SetSeeking(false)
	st.stats.countEnds(st.ends)
	e.mu.Lock()
	e.st, e.stats = st, st.stats
	e.runs++
	e.mu.Unlock()
	e.appWake.Interrupt()
	cat.LogInfo(fmt.Sprintf("started: backend %s, pool of %d (at most %d), pattern %s", b.name, s.poolSize, max(s.poolSize, s.maxPoolSize), s.pattern), self.Object)
	return true
}

// Stop releases the rings. Slots still held downstream keep their tensor
// alive (the buffer holds a reference on the memory) and have their open
// bracket closed when the buffer is freed; slots acquired by the
// application are released when it pushes or discards them.
func (e *element) Stop(self *base.GstBaseSrc) (ret bool) {
	defer gstglue.Guard(self.Element, "stop", &ret, false)
	e.mu.Lock()
	st := e.st
	e.st = nil
	var rel retired
	if st != nil {
		// No create runs now (GstBaseSrc stopped the task first). The
		// application's queue goes back to the ring before it closes.
		st.frame.SetRing(nil, frameengine.Counters{})
		st.frame.SetPacer(nil) // closed below
		if st.ring != nil {
			st.ring.retireLocked(&rel)
		}
	}
	e.mu.Unlock()
	e.appWake.Interrupt()
	if st != nil {
		st.stats.freezeEnds()
	}
	rel.finish()
	if st != nil && st.pacer != nil {
		st.pacer.Close()
	}
	if st != nil {
		cat.LogInfo(fmt.Sprintf("stopped after %d frames: %d slot(s) still held downstream, %d by the application",
			st.stats.frameCount(), rel.inFlight, rel.appHeld), self.Object)
	}
	return true
}

// Unlock wakes a create waiting for a free slot, an application push,
// a slot's fences or the clock (all in C); it returns FLUSHING until
// UnlockStop.
func (e *element) Unlock(self *base.GstBaseSrc) (ret bool) {
	defer gstglue.Guard(self.Element, "unlock", &ret, false)
	e.mu.Lock()
	if e.st != nil {
		e.st.wake.SetFlushing(true)
		if e.st.pacer != nil {
			e.st.pacer.SetUnlocked(true)
		}
	}
	e.mu.Unlock()
	return true
}

// UnlockStop ends the flushing started by Unlock.
func (e *element) UnlockStop(self *base.GstBaseSrc) (ret bool) {
	defer gstglue.Guard(self.Element, "unlock-stop", &ret, false)
	e.mu.Lock()
	if e.st != nil {
		e.st.wake.SetFlushing(false)
		if e.st.pacer != nil {
			e.st.pacer.SetUnlocked(false)
		}
	}
	e.mu.Unlock()
	return true
}
