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
	_ "embed"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/registry"
)

// versionFile is plugin/VERSION, the plugin's one version: meson.build
// reads the same file as the project's version, and gst-inspect-1.0
// shows it (plugin.c asks goTensorpinVersion for it).
//
//go:embed VERSION
var versionFile string

// version is the plugin's version, as GStreamer reports it.
func version() string { return strings.TrimSpace(versionFile) }

// cVersion is version as a C string, made once and kept for the
// process's life (GStreamer copies it, but the descriptor holds it).
var cVersion = sync.OnceValue(func() *C.char { return C.CString(version()) })

//export goTensorpinVersion
func goTensorpinVersion() *C.char { return cVersion() }

//export goTensorpinPluginInit
func goTensorpinPluginInit(p *C.GstPlugin) C.gboolean {
	if want, raise := procsFloor(os.Getenv("GOMAXPROCS"), runtime.GOMAXPROCS(0)); raise {
		from := runtime.GOMAXPROCS(want)
		C.tensorpin_log_procs(C.int(from), C.int(want))
	}
	plugin := gst.FromGstPluginUnsafeNone(unsafe.Pointer(p))
	ok := true
	for _, el := range registry.Elements() {
		ok = el.Register(plugin) && ok
	}
	if ok {
		return C.TRUE
	}
	return C.FALSE
}

// minProcs is the number of Ps the plugin's Go runtime runs with at
// least. A GStreamer streaming thread that called into Go (tensorpinsink
// handing a frame to a Go consumer, tensorsrc with pattern=app or
// is-live; the built-in patterns' steady frames and tensorinfer's no
// longer do) keeps its P "in a system call" when it goes back to C,
// until its next call; with a single P, none is idle, and Go's sysmon
// takes that P back whenever a frame outlasts a sysmon poll (20 µs or
// more), so the next call must wake sysmon and take it again. Measured
// on one CPU (taskset -c 0) with a 1 ms model run, while tensorsrc still
// called into Go every frame: 4.1–4.6 context switches a frame with one
// P, 0.6–0.7 with two, and 30 µs or more of CPU a frame less
// (docs/performance-log.md, "One P is not enough"). A second P is idle but
// for the garbage collector's idle mark worker during a cycle, rare here
// (no allocation a frame).
const minProcs = 2

// procsFloor says whether the plugin's runtime should raise GOMAXPROCS
// from cur to minProcs: only when the user did not choose a value. A
// GOMAXPROCS the runtime ignores (empty, not a number, 0 or less) is no
// choice: the runtime then runs with its default, as if it were unset
// (the test is the runtime's own, schedinit in proc.go).
func procsFloor(env string, cur int) (want int, raise bool) {
	if n, err := strconv.ParseInt(env, 10, 32); (err == nil && n > 0) || cur >= minProcs {
		return cur, false
	}
	return minProcs, true
}

func main() {}
