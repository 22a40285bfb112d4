package tensorpinsink

import (
	"fmt"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// streamState exists between Start and Stop; the streaming thread owns it
// (Render, SetCaps and serialized events run there), guarded by stateMu
// only against property reads and Stop.
type streamState struct {
	cache  *pincache.Cache
	qkey   gstglue.QdataKey // this run's qdata key (qdataKeys.Take)
	leases *leases
	own    []*tensor.Tensor // copy path: one memfd tensor per lease, lazily
	// engine makes the frames (frameengine's sinkframe.h); Go fills its table
	// of pinned regions and its plans when it asks (sinkInput).
	engine sinkFrame
	// touched: the engine's use stamp up to which the cache was told
	// (touchInputs).
	touched uint64
	// lease is the engine's lease read for a Go consumer (reused).
	lease leaseFrame
	// held keeps the element for warnings from the streaming thread.
	held gstglue.Held

	haveFormat bool
	format     capslayout.Format
	caps       string // the negotiated caps, for Frame.Caps
	// fp are the frame's planes for the current caps and video meta.
	fp framePlanes
	// view is the current buffer, read once per frame (render's only
	// call into the buffer; reused: no allocation).
	view gstglue.BufferView

	// begins are GstTensorSync begin events whose buffers have not
	// arrived yet: C memory on the element, where frameengine's event
	// trampoline records them (no Go callback).
	begins frameengine.PendingBegins
	// copyLogged: the first copy for each reason was logged.
	copyLogged [copyReasons]bool
	// growthWarned: the cache's growth past cache-size was reported.
	growthWarned bool
}

func (s *sink) Start(self *base.GstBaseSink) (ret bool) {
	defer gstglue.Guard(self.Element, "start", &ret, false)
	set := s.settings.Read()
	s.stats.reset()
	raw := gstglue.RawElementOf(self.Unsafe())
	engine := newSinkFrame(raw, int(set.maxLeases))
	st := &streamState{
		cache:  pincache.NewWithSlots(int(set.cacheSize), s.slots),
		qkey:   qdataKeys.Take(),
		leases: newLeases(engine, int(set.maxLeases)),
		own:    make([]*tensor.Tensor, set.maxLeases),
		engine: engine,
		held:   gstglue.Hold(self.Element, "sink"),
	}
	engine.SetQdataKey(st.qkey)
	s.pushSettings(st, set)
	frameengine.WakeOf(raw).SetStopping(false)
	// Every frame the application holds keeps its buffer's entry: the
	// cache holds at least the leases and the pool proposed upstream
	// (max-leases+1 buffers); beyond that it learns the producer's pool
	// (see noteCacheGrowth).
	st.cache.Grow(int(set.maxLeases) + 1)
	st.cache.AutoGrow(maxCacheSize)
	s.recordCache(st)
	st.begins = frameengine.PendingBeginsOf(raw)
	st.begins.Clear()
	s.stateMu.Lock()
	s.state = st
	engine.SetGoConsumer(s.handler.Load() != nil)
	s.stateMu.Unlock()
	engine.Install(raw)
	cat.LogInfo(fmt.Sprintf("started: cache-size %d, max-leases %d, drop %v", set.cacheSize, set.maxLeases, set.drop), self.Object)
	return true
}

func (s *sink) Stop(self *base.GstBaseSink) (ret bool) {
	defer gstglue.Guard(self.Element, "stop", &ret, false)
	s.stateMu.Lock()
	st := s.state
	s.state = nil
	s.stateMu.Unlock()
	if st == nil {
		return true
	}
	raw := gstglue.RawElementOf(self.Unsafe())
	frameengine.WakeOf(raw).SetStopping(true)
	uninstallSinkFrame(raw)
	defer st.held.Release()
	// Frames the application holds keep their leases (and the engine)
	// until their Release.
	defer st.engine.Unref()
	defer st.clearInputs()
	if n := st.engine.Retire(); n > 0 {
		s.stats.closedAtStop.Add(uint64(n))
		cat.LogInfo(fmt.Sprintf("stop: closed the CPU-access brackets of %d frames the application still holds", n), self.Object)
	}
	s.stats.beginsExpired.Add(uint64(st.begins.Clear()))
	s.recordCache(st)
	st.cache.Close()
	st.closeOwn()
	qdataKeys.Give(st.qkey)
	return true
}

func (s *sink) Unlock(self *base.GstBaseSink) (ret bool) {
	defer gstglue.Guard(self.Element, "unlock", &ret, false)
	frameengine.WakeOf(gstglue.RawElementOf(self.Unsafe())).SetFlushing(true)
	return true
}

func (s *sink) UnlockStop(self *base.GstBaseSink) (ret bool) {
	defer gstglue.Guard(self.Element, "unlock-stop", &ret, false)
	frameengine.WakeOf(gstglue.RawElementOf(self.Unsafe())).SetFlushing(false)
	return true
}

func (s *sink) current() *streamState {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	return s.state
}

func (s *sink) recordCache(st *streamState) {
	cs := st.cache.ReadStats()
	s.stats.evictions.Store(cs.Evictions)
	s.stats.cacheCapacity.Store(cs.Max)
}

// maxCacheSize bounds the pin cache's learnt size (cache-size's maximum).
const maxCacheSize = 4096

// noteCacheGrowth warns, once per run, when the cache had to grow past
// cache-size because the producer cycles through more buffers (a camera
// or decoder with a large pool): without growing, every frame would cost
// an mmap, a munmap and a new slot. Streaming thread, no lock held.
func (s *sink) noteCacheGrowth(st *streamState) {
	cs := st.cache.ReadStats()
	s.stats.cacheCapacity.Store(cs.Max)
	if cs.Grown == 0 || st.growthWarned {
		return
	}
	st.growthWarned = true
	msg := fmt.Sprintf("the producer cycles through more buffers than cache-size=%d: the pin cache grows to hold them "+
		"(now %d; the stats field cache-capacity has the final size); set cache-size to the producer's pool size",
		s.settings.Read().cacheSize, cs.Max)
	cat.LogWarning(msg)
	st.held.PostWarning(gstglue.ResourceSettings, msg, "")
}

// SetCaps reads the negotiated caps; a change of format releases every
// cache entry (the buffers of the old format are not coming back).
func (s *sink) SetCaps(self *base.GstBaseSink, caps *gst.Caps) (ret bool) {
	defer gstglue.Guard(self.Element, "set-caps", &ret, false)
	st := s.current()
	if st == nil {
		return false
	}
	f, err := capslayout.FromCaps(caps)
	if err != nil {
		gstglue.PostError(self.Element, gstglue.CoreNegotiation, "tensorpinsink cannot map these caps to a tensor: "+err.Error(),
			fmt.Sprintf("caps: %v", caps))
		return false
	}
	if st.haveFormat && !sameFormat(st.format, f) {
		st.cache.Clear()
		st.dropDeadInputs()
		st.closeOwn()
		// Buffers announced in the old format are not coming.
		s.stats.beginsExpired.Add(uint64(st.begins.Clear()))
	}
	st.format, st.haveFormat, st.caps = f, true, caps.String()
	st.fp.forget()
	st.engine.ClearPlans()
	if err := st.fp.set(f.Planes, nil); err != nil {
		gstglue.PostError(self.Element, gstglue.CoreNegotiation, "tensorpinsink cannot map these caps to tensors: "+err.Error(),
			fmt.Sprintf("caps: %v", caps))
		return false
	}
	st.engine.SetReady(true)
	cat.LogInfo(fmt.Sprintf("caps %v: %d tensor(s), the first %v %v stride %d, %d bytes per frame", caps, len(f.Planes),
		f.Layout().DType, f.Layout().Shape, f.Layout().RowStride, f.FrameSize), self.Object)
	return true
}

func sameFormat(a, b capslayout.Format) bool {
	return a.Media == b.Media && a.VideoFormat == b.VideoFormat && a.Width == b.Width && a.Height == b.Height &&
		a.FrameSize == b.FrameSize && fmt.Sprint(a.Planes) == fmt.Sprint(b.Planes)
}

func (st *streamState) closeOwn() {
	for i, t := range st.own {
		if t != nil {
			t.Close()
			st.own[i] = nil
		}
	}
}
