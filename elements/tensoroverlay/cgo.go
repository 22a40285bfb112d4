package tensoroverlay

// cgo.go: the Go side of overlay.h — the instance's C state given at
// instance init, the drawing parameters pushed into it, its counters read
// back, and the font's glyphs (for the tests).

/*
#cgo pkg-config: gstreamer-1.0 gstreamer-base-1.0 gstreamer-video-1.0 gstreamer-allocators-1.0
#cgo CFLAGS: -I${SRCDIR}/../internal/gstglue
#include "overlay.h"
#include "draw.h"
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-glib/glib"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// installClass replaces the per-frame vfuncs of klass with overlay.c's:
// from ClassInit, after go-gst's InitClass.
func installClass(klass *glib.ObjectClass) {
	C.tensor_overlay_install(C.gpointer(klass.Unsafe()))
}

func cParams(s settings) C.TensorOverlayParams {
	return C.TensorOverlayParams{
		line_width:  C.guint(s.lineWidth),
		color:       C.guint32(s.color),
		draw_labels: cbool(s.drawLabels),
		font_scale:  C.guint(s.fontScale),
	}
}

// attachState gives the GstElement at self its C state with s (once,
// from InstanceInit); the element owns it.
func attachState(self unsafe.Pointer, s settings) {
	p := cParams(s)
	C.tensor_overlay_attach((*C.GstElement)(self), &p)
}

// pushParams makes the next frame of the element at self draw with s.
func pushParams(self unsafe.Pointer, s settings) {
	p := cParams(s)
	C.tensor_overlay_set_params((*C.GstElement)(self), &p)
}

// readStats reads the element's counters from its C state.
func readStats(self unsafe.Pointer) Stats {
	var s C.TensorOverlayStats
	C.tensor_overlay_read_stats((*C.GstElement)(self), &s)
	return Stats{Frames: uint64(s.frames), Boxes: uint64(s.boxes), Copies: uint64(s.copies)}
}

// glyphRow is row r (0 top, 6 bottom) of the font's glyph for c: five
// bits, bit 4 the leftmost column.
func glyphRow(c byte, r int) uint8 {
	return uint8(C.tensor_overlay_glyph_bits(C.guchar(c), C.guint(r)))
}

func cbool(b bool) C.gboolean { return gstglue.CBool[C.gboolean](b) }
