package tensordecode

import (
	"fmt"
	"slices"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// regions.go: decoding region results — a tensorinfer
// inference-region=roi-list's GstTensorPinMetas, one per batch run, row i
// of each the result of the region of interest whose id the meta names —
// and writing each region's result onto that region: a classification
// (classify, ctc) or boxes inside it (the others).

// regionObject is an object decoded from a region's row: the region's id
// and the object, in frame coordinates.
type regionObject struct {
	id  int
	obj decode.Object
}

// resultLayout is a meta's tensors as their caps string describes them,
// parsed once per caps string: the whole tensors (checked against the
// mode for whole-frame results) and one row of them (checked for region
// results, whose outermost dimension is the batch).
type resultLayout struct {
	whole    layout
	wholeErr error
	// rows is the tensors' outermost dimension; row the tensors of one
	// row ([1, the rest...]; Data set per row), rowBytes each one's row
	// size in bytes; rowErr why the tensors cannot be read by row.
	rows     int
	row      []decode.Tensor
	rowBytes []int
	rowErr   error
}

// maxLayouts bounds the caps strings a stream keeps parsed (region
// results have one per batch shape, a handful).
const maxLayouts = 32

// resultLayoutOf returns the layout of a meta's tensors from their caps
// string, parsed on the first frame with that string.
func (st *streamState) resultLayoutOf(caps string) *resultLayout {
	if rl, ok := st.layouts[caps]; ok {
		return rl
	}
	if st.layouts == nil || len(st.layouts) >= maxLayouts {
		st.layouts = make(map[string]*resultLayout)
	}
	rl := &resultLayout{}
	st.layouts[caps] = rl
	lay, err := st.parseTensorsCaps(caps)
	if err != nil {
		err = fmt.Errorf("the GstTensorPinMeta's tensors: %w", err)
		rl.wholeErr, rl.rowErr = err, err
		return rl
	}
	rl.whole = lay
	if err := st.dec.Check(lay.tensors); err != nil {
		rl.wholeErr = fmt.Errorf("the GstTensorPinMeta's tensors: %w (caps %s)", err, lay.dims)
	}
	rl.rowErr = rl.splitRows(st.dec, lay)
	cat.LogInfo(fmt.Sprintf("video mode: tensors %s", caps))
	return rl
}

// splitRows makes the row layout: every tensor's outermost dimension the
// same (the batch), a row of each the rest.
func (rl *resultLayout) splitRows(dec *decode.Decoder, lay layout) error {
	for i, t := range lay.tensors {
		if len(t.Shape) == 0 || (i > 0 && t.Shape[0] != rl.rows) {
			return fmt.Errorf("the region results' tensors have no common outermost dimension, one row per region (caps %s)", lay.dims)
		}
		rl.rows = t.Shape[0]
		shape := append([]int{1}, t.Shape[1:]...)
		n := t.DType.Size()
		for _, d := range t.Shape[1:] {
			n *= d
		}
		rl.row = append(rl.row, decode.Tensor{Name: t.Name, DType: t.DType, Shape: shape})
		rl.rowBytes = append(rl.rowBytes, n)
	}
	if err := dec.Check(rl.row); err != nil {
		return fmt.Errorf("a region's row of the GstTensorPinMeta's tensors: %w (caps %s)", err, lay.dims)
	}
	return nil
}

// trackResult is a tracked region's last result (reclassify-interval):
// its objects, and the frame it was last on.
type trackResult struct {
	objs []decode.Object
	seen uint64
}

// carryTracks keeps each tracked region's result (its "tracking"
// structure's id, tensortrack's) and carries it onto the region on the
// frames where its tensorinfer did not run it — the track's result
// stands (tensorinfer reclassify-interval): st.regionObjs gets the
// track's last objects for it. A track not on the frame is forgotten.
// Classify and ctc only (a result on the region itself).
func (e *element) carryTracks(st *streamState, buf gstglue.RawBuffer) {
	st.frameSeq++
	n := gstglue.TrackedRegions(buf, st.trackIDs, st.trackOf)
	if n > len(st.trackIDs) {
		st.trackIDs, st.trackOf = make([]int32, n), make([]uint64, n)
		n = gstglue.TrackedRegions(buf, st.trackIDs, st.trackOf)
	}
	decoded := len(st.regionObjs)
	carried := 0
	for i := range n {
		id, track := int(st.trackIDs[i]), st.trackOf[i]
		c := st.tracks[track]
		if slices.Contains(st.decodedIDs, id) {
			if c == nil {
				if st.tracks == nil {
					st.tracks = make(map[uint64]*trackResult)
				}
				c = &trackResult{}
				st.tracks[track] = c
			}
			c.objs = c.objs[:0]
			for _, r := range st.regionObjs[:decoded] {
				if r.id == id {
					c.objs = append(c.objs, r.obj)
				}
			}
			c.seen = st.frameSeq
			continue
		}
		if c == nil {
			continue
		}
		for _, o := range c.objs {
			st.regionObjs = append(st.regionObjs, regionObject{id: id, obj: o})
			carried++
		}
		c.seen = st.frameSeq
	}
	for k, c := range st.tracks {
		if c.seen != st.frameSeq {
			delete(st.tracks, k)
		}
	}
	e.stats.carried.Add(uint64(carried))
}

// decodeRegions decodes every region result producer made on buf (its
// GstTensorPinMetas with regions, in the order they were added) into
// st.regionObjs, each object in frame coordinates through its region's
// transform.
func (e *element) decodeRegions(st *streamState, buf gstglue.RawBuffer, producer string) error {
	st.regionObjs = st.regionObjs[:0]
	st.decodedIDs = st.decodedIDs[:0]
	var err error
	st.metaRead.Each(buf, producer, func(m tensormeta.Raw) bool {
		if !m.Tensors.IsNil() {
			if len(m.Regions) > 0 {
				err = e.decodeRegionBatch(st, m)
			}
			gstglue.UnrefRawBuffer(m.Tensors)
		}
		return err == nil
	})
	return err
}

// decodeRegionBatch decodes the rows of one batch run's tensors.
func (e *element) decodeRegionBatch(st *streamState, m tensormeta.Raw) error {
	rl := st.resultLayoutOf(m.Caps)
	if rl.rowErr != nil {
		return rl.rowErr
	}
	n := len(rl.row)
	if have := numMemory(m.Tensors); have != n {
		return fmt.Errorf("a region result of %d memories, but its caps say %d tensors (%s): one memory per tensor", have, n, rl.whole.dims)
	}
	if len(m.Regions) > rl.rows {
		return fmt.Errorf("a region result names %d regions, but its tensors have %d rows (%s)", len(m.Regions), rl.rows, rl.whole.dims)
	}
	mapped := st.maps.mapAll(m.Tensors, n)
	defer func() {
		st.maps.unmap(mapped)
		for i := range rl.row {
			rl.row[i].Data = nil
		}
	}()
	if mapped < n {
		return gstglue.Fail(gstglue.ResourceRead, "memory %d of a region result (tensor %v) cannot be mapped for reading", mapped, rl.row[mapped])
	}
	for k := range rl.row {
		if have, want := len(st.maps.bytes(k)), len(m.Regions)*rl.rowBytes[k]; have < want {
			return fmt.Errorf("tensor %v of a region result holds %d bytes, want %d for %d regions: %w", rl.whole.tensors[k], have, want,
				len(m.Regions), decode.ErrData)
		}
	}
	for i, g := range m.Regions {
		for k := range rl.row {
			rl.row[k].Data = st.maps.bytes(k)[i*rl.rowBytes[k] : (i+1)*rl.rowBytes[k]]
		}
		tr := decode.Transform{InputWidth: m.Transform.ModelWidth, InputHeight: m.Transform.ModelHeight,
			FrameWidth: st.frameW, FrameHeight: st.frameH,
			ScaleX: g.Transform.ScaleX, ScaleY: g.Transform.ScaleY, OffsetX: g.Transform.OffsetX, OffsetY: g.Transform.OffsetY}
		objs, err := st.dec.Decode(rl.row, tr)
		if err != nil {
			return fmt.Errorf("region %d: %w (caps %s)", g.ID, err, rl.whole.dims)
		}
		e.stats.nonFinite.Add(uint64(st.dec.NonFinite()))
		st.decodedIDs = append(st.decodedIDs, g.ID)
		for _, o := range objs {
			st.regionObjs = append(st.regionObjs, regionObject{id: g.ID, obj: o})
		}
	}
	e.stats.regions.Add(uint64(len(m.Regions)))
	return nil
}
