package tensordecode

import (
	"fmt"
	"strconv"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensormeta"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// TransformIP decodes the buffer's tensors and adds a region of interest
// per object to it (GstBaseTransform has made it writable). A frame that
// cannot be decoded — memories that are not the caps' tensors, data
// shorter than a tensor, a memory that cannot be mapped — is an error
// naming it, and the stream's end. In video mode the decoding was done
// by BeforeTransform, on the buffer as it came; here the regions are
// added (a frame without objects, or without tensors, was passed
// through: not made writable, untouched).
func (e *element) TransformIP(self *base.GstBaseTransform, buf *gst.Buffer) (ret gst.FlowReturn) {
	defer e.guard("transform", func() { ret = gst.FlowError })
	st := e.current()
	if st == nil || !st.haveCaps {
		gstglue.PostErrorRaw(e.raw(), gstglue.CoreNegotiation, "tensordecode: a buffer before caps", "")
		return gst.FlowNotNegotiated
	}
	raw := gstglue.BorrowBuffer(buf)
	start := time.Now()
	var objs []decode.Object
	var err error
	var spent time.Duration
	if st.video {
		p := st.pend
		st.pend = pending{}
		if !p.valid {
			// No BeforeTransform for this buffer (GstBaseTransform calls
			// it before every transform): decode the buffer in hand, which
			// carries the meta too (it is copied with the buffer).
			p = e.decodeVideo(st, raw)
		}
		if p.noMeta {
			e.stats.noTensors.Add(1)
			return gst.FlowOK
		}
		if p.regions {
			return e.finishRegions(st, buf, raw, p, start)
		}
		objs, err, spent = p.objs, p.err, p.ns
	} else {
		objs, err = e.decodeTensors(st, raw, int(buf.NumMemoryBlocks()), &st.lay, st.tr)
	}
	if err != nil {
		gstglue.PostErrorRaw(e.raw(), gstglue.CodeOf(err, gstglue.StreamFormat), "tensordecode: "+err.Error(), "")
		return gst.FlowError
	}
	if err := e.attach(st, raw, objs); err != nil {
		gstglue.PostErrorRaw(e.raw(), gstglue.CoreFailed, "tensordecode: "+err.Error(), "")
		return gst.FlowError
	}
	e.stats.frames.Add(1)
	e.stats.objects.Add(uint64(len(objs)))
	e.stats.decodeNs.Add(uint64(spent + time.Since(start)))
	if st.set.postMessages {
		st.msg.reset()
		for _, o := range objs {
			e.addToMessage(st, o, -1)
		}
		st.msg.post(e.raw(), uint64(buf.PresentationTimestamp()))
	}
	return gst.FlowOK
}

// finishRegions writes a frame's region results (decoded by
// BeforeTransform) onto buf.
func (e *element) finishRegions(st *streamState, buf *gst.Buffer, raw gstglue.RawBuffer, p pending, start time.Time) gst.FlowReturn {
	if p.err != nil {
		gstglue.PostErrorRaw(e.raw(), gstglue.CodeOf(p.err, gstglue.StreamFormat), "tensordecode: "+p.err.Error(), "")
		return gst.FlowError
	}
	if err := e.attachRegions(st, raw, p.model); err != nil {
		gstglue.PostErrorRaw(e.raw(), gstglue.CoreFailed, "tensordecode: "+err.Error(), "")
		return gst.FlowError
	}
	e.stats.frames.Add(1)
	e.stats.objects.Add(uint64(len(st.regionObjs)))
	e.stats.decodeNs.Add(uint64(p.ns + time.Since(start)))
	if st.set.postMessages {
		st.msg.reset()
		for _, r := range st.regionObjs {
			if r.written {
				e.addToMessage(st, r.obj, r.id)
			}
		}
		st.msg.post(e.raw(), uint64(buf.PresentationTimestamp()))
	}
	return gst.FlowOK
}

// BeforeTransform, in video mode, decodes the tensors of the buffer's
// GstTensorPinMeta before GstBaseTransform decides what to do with the
// buffer, and makes the element passthrough for this buffer unless
// regions are to be added: a frame without the meta, or whose tensors
// hold no object, goes on as it came (never copied, even when others
// hold it); one with objects is made writable first (a shallow copy when
// shared) and gets its regions in TransformIP. In tensors mode it does
// nothing.
func (e *element) BeforeTransform(self *base.GstBaseTransform, buf *gst.Buffer) {
	defer e.guard("before-transform", func() {})
	st := e.current()
	if st == nil || !st.haveCaps || !st.video {
		return
	}
	st.pend = e.decodeVideo(st, gstglue.BorrowBuffer(buf))
	if pass := st.pend.noMeta || (st.pend.err == nil && st.pend.empty(st)); pass != st.passthrough {
		setPassthrough(e.raw(), pass)
		st.passthrough = pass
	}
}

// decodeVideo decodes a video buffer's GstTensorPinMeta: its tensors
// (their caps parsed once per caps string) with the meta's transform onto
// the frame's size. The tensors' reference is dropped before it returns
// (the objects are the decoder's copies).
func (e *element) decodeVideo(st *streamState, buf gstglue.RawBuffer) pending {
	start := time.Now()
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
			return pending{valid: true, noMeta: true}
		}
		// An empty result: a region-mode tensorinfer that ran on no
		// region of this frame — its tracked regions' results may stand.
		if onRegion && len(st.tracks) > 0 && m.Producer != "" {
			st.regionObjs, st.decodedIDs = st.regionObjs[:0], st.decodedIDs[:0]
			e.carryTracks(st, buf)
			if len(st.regionObjs) > 0 {
				return pending{valid: true, regions: true, model: m.Producer, ns: time.Since(start)}
			}
		}
		return pending{valid: true, noMeta: true}
	}
	defer gstglue.UnrefRawBuffer(m.Tensors)
	p := pending{valid: true}
	if len(m.Regions) > 0 {
		// Region results: every batch run of that tensorinfer.
		p.regions, p.model = true, m.Producer
		p.err = e.decodeRegions(st, buf, m.Producer)
		if p.err == nil && onRegion {
			e.carryTracks(st, buf)
		}
		p.ns = time.Since(start)
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
	p.err = err
	p.ns = time.Since(start)
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

// attach adds one GstVideoRegionOfInterestMeta per object, its box
// rounded to whole pixels (edges to the nearest), with a "detection"
// structure (label, class-id, confidence). Its type is the label, else
// "class-N"; classify's whole-frame regions are "classification", ctc's
// "text" (the label the text read, class-id -1).
func (e *element) attach(st *streamState, buf gstglue.RawBuffer, objs []decode.Object) error {
	for _, o := range objs {
		x, y, w, h := o.Box.Pixels()
		typ := o.Label
		switch {
		case st.mode == decode.Classify:
			typ = "classification"
		case st.mode == decode.CTC:
			typ = "text"
		case typ == "":
			typ = "class-" + strconv.Itoa(o.ClassID)
		}
		if _, err := gstglue.AddROI(buf, gstglue.ROI{Type: typ, X: uint(x), Y: uint(y), W: uint(w), H: uint(h), ParentID: -1,
			Detection: true, Label: o.Label, ClassID: o.ClassID, Confidence: o.Confidence}); err != nil {
			return fmt.Errorf("adding a region of interest: %w", err)
		}
	}
	return nil
}

// addToMessage adds o to the tensordecode-objects message being made;
// regionID is the region whose result it is (-1: the frame's).
func (e *element) addToMessage(st *streamState, o decode.Object, regionID int) {
	x, y, w, h := o.Box.Pixels()
	st.msg.add(x, y, w, h, o.ClassID, o.Confidence, o.Label, st.cLabels.at(o.ClassID, o.Label), regionID)
}
