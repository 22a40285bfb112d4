package gstglue

// held.go: an element and its pad kept alive without go-gst wrappers, for
// work that outlives the element's streaming state (tensorpinsink's frames
// released after stop: their GstTensorSync end events, warnings, stats).

/*
#include "cgo.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsync"
)

// Held is a strong reference on an element and one of its static pads,
// taken without go-gst wrappers (whose references are dropped only by a
// garbage collection, which GStreamer's leaks tracer reports as leaks at
// exit). An element keeps a Held for work that may outlive its streaming
// state — frames the application releases after stop — and releases it
// explicitly when that work is done. The zero Held holds nothing.
type Held struct {
	elem *C.GstElement
	pad  *C.GstPad
}

// Hold references elem (borrowed) and its static pad padName.
func Hold(elem *gst.Element, padName string) Held {
	e := elemC(elem)
	cname := C.CString(padName)
	defer C.free(unsafe.Pointer(cname))
	C.gst_object_ref(C.gpointer(e))
	return Held{elem: e, pad: C.gst_element_get_static_pad(e, cname)}
}

// Release drops both references. The caller must not use h again.
func (h Held) Release() {
	if h.pad != nil {
		C.gst_object_unref(C.gpointer(h.pad))
	}
	if h.elem != nil {
		C.gst_object_unref(C.gpointer(h.elem))
	}
}

// PushTensorSync sends a GstTensorSync event through the held pad (from a
// sink pad: upstream), reusing one of the pad's events once no one holds
// it (see syncpush.go). It reports whether the event was handled; an
// invalid ts is not sent.
func (h Held) PushTensorSync(dir tensorsync.Direction, ts tensorsync.Info) bool {
	return pushTensorSync(h.pad, dir, ts)
}

// PostWarning posts a warning from the held element (see PostError).
func (h Held) PostWarning(code ErrorCode, text, debug string) {
	if h.elem != nil {
		postMessageC(h.elem, 2, C.GST_MESSAGE_WARNING, code, text, debug)
	}
}

// PostElementMessage posts an element message carrying st (consumed) from
// the held element.
func (h Held) PostElementMessage(st *gst.Structure) bool {
	if h.elem == nil {
		return false
	}
	return postElementMessageC(h.elem, st)
}
