package tensordecode

import (
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// RunFrameCopy runs tensordecode el's frame — before_transform (its one
// call into Go) and transform_ip, in C — on a copy of tmpl, as a
// pipeline's streaming thread would, and returns the flow return.
func RunFrameCopy(el *gst.Element, tmpl *gst.Buffer) gst.FlowReturn {
	return gst.FlowReturn(runFrameCopy(el.Unsafe(), gstglue.BorrowBuffer(tmpl)))
}
