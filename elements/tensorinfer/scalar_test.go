package tensorinfer_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// A model whose first output is a scalar (rank 0) runs in a pipeline: the
// scalar is one float32 tensor with dimensions "1" in the caps, next to
// an ordinary [1 3] output ("3:1"), and both equal the Go reference of
// each frame — bound once, and run per frame.
func TestTensorInferScalarOutput(t *testing.T) {
	lib := infertest.Lib(t)
	m := infertest.ScalarMean{H: 8, W: 8, C: 3, Scores: true}
	model := writeModel(t, "scalar.onnx", m.ONNX())
	const frames = 12
	for _, mode := range []string{"bound-once", "per-frame"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv(tensorinfer.ModeEnv, mode)
			var c checker
			var mu sync.Mutex
			var badCaps []string
			mustRun(t, fmt.Sprintf("tensorsrc num-buffers=%d pool-size=3 pattern=counter ! "+
				"video/x-raw,format=RGB,width=8,height=8,framerate=30/1 ! "+
				"tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false", frames, lib, model),
				func(f tensorpinsink.Frame) {
					if caps := f.Caps(); tensorsField(caps, "dimensions") != "1,3:1" || tensorsField(caps, "types") != "float32,float32" {
						mu.Lock()
						badCaps = append(badCaps, caps)
						mu.Unlock()
					}
					c.frame(f, func(n int) [][]float64 {
						img := counter(n, 8*8*3)
						return m.Reference(func(y, x, ch int) float64 { return float64(img[(y*8+x)*3+ch]) })
					})
				})
			c.check(t, frames)
			if len(badCaps) > 0 {
				t.Errorf("%d frames with caps %s; want dimensions \"1,3:1\", types \"float32,float32\"", len(badCaps), badCaps[0])
			}
		})
	}
}

// tensorsField returns a string field of caps (as Frame.Caps gives them),
// "" when there is none.
func tensorsField(caps, field string) string {
	c := gst.NewCapsFromString(caps)
	if c == nil || c.GetSize() != 1 {
		return ""
	}
	v, err := c.GetStructureAt(0).GetValue(field)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}
