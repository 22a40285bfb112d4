package tensorsrc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// templateCaps are the caps tensorsrc can produce: raw video in system
// memory, the same with the memory:DMABuf feature (only when the backend
// makes real dma-bufs), and one static NNStreamer tensor, in that order
// of preference. other/tensors leaves dimensions and types open: Fixate
// sets them from the properties.
func templateCaps(dmabuf bool) string {
	video := fmt.Sprintf("format=(string)%s, width=(int)[1, 16384], height=(int)[1, 16384], framerate=(fraction)[0/1, 2147483647/1]",
		capslayout.VideoFormats())
	parts := []string{capslayout.MediaVideo + ", " + video}
	if dmabuf {
		parts = append(parts, capslayout.MediaVideo+"("+capslayout.FeatureDMABuf+"), "+video)
	}
	parts = append(parts, capslayout.MediaTensors+", format=(string)static, num_tensors=(int)1, framerate=(fraction)[0/1, 2147483647/1]")
	return strings.Join(parts, "; ")
}

// GetCaps offers the template, without memory:DMABuf unless the backend
// produces dma-bufs. It returns a reference for the caller (go-gst hands
// Instance() to C, which takes ownership; GiveCaps disarms the wrapper's
// finalizer so the reference is not dropped twice, nor late).
func (e *element) GetCaps(self *base.GstBaseSrc, filter *gst.Caps) (ret *gst.Caps) {
	defer gstglue.Guard(self.Element, "get-caps", &ret, nil)
	b, err := e.backend()
	caps := gst.NewCapsFromString(templateCaps(err == nil && b.dmabuf))
	// go-gst wraps a NULL filter in a non-nil *Caps.
	if filter != nil && filter.Unsafe() != nil {
		all := caps
		caps = filter.IntersectFull(all, gst.CapsIntersectFirst)
		gstglue.ReleaseCaps(all)
	}
	return gstglue.GiveCaps(caps)
}

// backend is the running backend, or the one the property would give.
func (e *element) backend() (backendChoice, error) {
	e.mu.Lock()
	st := e.st
	e.mu.Unlock()
	if st != nil {
		return st.backend, nil
	}
	return resolveBackend(e.settings.Read().backend, false)
}

// Fixate fixates toward the width, height, format, framerate, dimensions
// and type properties. caps is transfer full and so is the result.
func (e *element) Fixate(self *base.GstBaseSrc, caps *gst.Caps) (ret *gst.Caps) {
	defer gstglue.Guard(self.Element, "fixate", &ret, nil)
	s := e.settings.Read()
	fps := s.framerate
	return gstglue.FixateCaps(caps, map[string]gstglue.FixateTarget{
		capslayout.MediaVideo: {
			Ints:      map[string]int{"width": s.width, "height": s.height},
			Fractions: map[string][2]int{"framerate": fps},
			Strings:   map[string]string{"format": s.format},
		},
		capslayout.MediaTensors: {
			Fractions: map[string][2]int{"framerate": fps},
			Strings:   map[string]string{"dimensions": s.tensorDimensions(), "types": s.dtype},
		},
	})
}

// tensorDimensions is the dimensions property, or [1, height, width,
// channels] of the video properties written innermost first.
func (s settings) tensorDimensions() string {
	if s.dimensions != "" {
		return s.dimensions
	}
	l, err := capslayout.VideoLayout(s.format, s.width, s.height, 0)
	if err != nil {
		return fmt.Sprintf("3:%d:%d:1", s.width, s.height)
	}
	shape := append([]int{1}, l.Shape...)
	if len(shape) == 3 {
		shape = append(shape, 1) // GRAY: one channel
	}
	return capslayout.Dimensions(shape)
}

// Negotiate explains a failure before basesrc reports a bare
// "not-negotiated": when downstream accepts none of our caps it posts an
// error saying what each side offers (and that memory:DMABuf needs a
// dma-buf backend), then chains up to the default negotiation.
func (e *element) Negotiate(self *base.GstBaseSrc) (ret bool) {
	defer gstglue.Guard(self.Element, "negotiate", &ret, false)
	pad := self.GetStaticPad("src")
	defer gstglue.ReleasePad(pad)
	ours := pad.QueryCaps(nil)
	defer gstglue.ReleaseCaps(ours)
	common := pad.PeerQueryCaps(ours)
	defer gstglue.ReleaseCaps(common)
	if common != nil && common.IsEmpty() {
		peer := pad.PeerQueryCaps(nil)
		defer gstglue.ReleaseCaps(peer)
		b, _ := e.backend()
		text := fmt.Sprintf("downstream accepts none of the caps tensorsrc can produce (downstream: %v)", peer)
		if !b.dmabuf && wantsDMABuf(peer) {
			text = fmt.Sprintf("downstream requires memory:DMABuf, but backend %s makes memfd memory, not DMA-BUFs; "+
				"use backend=dma-heap or backend=udmabuf (downstream: %v)", b.name, peer)
		}
		gstglue.PostError(self.Element, gstglue.CoreNegotiation, text, fmt.Sprintf("tensorsrc offers %v", ours))
		return false
	}
	return parentNegotiate(self)
}

func wantsDMABuf(caps *gst.Caps) bool {
	if caps == nil || caps.IsAny() {
		return false
	}
	for i := 0; i < caps.GetSize(); i++ {
		if f := caps.GetFeaturesAt(i); f == nil || !f.Contains(capslayout.FeatureDMABuf) {
			return false
		}
	}
	return caps.GetSize() > 0
}

