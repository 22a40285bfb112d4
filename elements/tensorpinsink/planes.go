package tensorpinsink

import (
	"fmt"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/pincache"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// maxPlanes bounds the tensors of one frame: 4 video planes, or 16
// tensors of other/tensors (one memory each).
const maxPlanes = capslayout.MaxTensors

// framePlanes is how the frames of the current caps (and video meta) are
// laid out: one layout per plane. Offsets are from the start of the buffer
// (video: across its memories) or of the plane's memory (other/tensors).
type framePlanes struct {
	planes  []capslayout.Plane
	extents []int // per plane: bytes from its first element to the end of its last row
	strides []int // per plane: bytes between row starts
	// gen names the layout (never reused): cache entries keep their views
	// per gen.
	gen uint64
	// meta is the GstVideoMeta the planes come from (haveMeta), so a
	// buffer with the same meta costs no recomputation.
	meta     gstglue.VideoMetaPlanes
	haveMeta bool

	// recent are the last layouts seen (the caps' own and the metas'), so
	// that a producer alternating between a few metas (one that flips
	// every frame) finds each layout, and its gen, again: no allocation.
	recent   [maxRecentLayouts]layoutMemo
	nrecent  int
	nextSlot int // where the next new layout goes when recent is full
	lastGen  uint64
}

// maxRecentLayouts bounds framePlanes.recent; it matches the view sets a
// cache entry keeps.
const maxRecentLayouts = pincache.MaxViewSets

// layoutMemo is one layout framePlanes has seen.
type layoutMemo struct {
	haveMeta bool
	meta     gstglue.VideoMetaPlanes
	planes   []capslayout.Plane
	extents  []int
	strides  []int
	gen      uint64
}

// forget drops the remembered layouts (new caps).
func (fp *framePlanes) forget() {
	fp.recent = [maxRecentLayouts]layoutMemo{}
	fp.nrecent, fp.nextSlot = 0, 0
}

// recall makes a remembered layout current; false if there is none for
// this meta (nil: the caps' layout).
func (fp *framePlanes) recall(meta *gstglue.VideoMetaPlanes) bool {
	for i := 0; i < fp.nrecent; i++ {
		r := &fp.recent[i]
		if r.haveMeta != (meta != nil) || meta != nil && r.meta != *meta {
			continue
		}
		fp.planes, fp.extents, fp.strides, fp.gen, fp.haveMeta = r.planes, r.extents, r.strides, r.gen, r.haveMeta
		if meta != nil {
			fp.meta = *meta
		}
		return true
	}
	return false
}

// set installs planes as a new layout with a new gen, so cache entries
// make views for it, and remembers it.
func (fp *framePlanes) set(planes []capslayout.Plane, meta *gstglue.VideoMetaPlanes) error {
	ext := make([]int, len(planes))
	strides := make([]int, len(planes))
	for i, p := range planes {
		g, err := p.Layout.Geometry()
		if err != nil {
			return fmt.Errorf("plane %d: %w", i, err)
		}
		ext[i], strides[i] = g.Extent, g.Stride
	}
	fp.planes, fp.extents, fp.strides = planes, ext, strides
	fp.haveMeta = meta != nil
	if meta != nil {
		fp.meta = *meta
	}
	fp.lastGen++
	fp.gen = fp.lastGen
	m := layoutMemo{haveMeta: fp.haveMeta, meta: fp.meta, planes: planes, extents: ext, strides: strides, gen: fp.gen}
	if fp.nrecent < maxRecentLayouts {
		fp.recent[fp.nrecent] = m
		fp.nrecent++
	} else {
		fp.recent[fp.nextSlot] = m
		fp.nextSlot = (fp.nextSlot + 1) % maxRecentLayouts
	}
	return nil
}

// follow makes the planes those of buf: the caps' defaults, or its
// GstVideoMeta's offsets and strides. It allocates only for a layout not
// among the last few seen.
func (fp *framePlanes) follow(f *capslayout.Format, v *gstglue.BufferView) error {
	var m gstglue.VideoMetaPlanes
	ok := f.Media == capslayout.MediaVideo
	if ok {
		m, ok = v.VideoMeta()
	}
	if !ok {
		if fp.haveMeta || fp.planes == nil {
			if fp.recall(nil) {
				return nil
			}
			return fp.set(f.Planes, nil)
		}
		return nil
	}
	if fp.haveMeta && m == fp.meta {
		return nil
	}
	if fp.recall(&m) {
		return nil
	}
	if m.Width != f.Width || m.Height != f.Height {
		return fmt.Errorf("the buffer's video meta says %dx%d, the caps %dx%d", m.Width, m.Height, f.Width, f.Height)
	}
	if m.NPlanes != len(f.Planes) {
		return fmt.Errorf("the buffer's video meta has %d planes, %s has %d", m.NPlanes, f.VideoFormat, len(f.Planes))
	}
	planes := make([]capslayout.Plane, m.NPlanes)
	for p := range planes {
		l, err := capslayout.PlaneLayout(f.VideoFormat, p, f.Width, f.Height, m.Strides[p])
		if err != nil {
			return fmt.Errorf("the buffer's video meta, plane %d: %w", p, err)
		}
		l.Offset = m.Offsets[p]
		planes[p] = capslayout.Plane{Layout: l, Memory: -1}
	}
	return fp.set(planes, &m)
}

// planeSpot is where a plane lies in a buffer.
type planeSpot struct {
	mem  int // index of the memory holding its first byte
	skip int // its first byte in that memory
	// bufOffset is the same byte counted from the start of the buffer (the
	// memories end to end): where it lies in a copy of the buffer.
	bufOffset int
}

// locate finds each plane's memory in the buffer v reads. split reports a
// video plane that does not lie within one memory (a frame cut into
// memories anywhere but at its planes: appsrc, rawvideoparse, adapters),
// or a buffer of more memories than maxPlanes (more than any frame has
// planes or tensors, and more than the view reads): such a frame has no
// single memory to pin per plane, and is copied. A plane past the end of
// the whole buffer, or a tensor that does not fit its memory, is an
// error.
func (fp *framePlanes) locate(v *gstglue.BufferView, spots []planeSpot) (split bool, err error) {
	nmem, size := v.NMemory(), v.Size()
	memSize := v.MemSize
	for p, pl := range fp.planes {
		var sp planeSpot
		if pl.Memory >= 0 {
			// other/tensors: one memory per tensor, the offset in it.
			if pl.Memory >= nmem {
				return false, fmt.Errorf("tensor %d is in memory %d, but the buffer has %d memories", p, pl.Memory, nmem)
			}
			sp.mem, sp.skip = pl.Memory, pl.Layout.Offset
			for i := 0; i < sp.mem; i++ {
				sp.bufOffset += memSize(i)
			}
			sp.bufOffset += sp.skip
			if sp.skip+fp.extents[p] > memSize(sp.mem) {
				return false, fmt.Errorf("buffer memory %d of %d bytes is shorter than tensor %d needs (%d bytes from byte %d: %v %v, stride %d)",
					sp.mem, memSize(sp.mem), p, fp.extents[p], sp.skip, pl.Layout.DType, pl.Layout.Shape, pl.Layout.RowStride)
			}
			spots[p] = sp
			continue
		}
		// Video: the offset is counted across the buffer's memories.
		sp.bufOffset = pl.Layout.Offset
		if sp.bufOffset+fp.extents[p] > size {
			return false, fmt.Errorf("the buffer's %d bytes are shorter than plane %d needs (%d bytes from byte %d: %v %v, stride %d)",
				size, p, fp.extents[p], sp.bufOffset, pl.Layout.DType, pl.Layout.Shape, pl.Layout.RowStride)
		}
		if nmem == 1 {
			// One memory (the common case): the offset is the place in it,
			// no search of the view's memories.
			sp.mem, sp.skip = 0, pl.Layout.Offset
		} else {
			mem, skip, ok := v.FindMemory(pl.Layout.Offset)
			if !ok {
				// Past the memories the view holds (the plane is inside
				// the buffer: checked above): too many memories, copied.
				split = true
				spots[p] = sp
				continue
			}
			sp.mem, sp.skip = mem, skip
			if sp.mem >= maxPlanes || sp.skip+fp.extents[p] > memSize(sp.mem) {
				split = true
			}
		}
		spots[p] = sp
	}
	return split || nmem > maxPlanes, nil
}

// planeLayout is plane p's layout at offset off of an entry's storage.
func (fp *framePlanes) planeLayout(p, off int) tensor.Layout {
	l := fp.planes[p].Layout
	l.Offset = off
	return l
}
