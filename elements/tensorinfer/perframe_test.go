package tensorinfer_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorinfer"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpinsink"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// TENSORPIN_INFER_MODE=per-frame (the upstream way, a benchmark aid) gives
// the outputs bound-once mode gives — bit for bit, frame by frame — and
// both equal the Go reference: the shipped u8 model fed other/tensors in
// place, and Float640 fed uint8 RGB 640×640 frames (converted to float32
// by the engine in both modes). Per-frame mode binds no input slot and
// counts each output it copies into a new buffer; bound-once mode copies
// nothing.
func TestTensorInferPerFrameModeMatchesBoundOnce(t *testing.T) {
	lib := infertest.Lib(t)
	f640 := infertest.Float640
	for _, tc := range []struct {
		name   string
		model  string
		src    string // tensorsrc … ! caps, without num-buffers
		frames int
		ref    func(n int) [][]float64
		tol    float64
		outB   int // bytes of the model's one output
	}{
		{name: "shipped-u8-64x64x3", model: infertest.RepoFile(t, infertest.ShippedModel),
			src:    "pattern=counter pool-size=4 ! other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8",
			frames: 40, ref: func(n int) [][]float64 { return shipped(counter(n, infertest.ShippedInputBytes)) }, tol: 1e-4, outB: 4 * infertest.ShippedScores},
		// ONNX Runtime sums 409600 float32 values per channel; the
		// reference sums in float64: they agree to about 1e-3.
		{name: "Float640", model: writeModel(t, "float640.onnx", f640.ONNX()),
			src:    "pattern=counter pool-size=3 ! video/x-raw,format=RGB,width=640,height=640",
			frames: 6, ref: func(n int) [][]float64 {
				img := counter(n, 640*640*3)
				return f640.Reference(func(y, x, c int) float64 { return float64(img[(y*640+x)*3+c]) })
			}, tol: 1e-2, outB: 4 * f640.C},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs := map[string][][]float32{}
			for _, mode := range []string{"bound-once", "per-frame"} {
				t.Setenv(tensorinfer.ModeEnv, mode)
				var mu sync.Mutex
				var got [][]float32
				r := mustRun(t, fmt.Sprintf("tensorsrc num-buffers=%d %s ! tensorinfer name=infer ort-library=%s model=%s ! tensorpinsink name=sink sync=false",
					tc.frames, tc.src, lib, tc.model),
					func(f tensorpinsink.Frame) {
						defer f.Release()
						mu.Lock()
						defer mu.Unlock()
						got = append(got, floats(f.PlaneBytes(0)))
					})
				if len(got) != tc.frames {
					t.Fatalf("%s: %d output frames, want %d", mode, len(got), tc.frames)
				}
				for n, g := range got {
					want := tc.ref(n)[0]
					if len(g) != len(want) {
						t.Fatalf("%s frame %d: %d values, want %d", mode, n, len(g), len(want))
					}
					for i := range g {
						if math.Abs(float64(g[i])-want[i]) > tc.tol*(1+math.Abs(want[i])) {
							t.Fatalf("%s frame %d value %d: %v, Go reference %v", mode, n, i, g[i], want[i])
						}
					}
				}
				outs[mode] = got
				s := r.infer
				t.Logf("%s: stats %+v", mode, s)
				switch mode {
				case "per-frame":
					if s.Frames != uint64(tc.frames) || s.Runs != uint64(tc.frames) || s.InputBinds != 0 || s.Copies != uint64(tc.frames) ||
						s.BytesCopied-s.ConversionBytes != uint64(tc.frames*tc.outB) {
						t.Errorf("per-frame stats %+v: want %d frames and runs, no input bound, one output copy (%d bytes) per frame",
							s, tc.frames, tc.outB)
					}
				default:
					if s.Frames != uint64(tc.frames) || s.InputBinds == 0 || s.Copies != 0 {
						t.Errorf("bound-once stats %+v: want %d frames, inputs bound, no copy", s, tc.frames)
					}
				}
			}
			for n := range tc.frames {
				if !slices.Equal(outs["bound-once"][n], outs["per-frame"][n]) {
					t.Errorf("frame %d: bound once %v, per frame %v: want the same bits", n, outs["bound-once"][n], outs["per-frame"][n])
				}
			}
		})
	}
}

// An unknown TENSORPIN_INFER_MODE is an error at the state change naming
// the variable and the modes, not a silent fallback: a benchmark must run
// the mode it asked for.
func TestTensorInferUnknownModeIsAnError(t *testing.T) {
	t.Setenv(tensorinfer.ModeEnv, "bogus")
	r := runPipeline(t, fmt.Sprintf("tensorsrc num-buffers=3 ! other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,types=uint8 ! "+
		"tensorinfer name=infer ort-library=%s model=%s ! fakesink", infertest.Lib(t), infertest.RepoFile(t, infertest.ShippedModel)), nil)
	if r.err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{tensorinfer.ModeEnv, `"bogus"`, "per-frame", "bound-once"} {
		if !strings.Contains(r.err.Message, w) {
			t.Errorf("error %q does not name %s", r.err.Message, w)
		}
	}
}
