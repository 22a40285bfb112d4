package gstglue

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
)

// TestMain fails the run if the tests left fds or Go handles behind.
func TestMain(m *testing.M) { cgotest.Main(m, nil, LiveHandles) }
