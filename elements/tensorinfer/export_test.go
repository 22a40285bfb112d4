package tensorinfer

import (
	"github.com/go-gst/go-gst/gst"
)

// WaitingForSlot reports whether e's streaming thread is inside its wait
// for a free output slot (tests only).
func WaitingForSlot(e *gst.Element) bool {
	el := fromObject(e.Unsafe())
	return el != nil && el.waiting.Load()
}
