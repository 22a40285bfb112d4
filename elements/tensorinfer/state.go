package tensorinfer

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pinread"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/preprocess"
)

// streamState exists between Start and Stop. The streaming thread owns
// its per-frame fields (prepare and serialized events run there); the
// fields read from other threads (caps queries) — info, sess, ring,
// outCaps — are set under the element's stateMu.
type streamState struct {
	set  settings
	env  *infer.Environment
	info infer.ModelInfo
	// sess and ring exist from Start for a model with fixed shapes; for a
	// model with free dimensions, from the caps that fix them.
	sess *infer.Session
	ring *ring
	// shapes fixed the session's free input dimensions (nil: none).
	shapes map[string][]int64
	// transpose: how the current caps' frames are bound (framePlan).
	transpose infer.Transpose
	// spare is a session made for caps not yet set (outputsFor: a caps
	// query, or the caps event's transform before SetCaps), for SetCaps
	// to take rather than load the model again; under spareMu, which is
	// held while it is made (other threads' caps queries wait for it).
	spareMu     sync.Mutex
	spare       *infer.Session
	spareShapes map[string][]int64
	// spareClosed: close ran; a caps query after it makes no spare
	// (nothing would close it).
	spareClosed bool

	cache *pincache.Cache
	qkey  gstglue.QdataKey
	// pools: the pool proposed upstream, reused for identical queries.
	pools *frameengine.PoolCache
	// video: output=video's state in C (the frame paths read it there).
	video videoOut
	// pre: pre-processing's pass and bound input (nil: frames feed the
	// model as they are).
	pre *preState
	// region: region inference's shapes (nil: the model runs on whole
	// frames).
	region *regionState
	// modelInfo: the input's entry of the .modelinfo file beside the
	// model (nil: none), read at start.
	modelInfo     *preprocess.TensorInfo
	modelInfoPath string

	haveFormat bool
	format     capslayout.Format
	inLayout   tensor.Layout // the frame's input tensor per the caps (Offset: where it starts in the buffer)
	// geom is inLayout's geometry with offset geomOffset and row stride
	// geomStride (inputGeometry); geomOK: it is set. Reset with inLayout.
	geom                   tensor.Geometry
	geomOffset, geomStride int
	geomOK                 bool
	// binds: what each session input slot reads (a pinned entry at an
	// offset and stride), so that a binding goes with its entry's pin.
	binds *inputBindings
	// unbindScratch: the slots an eviction unbinds (no allocation).
	unbindScratch []int
	own           *tensor.Tensor // copy path: pinned memfd, bound as one input slot

	view gstglue.BufferView
	// begins: the GstTensorSync begins received (serialized, from
	// upstream) whose buffers have not been run yet — C memory on the
	// element, where frameengine's sink-event trampoline records them (the event
	// is consumed: the element announces its own output).
	begins frameengine.PendingBegins
	// engine: the frame engine in C (engine.go), made at start, freed at
	// stop; engineIns: what its table's inputs hold (index for index);
	// engineTouched: the last use stamp touchEngineInputs gave the pin
	// cache.
	engine        inferEngine
	engineIns     []engineInput
	engineTouched uint64
	// hooks: the pin-cache insert hooks of the run (reader).
	hooks insertHooks
	cc    frameengine.Counters
	// copyLogged: the first copy was logged in GST_PERFORMANCE.
	copyLogged bool
	// refusedCaps: the input caps whose refusal was posted (posted once).
	refusedCaps string
	// perFrame: TENSORPIN_INFER_MODE=per-frame (a benchmark aid) — each
	// frame is run the upstream way (Session.RunPerFrame) instead of
	// bound once.
	perFrame bool
}

// ModeEnv names the environment variable read at each start that selects
// how frames are run: unset, "" or "bound-once" (the element's way), or
// "per-frame" — the upstream way, for measuring what binding once saves
// on the same model, frames and session options (doc.go). It is a
// benchmark aid, not a setting: deliberately not a property, which would
// be a permanent contract.
const ModeEnv = "TENSORPIN_INFER_MODE"

// ErrMode: ModeEnv holds a value that names no mode.
var ErrMode = errors.New("unknown " + ModeEnv)

// perFrameMode reads ModeEnv.
func perFrameMode() (bool, error) {
	switch m := os.Getenv(ModeEnv); m {
	case "", "bound-once":
		return false, nil
	case "per-frame":
		return true, nil
	default:
		return false, fmt.Errorf("%w: %q; the modes are bound-once (the default) and per-frame (a benchmark aid)", ErrMode, m)
	}
}

