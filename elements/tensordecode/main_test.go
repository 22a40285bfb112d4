package tensordecode_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensordecode"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensoroverlay"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensortrack"
)

func TestMain(m *testing.M) {
	gsttest.Main(m, func() bool {
		return tensordecode.Register(nil) && tensorinfer.Register(nil) && tensorsrc.Register(nil) &&
			tensoroverlay.Register(nil) && tensortrack.Register(nil)
	})
}
