package pipelines

import (
	"fmt"
	"sync"

	"github.com/go-gst/go-glib/glib"
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensortrack"
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
		for _, el := range []struct {
			name     string
			register func(*gst.Plugin) bool
		}{
			{tensorsrc.Name, tensorsrc.Register}, {tensorpinsink.Name, tensorpinsink.Register}, {tensorinfer.Name, tensorinfer.Register},
			{tensordecode.Name, tensordecode.Register}, {tensoroverlay.Name, tensoroverlay.Register},
			{tensortrack.Name, tensortrack.Register},
			{tensorpublish.Name, tensorpublish.Register},
		} {
			// The GType exists if this program registered the element
			// itself (tensorsrc.Register(nil)); registering it again would
			// fail.
			if glib.TypeFromName(el.name) != 0 {
				continue
			}
			if !el.register(nil) {
				initErr = fmt.Errorf("%w: cannot register %s", ErrPipeline, el.name)
				return
			}
		}
	})
	return initErr
}
