package tensorpinsink

// basesink.go: the sink's per-frame vfuncs in C (basesink.c) installed
// over go-gst's, which allocate wrappers every call: render makes every
// frame in the sink's frame engine (sinkframe.c), and GstTensorSync begin
// events are kept in C for it to match; every other event goes on to
// go-gst's trampoline (the element's Event).

/*
#cgo noescape gstc_install_base_sink
#cgo nocallback gstc_install_base_sink
#include "basesink.h"
*/
import "C"

import "github.com/go-gst/go-glib/glib"

// installClass installs basesink.c's render and event vfuncs on klass:
// from ClassInit, after go-gst's InitClass (go-glib runs it first), so
// that the event vfunc it replaces is go-gst's trampoline to Event.
func installClass(klass *glib.ObjectClass) {
	C.gstc_install_base_sink(C.gpointer(klass.Unsafe()))
}