// SetCaps reads the negotiated format; DecideAllocation allocates the
// ring for it.
func (e *element) SetCaps(self *base.GstBaseSrc, caps *gst.Caps) (ret bool) {
	defer gstglue.Guard(self.Element, "set-caps", &ret, false)
	f, err := capslayout.FromCaps(caps)
	if err != nil {
		gstglue.PostError(self.Element, gstglue.CoreNegotiation, fmt.Sprintf("cannot produce %v: %v", caps, err), "")
		return false
	}
	fpsN, fpsD, ok := gstglue.CapsFraction(caps, 0, "framerate")
	if !ok {
		fpsN, fpsD = 0, 1
	}
	e.mu.Lock()
	st := e.st
	if st == nil {
		e.mu.Unlock()
		return false
	}
	if f.DMABuf && !st.backend.dmabuf {
		e.mu.Unlock()
		gstglue.PostError(self.Element, gstglue.CoreNegotiation,
			fmt.Sprintf("caps %v ask for memory:DMABuf, but backend %s makes memfd memory", caps, st.backend.name), "")
		return false
	}
	st.fpsN, st.fpsD = fpsN, fpsD
	// The ring is (re)allocated in DecideAllocation, which GstBaseSrc
	// calls right after, once downstream said how many buffers it holds.
	st.format, st.haveFormat = f, true
	e.configureFrameLocked(st, st.ring) // the rate may have changed; a new ring follows
	e.mu.Unlock()
	return true
}

// replaceRing allocates a ring of n tensors for f and makes it current;
// the old one is retired (its slots still downstream return normally).
// why says what asked for it, for the log.
func (e *element) replaceRing(self *base.GstBaseSrc, f capslayout.Format, n int, why string) bool {
	e.mu.Lock()
	st := e.st
	if st == nil {
		e.mu.Unlock()
		return false
	}
	b, ends, stats, wake, maxSlots := st.backend, st.ends, st.stats, st.wake, st.maxPoolSize
	if st.pattern == patternApp {
		// The application's Acquire waits for this ring's frees; the C
		// create waits for its pushes instead.
		wake = e.appWake
	}
	e.mu.Unlock()

	r, err := newRing(e, f, b, ends, n, maxSlots, stats, wake)
	if err != nil {
		gstglue.PostError(self.Element, gstglue.ResourceNoSpaceLeft, fmt.Sprintf("cannot allocate the ring: %v", err), "")
		return false
	}
	first := r.slots[0].t // before the ring is current: it may grow then
	var rel retired
	e.mu.Lock()
	// The application's queue goes back to the old ring (SetRing), before
	// the ring closes in finish.
	e.configureFrameLocked(st, r)
	if old := st.ring; old != nil {
		old.retireLocked(&rel)
	}
	st.ring = r
	stats.ringSize.Store(uint64(n))
	e.mu.Unlock()
	e.appWake.Interrupt()
	rel.finish()
	grows := "it does not grow"
	if r.maxSlots > n {
		grows = fmt.Sprintf("it grows to %d when a preroll waits with every tensor downstream", r.maxSlots)
	}
	cat.LogInfo(fmt.Sprintf("ring of %d %s tensors for %s (%s): %v", n, b.name, why, grows, first), self.Object)
	return true
}

// maxRing bounds the ring downstream's min-buffers may ask for.
const maxRing = 64

// DecideAllocation reads downstream's answer to the ALLOCATION query and
// allocates the ring for the negotiated format (a new ring only when the
// layout changes or must grow; the old one is retired and its slots still
// downstream return normally). tensorsrc pushes its own pinned ring
// memory, so it declines every pool and allocator downstream proposed —
// explicitly, in the query, and without chaining up, so GstBaseSrc creates
// no default pool it would never use — but honours min-buffers:
// downstream will hold that many buffers at once (queues, a sink's
// leases), and a smaller ring would stall it, so the ring has
// max(pool-size, min-buffers) tensors (up to 64).
func (e *element) DecideAllocation(self *base.GstBaseSrc, query *gst.Query) (ret bool) {
	defer gstglue.Guard(self.Element, "decide-allocation", &ret, false)
	ans := gstglue.DeclineAllocation(query)
	if ans.Pools+ans.Allocators > 0 {
		cat.LogInfo(fmt.Sprintf("declined %d pool(s) and %d allocator(s) proposed downstream: tensorsrc pushes its own pinned ring",
			ans.Pools, ans.Allocators), self.Object)
	}
	want := ans.MinBuffers
	if want > maxRing {
		cat.LogWarning(fmt.Sprintf("downstream wants %d buffers in flight; the ring stops at %d", want, maxRing), self.Object)
		want = maxRing
	}
	e.mu.Lock()
	st := e.st
	if st == nil || !st.haveFormat {
		e.mu.Unlock()
		return false
	}
	st.stats.downstreamMin.Store(uint64(ans.MinBuffers))
	f := st.format
	n := max(st.poolSize, want)
	if r := st.ring; r != nil && sameLayout(r.format, f) && len(r.slots) >= n {
		r.format = f
		e.mu.Unlock()
		return true
	}
	e.mu.Unlock()
	why := fmt.Sprintf("pool-size %d", st.poolSize)
	if n > st.poolSize {
		why = fmt.Sprintf("downstream's min-buffers %d (pool-size %d)", ans.MinBuffers, st.poolSize)
	}
	return e.replaceRing(self, f, n, why)
}

func sameLayout(a, b capslayout.Format) bool {
	return a.DMABuf == b.DMABuf && a.FrameSize == b.FrameSize && a.VideoFormat == b.VideoFormat &&
		a.Width == b.Width && a.Height == b.Height && a.Layout().DType == b.Layout().DType && a.Layout().RowStride == b.Layout().RowStride &&
		a.Layout().Offset == b.Layout().Offset && slices.Equal(a.Layout().Shape, b.Layout().Shape)
}
