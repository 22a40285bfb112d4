package frameengine

// cgo.go: the engine's build flags — package gstglue's (its headers are
// included from here: cgo.h, element.h, message.h, …) — and the
// conversions to this package's C types. cgo types belong to their
// package: gstglue's *C.GstElement is not this package's, so a borrowed
// pointer crosses the boundary as an unsafe.Pointer (RawElement.Unsafe,
// RawBuffer.Unsafe, RawMemory.Unsafe). None of them takes a reference.

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-allocators-1.0 gstreamer-video-1.0 gstreamer-base-1.0
#cgo CFLAGS: -I${SRCDIR}/../gstglue -I${SRCDIR}/../../tensorsync
#include "cgo.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

func elemP(e gstglue.RawElement) *C.GstElement { return (*C.GstElement)(e.Unsafe()) }
func bufP(b gstglue.RawBuffer) *C.GstBuffer    { return (*C.GstBuffer)(b.Unsafe()) }
func memP(m gstglue.RawMemory) *C.GstMemory    { return (*C.GstMemory)(m.Unsafe()) }

func evC(e *gst.Event) *C.GstEvent   { return (*C.GstEvent)(unsafe.Pointer(e.Instance())) }
func querC(q *gst.Query) *C.GstQuery { return (*C.GstQuery)(unsafe.Pointer(q.Instance())) }
func padC(p *gst.Pad) *C.GstPad      { return (*C.GstPad)(p.Unsafe()) }

func cbool(b bool) C.gboolean { return gstglue.CBool[C.gboolean](b) }
