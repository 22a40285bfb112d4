package tensordecode

import (
	"fmt"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// frame decodes buf (borrowed, as it came: not yet made writable) — its
// memories in tensors mode, its GstTensorPinMeta in video mode — and
// gives the C frame (decodeframe.c) what transform_ip adds to it: a
// region per object, or a classification per region result. It returns
// TDEC_PASS (no tensors: the buffer passes untouched), TDEC_EMPTY
// (decoded, nothing found), TDEC_WRITE, or TDEC_ERROR (TDEC_NOT_NEGOTIATED
// before caps) with the error posted. A frame that cannot be decoded — memories that are not the
// caps' tensors, data shorter than a tensor, a memory that cannot be
// mapped — is an error naming it, and the stream's end. Once a frame,
// allocating nothing in Go once the stream's layouts are known.
func (e *element) frame(buf gstglue.RawBuffer) int {
	st := e.state.Load()
	if st == nil || !st.haveCaps {
		gstglue.PostErrorRaw(e.raw(), gstglue.CoreNegotiation, "tensordecode: a buffer before caps", "")
		return tdecNotNegotiated
	}
	start := time.Now()
	var objs []decode.Object
	var err error
	regions, model := false, ""
	if st.video {
		p := e.decodeVideo(st, buf)
		if p.noMeta {
			e.stats.noTensors.Add(1)
			return tdecPass
		}
		objs, err, regions, model = p.objs, p.err, p.regions, p.model
	} else {
		objs, err = e.decodeTensors(st, buf, numMemory(buf), &st.lay, st.tr)
	}
	if err != nil {
		gstglue.PostErrorRaw(e.raw(), gstglue.CodeOf(err, gstglue.StreamFormat), "tensordecode: "+err.Error(), "")
		return tdecError
	}
	if !regions && model == "" {
		model = st.name // a whole-frame text's model: no tensorinfer says (tensors mode)
	}
	n := e.give(st, objs, regions, model)
	e.stats.frames.Add(1)
	e.stats.objects.Add(uint64(n))
	e.stats.decodeNs.Add(uint64(time.Since(start)))
	if n == 0 {
		return tdecEmpty
	}
	return tdecWrite
}

// decodeVideo decodes a video buffer's GstTensorPinMeta: its tensors
// (their caps parsed once per caps string) with the meta's transform onto
// the frame's size. The tensors' reference is dropped before it returns
// (the objects are the decoder's copies).
func (e *element) decodeVideo(st *streamState, buf gstglue.RawBuffer) pending {
	var m tensormeta.Raw
	var ok bool
	if st.set.resultsFrom != "" {
		m, ok = st.metaRead.ReadFrom(buf, st.set.resultsFrom)
	} else {
		m, ok = st.metaRead.Read(buf)
	}
	onRegion := st.mode == decode.Classify || st.mode == decode.CTC
	if !ok || m.Tensors.IsNil() {
		if !ok {
			return pending{noMeta: true}
		}
		// An empty result: a region-mode tensorinfer that ran on no
		// region of this frame — its tracked regions' results may stand.
		if onRegion && len(st.tracks) > 0 && m.Producer != "" {
			st.regionObjs, st.decodedIDs = st.regionObjs[:0], st.decodedIDs[:0]
			e.carryTracks(st, buf)
			if len(st.regionObjs) > 0 {
				return pending{regions: true, model: m.Producer}
			}
		}
		return pending{noMeta: true}
	}
	defer gstglue.UnrefRawBuffer(m.Tensors)
	var p pending
	if len(m.Regions) > 0 {
		// Region results: every batch run of that tensorinfer.
		p.regions, p.model = true, m.Producer
		p.err = e.decodeRegions(st, buf, m.Producer)
		if p.err == nil && onRegion {
			e.carryTracks(st, buf)
		}
		return p
	}
	rl := st.resultLayoutOf(m.Caps)
	err := rl.wholeErr
	var tr decode.Transform
	if err == nil {
		tr, err = st.videoTransform(m.Transform, rl.whole)
		if err != nil {
			err = fmt.Errorf("%w (caps %s)", err, rl.whole.dims)
		}
	}
	if err == nil {
		p.objs, err = e.decodeTensors(st, m.Tensors, numMemory(m.Tensors), &rl.whole, tr)
	}
	p.err, p.model = err, m.Producer
	return p
}

// decodeTensors maps buf's memories — one per tensor of lay — and
// decodes them with the transform tr. The objects are the decoder's,
// valid until the next frame.
func (e *element) decodeTensors(st *streamState, buf gstglue.RawBuffer, have int, lay *layout, tr decode.Transform) ([]decode.Object, error) {
	n := len(lay.tensors)
	if have != n {
		return nil, fmt.Errorf("a buffer of %d memories, but the caps say %d tensors (%s): one memory per tensor", have, n, lay.dims)
	}
	mapped := st.maps.mapAll(buf, n)
	defer func() {
		st.maps.unmap(mapped)
		for i := range lay.tensors {
			lay.tensors[i].Data = nil
		}
	}()
	if mapped < n {
		return nil, gstglue.Fail(gstglue.ResourceRead, "memory %d of the buffer (tensor %v) cannot be mapped for reading", mapped, lay.tensors[mapped])
	}
	for i := range lay.tensors {
		lay.tensors[i].Data = st.maps.bytes(i)
	}
	objs, err := st.dec.Decode(lay.tensors, tr)
	if err != nil {
		return nil, fmt.Errorf("%w (caps %s)", err, lay.dims)
	}
	e.stats.nonFinite.Add(uint64(st.dec.NonFinite()))
	return objs, nil
}
