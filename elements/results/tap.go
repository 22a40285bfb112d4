package results

// tap.go: the results of every buffer passing a pad, handed to a Go
// function (the pipelines package's Results).

/*
#include "tap.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// tapped is what a probe's handle names.
type tapped struct {
	source string
	h      func(Frame)
}

// Tap calls h with the results of every buffer leaving through pad (an
// element's src pad), on the pad's streaming thread, before the buffer
// goes on: its PTS, the pad's frame size, source, and every region of
// interest, in memory of their own (h may keep the Frame). It returns
// remove, which takes the probe off the pad (idempotent; safe from any
// goroutine but h's own call). After remove returns, a call already under
// way may still finish; none starts. Tap holds a reference on pad until
// remove.
func Tap(pad *gst.Pad, source string, h func(Frame)) (remove func()) {
	p := (*C.GstPad)(pad.Unsafe())
	handle := gstglue.NewHandle(&tapped{source: source, h: h})
	C.gst_object_ref(C.gpointer(p))
	id := C.results_tap_add(p, C.uintptr_t(handle))
	var once sync.Once
	return func() {
		once.Do(func() {
			if id != 0 {
				C.gst_pad_remove_probe(p, id)
			}
			// The probe's destroy notify frees the handle; a probe not
			// added left it to free here.
			if id == 0 {
				gstglue.TakeHandle(handle)
			}
			C.gst_object_unref(C.gpointer(p))
		})
	}
}

//export goResultsTapBuffer
func goResultsTapBuffer(handle C.uintptr_t, buf *C.GstBuffer, w, h C.gint) {
	gstglue.SafeCall("results tap", func() {
		v, ok := gstglue.LookupHandle(uintptr(handle))
		if !ok {
			return
		}
		t := v.(*tapped)
		raw := gstglue.RawBufferOf(unsafe.Pointer(buf))
		f := Frame{Width: int(w), Height: int(h), Source: t.source, Objects: readObjects(unsafe.Pointer(buf))}
		setPTS(&f, gstglue.BufferPTS(raw))
		t.h(f)
	})
}
