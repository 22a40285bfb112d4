package tensorinfer_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorsrc"
)

func TestMain(m *testing.M) {
	gsttest.Main(m, func() bool {
		return tensorpinsink.Register(nil) && tensorsrc.Register(nil) && tensorinfer.Register(nil)
	})
}
