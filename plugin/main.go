// Command plugin is built with -buildmode=c-shared into libgsttensorpin.so,
// the GStreamer plugin holding every element of gst-tensorpin:
//
//	go build -buildmode=c-shared -o build/libgsttensorpin.so ./plugin
//	GST_PLUGIN_PATH=$PWD/build gst-inspect-1.0 tensorpin
//
// One .so for all elements, because a process can hold only one Go
// runtime. For the same reason a Go program must not load this .so: it
// registers the elements statically (tensorpinsink.Register(nil), …) and
// keeps the .so out of GST_PLUGIN_PATH.
package main

/*
#cgo pkg-config: gstreamer-1.0
#include <gst/gst.h>

void tensorpin_log_procs (int from, int to);
*/
import "C"

import (
	"os"
	"runtime"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
)

//export goTensorpinPluginInit
func goTensorpinPluginInit(p *C.GstPlugin) C.gboolean {
	if want, raise := procsFloor(os.Getenv("GOMAXPROCS"), runtime.GOMAXPROCS(0)); raise {
		from := runtime.GOMAXPROCS(want)
		C.tensorpin_log_procs(C.int(from), C.int(want))
	}
	plugin := gst.FromGstPluginUnsafeNone(unsafe.Pointer(p))
	ok := tensorpinsink.Register(plugin)
	ok = tensorsrc.Register(plugin) && ok
	ok = tensorinfer.Register(plugin) && ok
	if ok {
		return C.TRUE
	}
	return C.FALSE
}

// minProcs is the number of Ps the plugin's Go runtime runs with at
// least. A GStreamer streaming thread that called into Go (tensorsrc's
// create, a ring memory's return) keeps its P "in a system call" when it
// goes back to C, until its next call; with a single P and no idle one,
// Go's sysmon takes that P back whenever a frame lasts over ~20 µs, and
// the next call must wake sysmon and take it again. Measured on one CPU
// (taskset -c 0) with a 1 ms model run: 4.1 context switches and about
// 20 µs of CPU a frame with one P, 0.7 and none of that with two
// (docs/design-notes.md, "One P is not enough"). A second P costs nothing
// while idle.
const minProcs = 2

// procsFloor says whether the plugin's runtime should raise GOMAXPROCS
// from cur to minProcs: only when the user did not choose a value
// (GOMAXPROCS unset or empty), which is then respected as it is.
func procsFloor(env string, cur int) (want int, raise bool) {
	if env != "" || cur >= minProcs {
		return cur, false
	}
	return minProcs, true
}

func main() {}
