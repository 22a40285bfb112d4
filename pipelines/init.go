package pipelines

import (
	"fmt"
	"sync"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/registry"
)

var (
	initOnce sync.Once
	initErr  error
)

// Init initialises GStreamer (gst_init; harmless if the program did it
// already) and registers the project's elements (tensorsrc,
// tensorpinsink, tensorinfer, tensordecode, tensoroverlay, tensortrack,
// tensorpublish) statically in this process — once, however often it is
// called. Parse, ParseLaunch and New call it; call it yourself before
// building pipelines with go-gst directly.
//
// The elements are this process's own Go code, so a Go program must NOT
// also load libgsttensorpin.so (the plugin .so carries a second Go
// runtime; two in one process do not work): keep the build directory
// out of GST_PLUGIN_PATH. Should the .so be in the registry anyway, the
// static registration replaces its features, so it is never loaded.
func Init() error {
	initOnce.Do(func() {
		gst.Init(nil)
		for _, el := range registry.Elements() {
			// The GType exists if this program registered the element
			// itself (tensorsrc.Register(nil)); registering it again would
			// fail.
			if glib.TypeFromName(el.Name) != 0 {
				continue
			}
			if !el.Register(nil) {
				initErr = fmt.Errorf("%w: cannot register %s", ErrPipeline, el.Name)
				return
			}
		}
	})
	return initErr
}