// qdataKeys lends each running element a qdata key of its own.
var qdataKeys = gstglue.NewQdataKeyPool("tensorinfer")

// options are the engine options the settings ask for.
func (s settings) options(shapes map[string][]int64) infer.Options {
	o := infer.Options{IntraOpThreads: int(s.threads), Input: s.input, Shapes: shapes}
	if s.outputs != "" {
		for _, n := range strings.Split(s.outputs, ",") {
			o.Outputs = append(o.Outputs, strings.TrimSpace(n))
		}
	}
	return o
}

// Start loads ONNX Runtime and the model. A model with fixed shapes gets
// its session and its output ring here; one with free dimensions when
// the caps fix them. Every failure is an error naming the library or the
// file, and a refused state change, with nothing left behind.
func (e *element) Start(self *base.GstBaseTransform) (ret bool) {
	defer gstglue.RecoverTrampoline(e.raw(), "start", &ret, false)
	set := e.readSettings()
	e.stats.reset()
	frameengine.CountersOf(e.raw()).Reset()
	perFrame, err := perFrameMode()
	if err == nil {
		err = set.checkNormalisation()
	}
	if err != nil {
		gstglue.PostErrorRaw(e.raw(), gstglue.ResourceSettings, "tensorinfer: "+err.Error(), "")
		return false
	}
	st, code, err := e.open(set)
	if err != nil {
		gstglue.PostErrorRaw(e.raw(), code, err.Error(), "")
		return false
	}
	if st.perFrame = perFrame; perFrame {
		cat.LogWarning(ModeEnv + "=per-frame: every frame gets a new ONNX Runtime input value, a run without " +
			"IoBinding and a copy of every output into a new buffer (the upstream way, a benchmark aid): " +
			"unset it for the element's bound-once way")
	}
	st.begins = frameengine.PendingBeginsOf(e.raw())
	st.begins.Clear()
	st.video = videoOutOf(e.raw())
	st.video.ClearReused()
	st.video.SetProducer(e.raw())
	st.video.Set(set.output == outputVideo, int(set.interval), nil, tensormeta.Transform{})
	if set.regions() && set.interval > 1 {
		st.video.Set(false, 1, nil, tensormeta.Transform{})
		st.close()
		gstglue.PostErrorRaw(e.raw(), gstglue.ResourceSettings, fmt.Sprintf("tensorinfer: interval=%d runs the model on every "+
			"%d-th frame and gives the others its result; with inference-region=roi-list a frame's regions are its own: "+
			"set interval=1", set.interval, set.interval), "")
		return false
	}
	if perFrame && (set.output == outputVideo || st.preprocessing()) {
		st.video.Set(false, 1, nil, tensormeta.Transform{})
		st.close()
		gstglue.PostErrorRaw(e.raw(), gstglue.ResourceSettings, "tensorinfer: "+ModeEnv+"=per-frame (a benchmark aid) runs frames as they are: it takes neither output=video nor pre-processing", "")
		return false
	}
	st.engine = newInferEngine(e.raw(), st.cc)
	st.engine.SetPerFrame(perFrame)
	st.engine.SetSync(time.Duration(set.syncTimeout)*time.Millisecond, set.onSyncTimeout == onTimeoutDrop)
	st.setEngineSession()
	st.engine.Install(e.raw())
	e.stateMu.Lock()
	e.state = st
	e.stateMu.Unlock()
	cat.LogInfo(fmt.Sprintf("started: model %s, ONNX Runtime %s", set.model, st.env.Library()))
	return true
}

func (e *element) open(set settings) (st *streamState, code gstglue.ErrorCode, err error) {
	if set.model == "" {
		return nil, gstglue.ResourceNotFound, errors.New("tensorinfer: no model: set the model property to an .onnx file")
	}
	env, err := infer.Load(set.ortLibrary)
	if err != nil {
		return nil, gstglue.LibraryInit, fmt.Errorf("tensorinfer: cannot load ONNX Runtime: %w", err)
	}
	s := &streamState{set: set, env: env, cc: frameengine.CountersOf(e.raw()), binds: newInputBindings()}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	st = s
	if st.info, err = env.Inspect(set.model); err != nil {
		return nil, modelCode(err), fmt.Errorf("tensorinfer: model: %w", err)
	}
	if err = st.loadModelInfo(); err != nil {
		return nil, modelCode(err), fmt.Errorf("tensorinfer: model info: %w", err)
	}
	if !dynamicInput(st.info) {
		if err := st.openSession(nil, &e.stats); err != nil {
			return nil, modelCode(err), fmt.Errorf("tensorinfer: %w", err)
		}
	}
	st.pools = frameengine.NewPoolCache()
	st.cache = pincache.NewWithSlots(16, e.slots)
	st.cache.AutoGrow(4096)
	st.qkey = qdataKeys.Take()
	return st, nil, nil
}

