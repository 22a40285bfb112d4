package decode_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
)

// TestMain fails the run if a test leaves an fd, a mapping or a pin
// behind (the ONNX Runtime test pins its tensors).
func TestMain(m *testing.M) { pintest.Main(m) }
