package results_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
)

func TestMain(m *testing.M) { gsttest.Main(m, func() bool { return true }) }