// dynamicInput reports whether the model's input leaves a dimension
// free: its session waits for the caps that fix it. (Outputs' free
// dimensions ONNX Runtime fixes from the input's.)
func dynamicInput(info infer.ModelInfo) bool {
	for _, t := range info.Inputs {
		if t.Dynamic() {
			return true
		}
	}
	return false
}

func modelCode(err error) gstglue.ErrorCode {
	switch {
	case errors.Is(err, infer.ErrRuntimeUnavailable):
		return gstglue.LibraryInit
	case errors.Is(err, infer.ErrModel):
		return gstglue.ResourceOpenRead
	case errors.Is(err, infer.ErrInput), errors.Is(err, infer.ErrDynamicDims):
		return gstglue.CoreNegotiation
	}
	return gstglue.LibraryFailed
}

// openSession creates the session with shapes fixed and its output ring
// (max-leases+1 slots, each bound once) and gives them to the state (the
// caller publishes them: before the state is, or under stateMu).
func (st *streamState) openSession(shapes map[string][]int64, stats *counters) error {
	sess, r, err := st.newSession(shapes, stats)
	if err != nil {
		return err
	}
	st.sess, st.ring, st.shapes = sess, r, shapes
	return nil
}

// newSession creates a session with shapes fixed (or takes the spare
// made for them) and its output ring.
func (st *streamState) newSession(shapes map[string][]int64, stats *counters) (*infer.Session, *ring, error) {
	sess := st.takeSpare(shapes)
	if sess == nil {
		var err error
		if sess, err = st.env.NewSession(st.set.model, st.set.options(shapes)); err != nil {
			return nil, nil, err
		}
	}
	r, err := newRing(sess, int(st.set.maxLeases)+1, stats, st.cc)
	if err != nil {
		sess.Close()
		return nil, nil, fmt.Errorf("%s: output ring: %w", st.set.model, err)
	}
	return sess, r, nil
}

// reopenSession gives the state a session (and output ring) for shapes:
// its first at caps, for a model with free dimensions, or a new one when
// new caps fix them otherwise (the old ring and session are retired:
// output memories still downstream are freed when they come back; the
// input slots bound to the old session are forgotten, to be bound again;
// the old session's counters are kept in the run's). On the streaming
// thread, between frames. stateMu is held only to swap the fields, not
// while a session or ring is made or closed (other threads ask for caps
// and stats meanwhile).
func (e *element) reopenSession(st *streamState, shapes map[string][]int64) error {
	e.stateMu.Lock()
	old, oldRing, oldShapes := st.sess, st.ring, st.shapes
	st.sess, st.ring, st.shapes = nil, nil, nil
	if old != nil {
		e.stats.retire(old.Stats())
	}
	e.stateMu.Unlock()
	if old != nil {
		cat.LogInfo(fmt.Sprintf("new caps fix the model's free dimensions as %v (were %v): a new session", shapes, oldShapes))
		st.closeRegions() // reshaped from the old session
		st.clearEngineInputs()
		st.engine.SetReady(false)
		st.engine.SetPreprocess(enginePreprocess{})
		st.engine.SetRing(nil)
		st.cache.Clear()
		st.pre.close() // bound to the old session
		st.pre = nil
		// The old session's Close destroys every binding it has.
		e.stats.inputUnbinds.Add(uint64(st.binds.count()))
		e.stats.inputsBound.Store(0)
		st.binds = newInputBindings()
		oldRing.close()
		if err := old.Close(); err != nil {
			cat.LogWarning("closing the ONNX Runtime session: " + err.Error())
		}
	}
	sess, r, err := st.newSession(shapes, &e.stats)
	if err != nil {
		return err
	}
	e.stateMu.Lock()
	st.sess, st.ring, st.shapes = sess, r, shapes
	e.stateMu.Unlock()
	st.setEngineSession()
	return nil
}

