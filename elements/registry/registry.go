// Package registry lists gst-tensorpin's elements in one place: each
// one's factory name and registration function. The plugin .so registers
// them with its GstPlugin; package pipelines registers them statically in
// a Go program. An element added here is in both.
//
// It holds no state and owns nothing: registration is GStreamer's, and an
// element's type lives as long as the process.
package registry

import (
	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensortrack"
)

// Element is one element of the plugin.
type Element struct {
	// Name is the factory name (gst-launch's word).
	Name string
	// Register registers the element with plugin, or statically with a
	// nil plugin; false when GStreamer refused.
	Register func(plugin *gst.Plugin) bool
}

// Elements returns every element of the plugin, in the order the plugin
// registers them. The slice is the caller's.
func Elements() []Element {
	return []Element{
		{tensorpinsink.Name, tensorpinsink.Register},
		{tensorsrc.Name, tensorsrc.Register},
		{tensorinfer.Name, tensorinfer.Register},
		{tensordecode.Name, tensordecode.Register},
		{tensoroverlay.Name, tensoroverlay.Register},
		{tensortrack.Name, tensortrack.Register},
		{tensorpublish.Name, tensorpublish.Register},
	}
}
