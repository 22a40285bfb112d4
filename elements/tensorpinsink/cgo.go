package tensorpinsink

// cgo.go: the build flags of the sink's C frame (basesink.c,
// sinkframe.c) — the headers of the glue and of the shared engine it is
// built on — and conversions to this package's C types. cgo types belong
// to their package: a borrowed pointer from gstglue or frameengine
// crosses as an unsafe.Pointer. None of them takes a reference.

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-allocators-1.0 gstreamer-video-1.0 gstreamer-base-1.0
#cgo CFLAGS: -I${SRCDIR}/../internal/gstglue -I${SRCDIR}/../internal/frameengine -I${SRCDIR}/../tensorsync
#include "cgo.h"
*/
import "C"

import "github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"

func elemP(e gstglue.RawElement) *C.GstElement { return (*C.GstElement)(e.Unsafe()) }
func bufP(b gstglue.RawBuffer) *C.GstBuffer    { return (*C.GstBuffer)(b.Unsafe()) }

func cbool(b bool) C.gboolean { return gstglue.CBool[C.gboolean](b) }
