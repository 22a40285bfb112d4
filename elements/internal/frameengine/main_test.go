package frameengine

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// TestMain fails the run if the tests left fds or Go handles behind.
func TestMain(m *testing.M) {
	cgotest.Main(m, func() bool { return true }, gstglue.LiveHandles)
}

// The shared test helpers, under the names this package's tests used
// before the split (their files did not have to change).
var (
	checkFds = cgotest.CheckFds
	newMemfd = cgotest.NewMemfd
	pattern  = cgotest.Pattern
	fdCount  = cgotest.FdCount
)

// testKey is gstglue's test key (the same name: the same qdata slot).
var testKey = gstglue.NewQdataKey("gstc-test-pin")
