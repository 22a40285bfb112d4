// Command detection writes the demo's detection model: an ONNX model,
// built in Go, whose output is a probability map marking where the
// frame's red channel is bright — so a frame with a red rectangle gives a
// map with that rectangle, which tensordecode mode=map-boxes turns back
// into a box in frame coordinates (examples/python/boxes.py, make demo).
//
//	go run ./examples/detection -o /tmp/redmap.onnx
//
// The model: image float32 [1 3 160 160] (NCHW) → prob [1 1 160 160] =
// the red channel × 1/256 (infertest.ChannelMap). tensorinfer
// resize=letterbox scale=1 feeds it any frame size.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

func main() {
	out := flag.String("o", "redmap.onnx", "path of the model to write")
	flag.Parse()
	m := infertest.ChannelMap{H: 160, W: 160, Channel: 0, Scale: 1.0 / 256}
	if err := os.WriteFile(*out, m.ONNX(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "detection:", err)
		os.Exit(1)
	}
}