// spareOutputs returns the outputs of a session for shapes, made now
// unless the spare is for them, and kept as the spare.
func (st *streamState) spareOutputs(shapes map[string][]int64) ([]infer.TensorInfo, error) {
	st.spareMu.Lock()
	defer st.spareMu.Unlock()
	if st.spare != nil && sameShapes(st.spareShapes, shapes) {
		return st.spare.Outputs(), nil
	}
	if st.spareClosed {
		return nil, fmt.Errorf("%s: the element stopped", st.set.model)
	}
	st.closeSpareLocked()
	sess, err := st.env.NewSession(st.set.model, st.set.options(shapes))
	if err != nil {
		return nil, err
	}
	st.spare, st.spareShapes = sess, shapes
	return sess.Outputs(), nil
}

// takeSpare hands over the spare session if it was made for shapes.
func (st *streamState) takeSpare(shapes map[string][]int64) *infer.Session {
	st.spareMu.Lock()
	defer st.spareMu.Unlock()
	if st.spare == nil || !sameShapes(st.spareShapes, shapes) {
		return nil
	}
	s := st.spare
	st.spare, st.spareShapes = nil, nil
	return s
}

// closeSpare closes the spare session and makes no more: close's first
// step (a caps query on another thread may still ask for one while the
// rest of the state goes).
func (st *streamState) closeSpare() {
	st.spareMu.Lock()
	st.closeSpareLocked()
	st.spareClosed = true
	st.spareMu.Unlock()
}

func (st *streamState) closeSpareLocked() {
	if st.spare != nil {
		if err := st.spare.Close(); err != nil {
			cat.LogWarning("closing an unused ONNX Runtime session: " + err.Error())
		}
		st.spare, st.spareShapes = nil, nil
	}
}

// close releases what the state holds: the output ring (memories
// downstream are freed when they come back), the sessions (their
// bindings' pin clones), the input cache and copy tensor, the
// environment.
func (st *streamState) close() {
	st.closeSpare()
	st.closeRegions()
	st.clearEngineInputs()
	if !st.engine.IsZero() {
		st.engine.Free() // uninstalled by Stop, or never installed
		st.engine = inferEngine{}
	}
	if st.ring != nil {
		st.ring.close()
	}
	if st.sess != nil {
		if err := st.sess.Close(); err != nil {
			cat.LogWarning("closing the ONNX Runtime session: " + err.Error())
		}
	}
	if st.cache != nil {
		st.cache.Close()
		qdataKeys.Give(st.qkey)
	}
	if st.own != nil {
		st.own.Close()
	}
	if st.pools != nil {
		st.pools.Free()
	}
	st.pre.close()
	if st.env != nil {
		st.env.Close()
	}
}

func (e *element) Stop(self *base.GstBaseTransform) (ret bool) {
	defer gstglue.RecoverTrampoline(e.raw(), "stop", &ret, false)
	e.stateMu.Lock()
	st := e.state
	e.state = nil
	if st != nil && st.sess != nil {
		// Under stateMu, as the state goes: a stats read never sees
		// the run without its last session's counters.
		e.stats.retire(st.sess.Stats())
	}
	e.stateMu.Unlock()
	if st == nil {
		return true
	}
	e.stats.beginsExpired.Add(uint64(st.begins.Clear()))
	e.stats.framesReused.Store(st.video.Reused())
	st.video.Set(false, 1, nil, tensormeta.Transform{}) // the last result goes
	uninstallInferEngine(e.raw())
	st.close()
	cat.LogInfo("stopped")
	return true
}

// sameShapes reports whether two sets of fixed shapes are the same.
func sameShapes(a, b map[string][]int64) bool { return maps.EqualFunc(a, b, slices.Equal) }

// inputLayout is the tensor the caps give the model's input: the only
// plane of single-plane video, or the only tensor of other/tensors. Its
// Offset is where it starts in the buffer.
func inputLayout(st *streamState, f capslayout.Format) (tensor.Layout, error) {
	name := st.set.input
	if name == "" && len(st.info.Inputs) == 1 {
		name = st.info.Inputs[0].Name
	}
	if len(f.Planes) != 1 {
		what := fmt.Sprintf("video format %s has %d planes", f.VideoFormat, len(f.Planes))
		if f.Media == capslayout.MediaTensors {
			what = fmt.Sprintf("other/tensors has %d tensors", len(f.Planes))
		}
		return tensor.Layout{}, fmt.Errorf("%w: input %q takes one tensor; %s (use a packed format such as RGB, or one tensor)",
			infer.ErrInput, name, what)
	}
	return f.Planes[0].Layout, nil
}

