package tensorinfer

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
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
	// shapes fixed the session's free dimensions (nil: none).
	shapes map[string][]int64

	cache *pincache.Cache
	qkey  gstc.QdataKey

	haveFormat bool
	format     capslayout.Format
	inLayout   tensor.Layout // the frame's input tensor per the caps (Offset: where it starts in the buffer)
	// geom is inLayout's geometry with offset geomOffset and row stride
	// geomStride (inputGeometry); geomOK: it is set. Reset with inLayout.
	geom                   tensor.Geometry
	geomOffset, geomStride int
	geomOK                 bool
	// bound records, by input slot, the layout it was bound with (its
	// row stride and offset in its memory): bound once per slot.
	bound []boundInput
	own   *tensor.Tensor // copy path: pinned memfd, bound as one input slot

	view gstc.BufferView
	// begins: the GstTensorSync begins received (serialized, from
	// upstream) whose buffers have not been run yet — C memory on the
	// element, where gstc's sink-event trampoline records them (the event
	// is consumed: the element announces its own output).
	begins gstc.PendingBegins
	// steady: the frame done in C (steady.go), bound-once mode only; it
	// numbers the output frames (Go's too). steadyEnts: the entries its
	// table holds a reference of; steadyDirty: rebuild the table.
	steady      gstc.Steady
	steadyEnts  []*pincache.Entry
	steadyDirty bool
	// steadyTouched: the last use stamp touchSteady gave the pin cache.
	steadyTouched uint64
	cc            gstc.InferCounters
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

type boundInput struct {
	ok             bool
	offset, stride int
	ent            *pincache.Entry // the entry bound, no reference (the steady frame's table takes its own)
}

// qdataKeys lends each running element a qdata key of its own.
var qdataKeys = gstc.NewQdataKeyPool("tensorinfer")

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
	defer e.guard("start", func() { ret = false })
	set := e.readSettings()
	e.stats.reset()
	gstc.InferCountersOf(e.raw()).Reset()
	perFrame, err := perFrameMode()
	if err != nil {
		gstc.PostErrorRaw(e.raw(), gstc.ResourceSettings, "tensorinfer: "+err.Error(), "")
		return false
	}
	st, code, err := e.open(set)
	if err != nil {
		gstc.PostErrorRaw(e.raw(), code, err.Error(), "")
		return false
	}
	if st.perFrame = perFrame; perFrame {
		cat.LogWarning(ModeEnv + "=per-frame: every frame gets a new ONNX Runtime input value, a run without " +
			"IoBinding and a copy of every output into a new buffer (the upstream way, a benchmark aid): " +
			"unset it for the element's bound-once way")
	}
	st.begins = gstc.PendingBeginsOf(e.raw())
	st.begins.Clear()
	if !perFrame {
		st.steady = gstc.NewSteady(nil, st.cc)
		st.steadyDirty = true
		st.steady.Install(e.raw())
	}
	e.stateMu.Lock()
	e.state = st
	e.stateMu.Unlock()
	cat.LogInfo(fmt.Sprintf("started: model %s, ONNX Runtime %s", set.model, st.env.Library()))
	return true
}

func (e *element) open(set settings) (st *streamState, code gstc.ErrorCode, err error) {
	if set.model == "" {
		return nil, gstc.ResourceNotFound, errors.New("tensorinfer: no model: set the model property to an .onnx file")
	}
	env, err := infer.Load(set.ortLibrary)
	if err != nil {
		return nil, gstc.LibraryInit, fmt.Errorf("tensorinfer: cannot load ONNX Runtime: %w", err)
	}
	s := &streamState{set: set, env: env, cc: gstc.InferCountersOf(e.raw())}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	st = s
	if st.info, err = env.Inspect(set.model); err != nil {
		return nil, modelCode(err), fmt.Errorf("tensorinfer: model: %w", err)
	}
	if !dynamic(st.info, set) {
		if err := st.openSession(nil, &e.stats); err != nil {
			return nil, modelCode(err), fmt.Errorf("tensorinfer: %w", err)
		}
	}
	st.cache = pincache.NewWithSlots(16, e.slots)
	st.cache.AutoGrow(4096)
	st.qkey = qdataKeys.Take()
	return st, nil, nil
}

// dynamic reports whether the model's input or a selected output leaves
// a dimension free.
func dynamic(info infer.ModelInfo, set settings) bool {
	for _, t := range info.Inputs {
		if t.Dynamic() {
			return true
		}
	}
	for _, t := range info.Outputs {
		if t.Dynamic() {
			return true
		}
	}
	return false
}

