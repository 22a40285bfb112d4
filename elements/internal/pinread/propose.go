package pinread

import (
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/capslayout"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/frameengine"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// Proposal is what an ALLOCATION query asks of a reader of pinned input
// (tensorpinsink, tensorinfer): the format of its caps and the memory of
// the pool to propose — the DMA heap where it opens, else memfd.
type Proposal struct {
	Format capslayout.Format
	Memory frameengine.PoolMemory
}

// ReadProposal answers the part of an ALLOCATION query both readers
// answer alike: it says the element reads GstVideoMeta (any layout is
// read in place), and, when the element proposes pools (propose), returns
// the query's format and the pool memory to propose; ok is false when
// there is nothing to propose (propose off, no caps, caps no layout
// reads). Which formats and how many buffers stay the element's call.
func ReadProposal(query *gst.Query, propose bool) (p Proposal, ok bool) {
	query.AddAllocationMeta(gstglue.VideoMetaAPIType(), nil)
	if !propose {
		return Proposal{}, false
	}
	caps, _ := frameengine.AllocationCaps(query)
	if caps == nil {
		return Proposal{}, false
	}
	f, err := capslayout.FromCaps(caps)
	if err != nil {
		return Proposal{}, false
	}
	p = Proposal{Format: f, Memory: frameengine.PoolMemfd}
	if tensor.DeviceUsable(tensor.DMAHeapPath) == nil {
		p.Memory = frameengine.PoolDMAHeap
	}
	return p, true
}
