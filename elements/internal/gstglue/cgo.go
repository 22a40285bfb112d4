package gstglue

// cgo.go: the build flags of the layer and the conversions from go-gst
// wrappers to its C types. The C side of each concept lives next to its
// Go file (see doc.go for the map).

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-allocators-1.0 gstreamer-video-1.0 gstreamer-base-1.0
#cgo CFLAGS: -I${SRCDIR}/../../tensorsync
#include "cgo.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"
)

// The helpers below convert go-gst wrappers to this package's C types.
// go-gst's Instance() returns a pointer of go-gst's own cgo type, which
// is only reachable here through unsafe.Pointer. None of them takes a
// reference.

func memC(m *gst.Memory) *C.GstMemory    { return (*C.GstMemory)(unsafe.Pointer(m.Instance())) }
func bufC(b *gst.Buffer) *C.GstBuffer    { return (*C.GstBuffer)(unsafe.Pointer(b.Instance())) }
func evC(e *gst.Event) *C.GstEvent       { return (*C.GstEvent)(unsafe.Pointer(e.Instance())) }
func msgC(m *gst.Message) *C.GstMessage  { return (*C.GstMessage)(unsafe.Pointer(m.Instance())) }
func querC(q *gst.Query) *C.GstQuery     { return (*C.GstQuery)(unsafe.Pointer(q.Instance())) }
func elemC(e *gst.Element) *C.GstElement { return (*C.GstElement)(e.Unsafe()) }
func padC(p *gst.Pad) *C.GstPad          { return (*C.GstPad)(p.Unsafe()) }
func capsC(c *gst.Caps) *C.GstCaps       { return (*C.GstCaps)(c.Unsafe()) }

func structC(s *gst.Structure) *C.GstStructure {
	return (*C.GstStructure)(unsafe.Pointer(s.Instance()))
}

func gobool(b C.gboolean) bool { return b != 0 }

func cbool(b bool) C.gboolean { return CBool[C.gboolean](b) }

// CBool returns b as a gboolean of the caller's cgo package (B is its
// C.gboolean; cgo types belong to their package): 1 or 0.
func CBool[B ~int32](b bool) B {
	if b {
		return 1
	}
	return 0
}