// SetCaps checks the negotiated input against the model (creating the
// session now if the caps fix its free dimensions): an input the model
// cannot take is an error naming the input, what the model takes and
// what the caps give. A conversion the engine will do is logged.
func (e *element) SetCaps(self *base.GstBaseTransform, incaps, outcaps *gst.Caps) (ret bool) {
	defer gstglue.RecoverTrampoline(e.raw(), "set-caps", &ret, false)
	st := e.current()
	if st == nil {
		return false
	}
	f, err := capslayout.FromCaps(incaps)
	if st.preprocessing() {
		return e.setPreprocessCaps(self, st, f, err, incaps, outcaps)
	}
	var l tensor.Layout
	if err == nil {
		l, err = inputLayout(st, f)
	}
	var plan framePlan
	if err == nil {
		plan, err = planFrames(st.info, st.set, l)
	}
	if err == nil && plan.shapes != nil && (st.sess == nil || !sameShapes(plan.shapes, st.shapes)) {
		err = e.reopenSession(st, plan.shapes)
	}
	var conv string
	if err == nil {
		packed := l
		packed.Offset = 0
		conv, err = st.sess.CheckInput(infer.Input{Layout: packed, Transpose: plan.transpose})
	}
	if err != nil {
		e.refuse(self, st, incaps, err)
		return false
	}
	if st.haveFormat && (fmt.Sprint(st.inLayout) != fmt.Sprint(l) || st.transpose != plan.transpose) {
		// Another layout: the bindings of the old one are not reused,
		// and go with the entries they read.
		st.cache.Clear()
		e.unbindEvicted(st)
	}
	st.format, st.inLayout, st.transpose, st.haveFormat = f, l, plan.transpose, true
	st.geomOK = false // inputGeometry: the shape may have changed
	st.engine.SetStream(st.qkey, l.Offset, l.RowStride)
	st.engine.SetReady(true)
	if st.set.output == outputVideo {
		if err := e.setVideoOut(st, f, l); err != nil {
			e.refuse(self, st, incaps, err)
			return false
		}
	}
	if conv != "" {
		perf.LogInfo(fmt.Sprintf("tensorinfer: every frame of caps %v is converted before the run (%s): counted in conversions; "+
			"a model that takes the frame as it is avoids it (docs/design-notes.md)", incaps, conv))
	}
	cat.LogInfo(fmt.Sprintf("caps %v → %v", incaps, outcaps))
	return true
}

// setPreprocessCaps is SetCaps with pre-processing: the pass for the new
// caps (a new session when they fix the model's free dimensions
// otherwise), the frames' memory read whole.
func (e *element) setPreprocessCaps(self *base.GstBaseTransform, st *streamState, f capslayout.Format, err error, incaps, outcaps *gst.Caps) bool {
	if err == nil {
		switch {
		case st.set.output == outputVideo && f.Media != capslayout.MediaVideo:
			err = fmt.Errorf("output=video passes video on: the input must be video/x-raw, not %s", f.Media)
		case st.set.regions():
			err = e.setupRegions(st, f)
		default:
			err = e.setupPreprocess(st, f)
		}
	}
	if err != nil {
		e.refuse(self, st, incaps, err)
		return false
	}
	st.cache.Clear()
	e.unbindEvicted(st)
	st.format, st.haveFormat = f, true
	st.geomOK = false
	st.engine.SetStream(st.qkey, 0, 0)
	st.engine.SetReady(true)
	cat.LogInfo(fmt.Sprintf("caps %v → %v (pre-processed)", incaps, outcaps))
	return true
}

