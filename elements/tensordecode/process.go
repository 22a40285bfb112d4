package tensordecode

import (
	"fmt"
	"strconv"
	"time"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/base"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstc"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/decode"
)

// TransformIP decodes the buffer's tensors and adds a region of interest
// per object to it (GstBaseTransform has made it writable). A frame that
// cannot be decoded — memories that are not the caps' tensors, data
// shorter than a tensor, a memory that cannot be mapped — is an error
// naming it, and the stream's end.
func (e *element) TransformIP(self *base.GstBaseTransform, buf *gst.Buffer) (ret gst.FlowReturn) {
	defer e.guard("transform", func() { ret = gst.FlowError })
	st := e.current()
	if st == nil || !st.haveCaps {
		gstc.PostErrorRaw(e.raw(), gstc.CoreNegotiation, "tensordecode: a buffer before caps", "")
		return gst.FlowNotNegotiated
	}
	raw := gstc.BorrowBuffer(buf)
	start := time.Now()
	objs, err := e.decodeBuffer(st, raw, int(buf.NumMemoryBlocks()))
	if err != nil {
		gstc.PostErrorRaw(e.raw(), gstc.CodeOf(err, gstc.StreamFormat), "tensordecode: "+err.Error(), "")
		return gst.FlowError
	}
	if err := e.attach(st, raw, objs); err != nil {
		gstc.PostErrorRaw(e.raw(), gstc.CoreFailed, "tensordecode: "+err.Error(), "")
		return gst.FlowError
	}
	e.stats.frames.Add(1)
	e.stats.objects.Add(uint64(len(objs)))
	e.stats.decodeNs.Add(uint64(time.Since(start)))
	if st.set.postMessages {
		e.post(st, uint64(buf.PresentationTimestamp()), objs)
	}
	return gst.FlowOK
}

// decodeBuffer maps the buffer's tensors and decodes them with the
// frame's transform. The objects are the decoder's, valid until the next
// frame.
func (e *element) decodeBuffer(st *streamState, buf gstc.RawBuffer, have int) ([]decode.Object, error) {
	n := len(st.tensors)
	if have != n {
		return nil, fmt.Errorf("a buffer of %d memories, but the caps say %d tensors (%s): one memory per tensor", have, n, st.dims)
	}
	mapped := st.maps.mapAll(buf, n)
	defer func() {
		st.maps.unmap(mapped)
		for i := range st.tensors {
			st.tensors[i].Data = nil
		}
	}()
	if mapped < n {
		return nil, gstc.Fail(gstc.ResourceRead, "memory %d of the buffer (tensor %v) cannot be mapped for reading", mapped, st.tensors[mapped])
	}
	for i := range st.tensors {
		st.tensors[i].Data = st.maps.bytes(i)
	}
	tr, err := st.transformFor(buf)
	if err != nil {
		return nil, err
	}
	objs, err := st.dec.Decode(st.tensors, tr)
	if err != nil {
		return nil, fmt.Errorf("%w (caps %s)", err, st.dims)
	}
	return objs, nil
}

// transformFor is how buf's frame became the model's input. In tensors
// mode, the only one yet, it is fixed by the caps and the properties; a
// video mode will read it from the meta tensorinfer attaches to the
// frame, here, and decodeBuffer stays as it is.
func (st *streamState) transformFor(gstc.RawBuffer) (decode.Transform, error) {
	return st.tr, nil
}

// attach adds one GstVideoRegionOfInterestMeta per object, its box
// rounded to whole pixels (edges to the nearest), with a "detection"
// structure (label, class-id, confidence). Its type is the label, else
// "class-N"; classify's whole-frame regions are "classification".
func (e *element) attach(st *streamState, buf gstc.RawBuffer, objs []decode.Object) error {
	whole := st.mode == decode.Classify
	for _, o := range objs {
		x, y, w, h := o.Box.Pixels()
		typ := o.Label
		switch {
		case whole:
			typ = "classification"
		case typ == "":
			typ = "class-" + strconv.Itoa(o.ClassID)
		}
		if _, err := gstc.AddROI(buf, gstc.ROI{Type: typ, X: uint(x), Y: uint(y), W: uint(w), H: uint(h), ParentID: -1,
			Detection: true, Label: o.Label, ClassID: o.ClassID, Confidence: o.Confidence}); err != nil {
			return fmt.Errorf("adding a region of interest: %w", err)
		}
	}
	return nil
}

// post posts the frame's objects as the tensordecode-objects message.
func (e *element) post(st *streamState, pts uint64, objs []decode.Object) {
	st.msg.reset()
	for _, o := range objs {
		x, y, w, h := o.Box.Pixels()
		st.msg.add(x, y, w, h, o.ClassID, o.Confidence, st.cLabels.at(o.ClassID, o.Label))
	}
	st.msg.post(e.raw(), pts)
}