func modelCode(err error) gstc.ErrorCode {
	switch {
	case errors.Is(err, infer.ErrRuntimeUnavailable):
		return gstc.LibraryInit
	case errors.Is(err, infer.ErrModel):
		return gstc.ResourceOpenRead
	case errors.Is(err, infer.ErrInput), errors.Is(err, infer.ErrDynamicDims):
		return gstc.CoreNegotiation
	}
	return gstc.LibraryFailed
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

// newSession creates a session with shapes fixed and its output ring.
func (st *streamState) newSession(shapes map[string][]int64, stats *counters) (*infer.Session, *ring, error) {
	sess, err := st.env.NewSession(st.set.model, st.set.options(shapes))
	if err != nil {
		return nil, nil, err
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
		st.forgetSteady()
		st.cache.Clear()
		st.bound = st.bound[:0]
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
	return nil
}

// close releases what the state holds: the output ring (memories
// downstream are freed when they come back), the session (its bindings'
// pin clones), the input cache and copy tensor, the environment.
func (st *streamState) close() {
	st.forgetSteady()
	if !st.steady.IsZero() {
		st.steady.Free()
		st.steady = gstc.Steady{}
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
	if st.env != nil {
		st.env.Close()
	}
}

func (e *element) Stop(self *base.GstBaseTransform) (ret bool) {
	defer e.guard("stop", func() { ret = false })
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
	gstc.UninstallSteady(e.raw())
	st.close()
	cat.LogInfo("stopped")
	return true
}

// TransformCaps: sink to src, the model's outputs as other/tensors (for
// fixed input caps whose input the model cannot take: an error naming the
// input, posted once, and no caps); src to sink, the sink template.
func (e *element) TransformCaps(self *base.GstBaseTransform, dir gst.PadDirection, caps, filter *gst.Caps) (ret *gst.Caps) {
	defer e.guard("transform-caps", func() { ret = nil })
	var out *gst.Caps
	if dir == gst.PadDirectionSource {
		out = sinkTemplate()
	} else {
		out = e.outputCaps(self, caps)
	}
	if filter != nil && filter.Unsafe() != nil && out != nil {
		f := filter.Intersect(out)
		gstc.ReleaseCaps(out)
		out = f
	}
	return gstc.GiveCaps(out)
}

// outputCaps returns the caps of the model's outputs for input caps (new
// caps owned by the caller).
func (e *element) outputCaps(self *base.GstBaseTransform, in *gst.Caps) *gst.Caps {
	st := e.current()
	if st == nil {
		return srcTemplate()
	}
	var layout *tensor.Layout
	if in != nil && in.Unsafe() != nil && in.IsFixed() {
		f, err := capslayout.FromCaps(in)
		if err == nil {
			var l tensor.Layout
			l, err = inputLayout(st, f)
			layout = &l
		}
		if err != nil {
			e.refuse(self, st, in, err)
			return gst.NewEmptyCaps()
		}
	}
	outs, err := e.outputsFor(st, layout)
	if errors.Is(err, errFreeDims) {
		return srcTemplate() // fixed when the input caps are
	}
	if err != nil {
		if in != nil && in.Unsafe() != nil && in.IsFixed() {
			e.refuse(self, st, in, err)
		}
		return gst.NewEmptyCaps()
	}
	s := tensorsCaps(outs)
	if in != nil {
		if n, d, ok := gstc.CapsFraction(in, 0, "framerate"); ok {
			s += fmt.Sprintf(", framerate=(fraction)%d/%d", n, d)
		}
	}
	return gst.NewCapsFromString(s)
}

// refuse posts, once per caps, why the element cannot take them.
func (e *element) refuse(self *base.GstBaseTransform, st *streamState, caps *gst.Caps, err error) {
	text := caps.String()
	e.stateMu.Lock()
	again := st.refusedCaps == text
	st.refusedCaps = text
	e.stateMu.Unlock()
	if !again {
		gstc.PostErrorRaw(e.raw(), gstc.CoreNegotiation, "tensorinfer: "+err.Error(), "caps: "+text)
	}
}

// outputsFor returns the outputs the session binds (or, for a model with
// free dimensions and no session yet, the outputs once layout fixes
// them; nil layout: the model's as declared, if fixed).
func (e *element) outputsFor(st *streamState, layout *tensor.Layout) ([]infer.TensorInfo, error) {
	e.stateMu.Lock()
	sess, fixed := st.sess, st.shapes
	e.stateMu.Unlock()
	if sess != nil && (layout == nil || fixed == nil) {
		return sess.Outputs(), nil
	}
	if layout == nil {
		return nil, errFreeDims
	}
	shapes, err := fixShapes(st.info, st.set, *layout)
	if err != nil {
		return nil, err
	}
	if sess != nil && sameShapes(shapes, fixed) {
		return sess.Outputs(), nil
	}
	outs := selectOutputs(st.info, st.set)
	for i := range outs {
		if s, ok := shapes[outs[i].Name]; ok {
			outs[i].Shape = s
		} else {
			outs[i].Shape = outs[i].ModelShape
		}
	}
	return outs, nil
}

// sameShapes reports whether two sets of fixed shapes are the same.
func sameShapes(a, b map[string][]int64) bool { return maps.EqualFunc(a, b, slices.Equal) }

// errFreeDims: the model's outputs are not known before the input caps
// fix its free dimensions.
var errFreeDims = errors.New("free dimensions: no input caps yet")

func selectOutputs(info infer.ModelInfo, set settings) []infer.TensorInfo {
	o := set.options(nil)
	if o.Outputs == nil {
		return append([]infer.TensorInfo(nil), info.Outputs...)
	}
	var outs []infer.TensorInfo
	for _, n := range o.Outputs {
		for _, t := range info.Outputs {
			if t.Name == n {
				outs = append(outs, t)
			}
		}
	}
	return outs
}

// fixShapes fixes a model's free dimensions from the input layout the
// caps give: a free leading (batch) dimension of the input takes the
// frame's (1 for video: one frame per buffer); any other free input
// dimension takes the frame's dimension at the same place when the ranks
// agree; a free leading dimension of an output takes the input's batch.
// Anything else is infer.ErrDynamicDims naming the tensor.
func fixShapes(info infer.ModelInfo, set settings, l tensor.Layout) (map[string][]int64, error) {
	if len(info.Inputs) != 1 {
		return nil, fmt.Errorf("%w: %s: the model has %d inputs; tensorinfer feeds exactly one", infer.ErrInput, set.model, len(info.Inputs))
	}
	in := info.Inputs[0]
	shapes := map[string][]int64{}
	ms := in.ModelShape
	cs := make([]int64, 0, len(ms))
	for len(cs)+len(l.Shape) < len(ms) {
		cs = append(cs, 1)
	}
	for _, d := range l.Shape {
		cs = append(cs, int64(d))
	}
	batch := int64(1)
	if in.Dynamic() {
		fixed := append([]int64(nil), ms...)
		for i, d := range ms {
			if d >= 0 {
				continue
			}
			if len(cs) != len(ms) {
				return nil, fmt.Errorf("%w: %s: input %q has shape %v; the caps give %v (rank %d), which cannot fix dimension %d",
					infer.ErrDynamicDims, set.model, in.Name, ms, l.Shape, len(l.Shape), i)
			}
			fixed[i] = cs[i]
		}
		batch = fixed[0]
		shapes[in.Name] = fixed
	}
	for _, o := range selectOutputs(info, set) {
		if !o.Dynamic() {
			continue
		}
		fixed := append([]int64(nil), o.ModelShape...)
		for i, d := range fixed {
			if d >= 0 {
				continue
			}
			if i != 0 {
				return nil, fmt.Errorf("%w: %s: output %q has shape %v: dimension %d is free and the input caps do not fix it "+
					"(only a free leading batch dimension is taken from the input)", infer.ErrDynamicDims, set.model, o.Name, o.ModelShape, i)
			}
			fixed[i] = batch
		}
		shapes[o.Name] = fixed
	}
	return shapes, nil
}

// tensorsCaps describes outputs as static other/tensors: NNStreamer's
// num_tensors, dimensions (innermost first, comma between tensors) and
// types, plus names (comma-separated; this project's field, which
// NNStreamer's caps do not define and its elements ignore). Names holding
// a comma are left out (names is then omitted).
func tensorsCaps(outs []infer.TensorInfo) string {
	dims, types, names := make([]string, len(outs)), make([]string, len(outs)), make([]string, len(outs))
	withNames := true
	for i, o := range outs {
		shape := make([]int, len(o.Shape))
		for j, d := range o.Shape {
			shape[j] = int(d)
		}
		dims[i] = capslayout.Dimensions(shape)
		types[i] = o.DType.String()
		names[i] = o.Name
		if strings.ContainsAny(o.Name, ",\"\\") {
			withNames = false
		}
	}
	s := fmt.Sprintf("%s, format=(string)static, num_tensors=(int)%d, dimensions=(string)\"%s\", types=(string)\"%s\"",
		capslayout.MediaTensors, len(outs), strings.Join(dims, ","), strings.Join(types, ","))
	if withNames {
		s += fmt.Sprintf(", names=(string)\"%s\"", strings.Join(names, ","))
	}
	return s
}

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
	defer e.guard("set-caps", func() { ret = false })
	st := e.current()
	if st == nil {
		return false
	}
	f, err := capslayout.FromCaps(incaps)
	var l tensor.Layout
	if err == nil {
		l, err = inputLayout(st, f)
	}
	if err == nil && (st.sess == nil || st.shapes != nil) {
		var shapes map[string][]int64
		if shapes, err = fixShapes(st.info, st.set, l); err == nil && (st.sess == nil || !sameShapes(shapes, st.shapes)) {
			err = e.reopenSession(st, shapes)
		}
	}
	var conv string
	if err == nil {
		packed := l
		packed.Offset = 0
		conv, err = st.sess.CheckInput(infer.Input{Layout: packed})
	}
	if err != nil {
		e.refuse(self, st, incaps, err)
		return false
	}
	if st.haveFormat && fmt.Sprint(st.inLayout) != fmt.Sprint(l) {
		// Another layout: the bindings of the old one are not reused.
		st.forgetSteady()
		st.cache.Clear()
		st.bound = st.bound[:0]
	}
	st.format, st.inLayout, st.haveFormat = f, l, true
	st.geomOK = false // inputGeometry: the shape may have changed
	st.steadyDirty = true
	if conv != "" {
		perf.LogInfo(fmt.Sprintf("tensorinfer: every frame of caps %v is converted before the run (%s): counted in conversions; "+
			"a model that takes the frame as it is avoids it (docs/design-notes.md)", incaps, conv))
	}
	cat.LogInfo(fmt.Sprintf("caps %v → %v", incaps, outcaps))
	return true
}

// ProposeAllocation offers upstream the pinned pool (as tensorpinsink
// does) and says the element reads GstVideoMeta.
func (e *element) ProposeAllocation(self *base.GstBaseTransform, decide, query *gst.Query) (ret bool) {
	defer e.guard("propose-allocation", func() { ret = false })
	query.AddAllocationMeta(gstc.VideoMetaAPIType(), nil)
	set := e.readSettings()
	if !set.proposePool {
		return true
	}
	caps, _ := gstc.AllocationCaps(query)
	if caps == nil {
		return true
	}
	f, err := capslayout.FromCaps(caps)
	if err != nil || len(f.Planes) != 1 {
		return true
	}
	mem := gstc.PoolMemfd
	if tensor.DeviceUsable(tensor.DMAHeapPath) == nil {
		mem = gstc.PoolDMAHeap
	}
	// The input is read during the run only: two buffers let upstream
	// fill the next frame while this one runs.
	if err := gstc.ProposePinnedPool(query, f.Media == capslayout.MediaVideo, f.FrameSize, 2, mem, true); err != nil {
		cat.LogWarning("no pool proposed: " + err.Error())
	}
	return true
}

// maxRing bounds the output ring downstream's allocation answer can ask
// for (as tensorsrc's).
const maxRing = 64

// DecideAllocation declines downstream's pools and allocators — the
// output buffers are the element's own ring — and grows the ring to the
// output frames downstream says it holds at once (its min-buffers: a
// tensorpinsink asks max-leases+1), so that the element does not wait for
// a slot while downstream waits for a frame.
func (e *element) DecideAllocation(self *base.GstBaseTransform, query *gst.Query) (ret bool) {
	defer e.guard("decide-allocation", func() { ret = false })
	ans := gstc.DeclineAllocation(query)
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
	st.steadyDirty = true // the new slots' bindings
	if err := st.ring.grow(st.sess, want); err != nil {
		gstc.PostError(self.Element, gstc.CodeOf(err, gstc.ResourceNoSpaceLeft),
			fmt.Sprintf("tensorinfer: growing the output ring to downstream's %d buffers: %v", want, err), "")
		return false
	}
	return true
}
