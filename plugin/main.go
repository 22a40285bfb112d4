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
*/
import "C"

import (
	"unsafe"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
)

//export goTensorpinPluginInit
func goTensorpinPluginInit(p *C.GstPlugin) C.gboolean {
	plugin := gst.FromGstPluginUnsafeNone(unsafe.Pointer(p))
	ok := tensorpinsink.Register(plugin)
	ok = tensorsrc.Register(plugin) && ok
	ok = tensorinfer.Register(plugin) && ok
	if ok {
		return C.TRUE
	}
	return C.FALSE
}

func main() {}
