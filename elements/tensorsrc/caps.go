package tensorsrc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
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
func (e *element) GetCaps(self *base.GstBaseSrc, filter *gst.Caps) *gst.Caps {
	b, err := e.backend()
	caps := gst.NewCapsFromString(templateCaps(err == nil && b.dmabuf))
	// go-gst wraps a NULL filter in a non-nil *Caps.
	if filter != nil && filter.Unsafe() != nil {
		all := caps
		caps = filter.IntersectFull(all, gst.CapsIntersectFirst)
		gstc.ReleaseCaps(all)
	}
	return gstc.GiveCaps(caps)
}

// backend is the running backend, or the one the property would give.
func (e *element) backend() (backendChoice, error) {
	e.mu.Lock()
	st := e.st
	e.mu.Unlock()
	if st != nil {
		return st.backend, nil
	}
	return resolveBackend(e.snapshot().backend, false)
}

// Fixate fixates toward the width, height, format, framerate, dimensions
// and type properties. caps is transfer full and so is the result.
func (e *element) Fixate(self *base.GstBaseSrc, caps *gst.Caps) *gst.Caps {
	s := e.snapshot()
	fps := s.framerate
	return gstc.FixateCaps(caps, map[string]gstc.FixateTarget{
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
func (e *element) Negotiate(self *base.GstBaseSrc) bool {
	pad := self.GetStaticPad("src")
	defer gstc.ReleasePad(pad)
	ours := pad.QueryCaps(nil)
	defer gstc.ReleaseCaps(ours)
	common := pad.PeerQueryCaps(ours)
	defer gstc.ReleaseCaps(common)
	if common != nil && common.IsEmpty() {
		peer := pad.PeerQueryCaps(nil)
		defer gstc.ReleaseCaps(peer)
		b, _ := e.backend()
		text := fmt.Sprintf("downstream accepts none of the caps tensorsrc can produce (downstream: %v)", peer)
		if !b.dmabuf && wantsDMABuf(peer) {
			text = fmt.Sprintf("downstream requires memory:DMABuf, but backend %s makes memfd memory, not DMA-BUFs; "+
				"use backend=dma-heap or backend=udmabuf (downstream: %v)", b.name, peer)
		}
		gstc.PostError(self.Element, gstc.CoreNegotiation, text, fmt.Sprintf("tensorsrc offers %v", ours))
		return false
	}
	return gstc.BaseSrcParentNegotiate(self)
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

// SetCaps reads the negotiated format and allocates the ring for it (a
// new ring only when the layout changes; the old one is retired and its
// slots still downstream return normally).
func (e *element) SetCaps(self *base.GstBaseSrc, caps *gst.Caps) bool {
	f, err := capslayout.FromCaps(caps)
	if err != nil {
		gstc.PostError(self.Element, gstc.CoreNegotiation, fmt.Sprintf("cannot produce %v: %v", caps, err), "")
		return false
	}
	fpsN, fpsD, ok := gstc.CapsFraction(caps, 0, "framerate")
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
		gstc.PostError(self.Element, gstc.CoreNegotiation,
			fmt.Sprintf("caps %v ask for memory:DMABuf, but backend %s makes memfd memory", caps, st.backend.name), "")
		return false
	}
	st.fpsN, st.fpsD = fpsN, fpsD
	if st.ring != nil && sameLayout(st.ring.format, f) {
		st.ring.format = f
		e.mu.Unlock()
		return true
	}
	b, n, stats := st.backend, st.poolSize, st.stats
	e.mu.Unlock()

	r, err := newRing(e, f, b, n, stats)
	if err != nil {
		gstc.PostError(self.Element, gstc.ResourceNoSpaceLeft, fmt.Sprintf("cannot allocate the ring: %v", err), "")
		return false
	}
	var rel retired
	e.mu.Lock()
	if old := st.ring; old != nil {
		old.retireLocked(&rel)
		st.retired = append(st.retired, old)
		q := st.queue[:0]
		for _, sl := range st.queue {
			if sl.r != old {
				q = append(q, sl)
			}
		}
		st.queue = q
	}
	st.ring = r
	e.cond.Broadcast()
	e.mu.Unlock()
	rel.finish()
	cat.LogInfo(fmt.Sprintf("ring of %d %s tensors for %v: %v", n, b.name, caps, r.slots[0].t), self.Object)
	return true
}

func sameLayout(a, b capslayout.Format) bool {
	return a.DMABuf == b.DMABuf && a.FrameSize == b.FrameSize && a.VideoFormat == b.VideoFormat &&
		a.Width == b.Width && a.Height == b.Height && a.Layout().DType == b.Layout().DType && a.Layout().RowStride == b.Layout().RowStride &&
		a.Layout().Offset == b.Layout().Offset && slices.Equal(a.Layout().Shape, b.Layout().Shape)
}