// setVideoOut gives output=video the caps of the tensors it attaches and
// the frame-to-model transform (the frame is the model's input as it is:
// the identity), for frames of format f whose input tensor is l.
func (e *element) setVideoOut(st *streamState, f capslayout.Format, l tensor.Layout) error {
	if f.Media != capslayout.MediaVideo {
		return fmt.Errorf("output=video passes video on: the input must be video/x-raw, not %s (use output=tensors)", f.Media)
	}
	caps := tensorsCapsOf(st.sess.Outputs())
	defer gstglue.ReleaseCaps(caps)
	w, h := 0, 0
	if len(l.Shape) >= 2 {
		h, w = l.Shape[0], l.Shape[1]
	}
	st.video.Set(true, int(st.set.interval), caps, tensormeta.Transform{ModelWidth: w, ModelHeight: h, ScaleX: 1, ScaleY: 1})
	return nil
}

// ProposeAllocation offers upstream the pinned pool (as tensorpinsink
// does) and says the element reads GstVideoMeta.
func (e *element) ProposeAllocation(self *base.GstBaseTransform, decide, query *gst.Query) (ret bool) {
	defer gstglue.RecoverTrampoline(e.raw(), "propose-allocation", &ret, false)
	set := e.readSettings()
	prop, ok := pinread.ReadProposal(query, set.proposePool)
	f, mem := prop.Format, prop.Memory
	// One plane is what the model reads as it is; pre-processing reads a
	// frame's memory whole, whatever its planes (NV12, I420).
	if !ok || (len(f.Planes) != 1 && !set.preprocessing()) {
		return true
	}
	// The input is read during the run only: two buffers let upstream
	// fill the next frame while this one runs; at most proposedPoolMax,
	// each pinned and bound once (a pool that grew without bound would
	// pin and bind without bound). The same pool for the same query.
	st := e.current()
	if st == nil {
		if err := frameengine.ProposePinnedPool(query, f.Media == capslayout.MediaVideo, f.FrameSize, 2, mem, true); err != nil {
			cat.LogWarning("no pool proposed: " + err.Error())
		}
		return true
	}
	// output=video: the buffers also go downstream, which holds its
	// min-buffers of them.
	minBuf, maxBuf := 2, proposedPoolMax
	if set.output == outputVideo {
		minBuf += int(e.stats.downstreamMin.Load())
		maxBuf = max(maxBuf, minBuf+6)
	}
	reused, err := st.pools.Propose(query, f.Media == capslayout.MediaVideo, f.FrameSize, minBuf, maxBuf, mem, true)
	switch {
	case err != nil:
		cat.LogWarning("no pool proposed: " + err.Error())
	case reused:
		e.stats.poolsReused.Add(1)
	default:
		e.stats.poolsProposed.Add(1)
	}
	return true
}

// proposedPoolMax bounds the pool proposed upstream: a queue between
// the producer and the element holds a few of its buffers, and each is
// pinned and bound once.
const proposedPoolMax = 8

// maxRing bounds the output ring downstream's allocation answer can ask
// for (as tensorsrc's).
const maxRing = 64

// DecideAllocation declines downstream's pools and allocators — the
// output buffers are the element's own ring — and grows the ring to the
// output frames downstream says it holds at once (its min-buffers: a
// tensorpinsink asks max-leases+1), so that the element does not wait for
// a slot while downstream waits for a frame.
func (e *element) DecideAllocation(self *base.GstBaseTransform, query *gst.Query) (ret bool) {
	defer gstglue.RecoverTrampoline(e.raw(), "decide-allocation", &ret, false)
	ans := gstglue.DeclineAllocation(query)
	e.stats.downstreamMin.Store(uint64(ans.MinBuffers))
	st := e.current()
	if st == nil || st.ring == nil || st.sess == nil || st.perFrame {
		return true // per-frame mode pushes new buffers, not the ring's
	}
	want := ans.MinBuffers
	if want > maxRing {
		cat.LogWarning(fmt.Sprintf("downstream holds %d output frames at once; the output ring stops at %d", want, maxRing), self.Object)
		want = maxRing
	}
	from := st.ring.c.Slots()
	defer func() {
		// The new slots' bindings.
		st.growEngineIO(from)
		if err := st.growRegionIO(e, from); err != nil {
			gstglue.PostError(self.Element, gstglue.CodeOf(err, gstglue.CoreNegotiation),
				"tensorinfer: binding the region shapes to new output slots: "+err.Error(), "")
		}
	}()
	if err := st.ring.grow(st.sess, want); err != nil {
		gstglue.PostError(self.Element, gstglue.CodeOf(err, gstglue.ResourceNoSpaceLeft),
			fmt.Sprintf("tensorinfer: growing the output ring to downstream's %d buffers: %v", want, err), "")
		return false
	}
	return true
}
