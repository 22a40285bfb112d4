package gstglue

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
)

// TestMain fails the run if the tests left fds or Go handles behind.
func TestMain(m *testing.M) { cgotest.Main(m, nil, LiveHandles) }

// The shared test helpers, under the names this package's tests use.
var (
	checkFds        = cgotest.CheckFds
	settle          = cgotest.Settle
	drainFinalizers = cgotest.DrainFinalizers
	newMemfd        = cgotest.NewMemfd
	pattern         = cgotest.Pattern
	fdOpen          = cgotest.FdOpen
)
