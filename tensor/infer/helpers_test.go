package infer_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"testing"
	"unsafe"

	"github.com/gst-tensorpin/gst-tensorpin/pin"
	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// TestMain fails the run if the tests leave an fd, an fd-backed mapping or
// a pin behind (pins cloned by bindings included), and runs the child of
// TestInferLoadLeavesNothingBehind when asked to.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(leftoversChild())
	}
	pintest.Main(m)
}

// mem is a pinned tensor, as tensorsrc's ring and tensorinfer's outputs
// are: tensor.Alloc (dma-heap, else memfd) and PinHost. The test's cleanup
// releases the pin and closes the tensor.
type mem struct {
	t *tensor.Tensor
	p pin.HostPin
}

func alloc(tb testing.TB, l tensor.Layout) *mem {
	tb.Helper()
	t, err := tensor.Alloc(l, tensor.AllocOptions{Name: "infer-test"})
	if err != nil {
		tb.Fatal(err)
	}
	m := &mem{t: t}
	if m.p, err = t.PinHost(); err != nil {
		t.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		m.p.Release()
		m.t.Close()
	})
	return m
}

// write fills m's pinned bytes inside a CPU-write bracket, as a producer
// would.
func (m *mem) write(tb testing.TB, fill func(b []byte)) {
	tb.Helper()
	if err := m.t.SyncForCPU(tensor.AccessWrite); err != nil {
		tb.Fatal(err)
	}
	fill(m.p.Bytes())
	if err := m.t.SyncForDevice(tensor.AccessWrite); err != nil {
		tb.Fatal(err)
	}
}

// floats reads m's bytes as float32 values inside a CPU-read bracket.
func (m *mem) floats(tb testing.TB, n int) []float64 {
	tb.Helper()
	if err := m.t.SyncForCPU(tensor.AccessRead); err != nil {
		tb.Fatal(err)
	}
	b := m.p.Bytes()
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.NativeEndian.Uint32(b[4*i:])))
	}
	if err := m.t.SyncForDevice(tensor.AccessRead); err != nil {
		tb.Fatal(err)
	}
	return out
}

func f32s(b []byte) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// load loads the runtime for a test and closes it when the test ends.
func load(tb testing.TB) *infer.Environment {
	tb.Helper()
	lib := infertest.Lib(tb)
	e, err := infer.Load(lib)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := e.Close(); err != nil {
			tb.Error(err)
		}
	})
	return e
}

func closeLater(tb testing.TB, s *infer.Session) {
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
}

// shippedFill is frame f's content in a slot of the shipped model's ring:
// it changes every frame, so an output that matches its frame's
// reference was computed from that frame's bytes.
func shippedFill(f int) func([]byte) {
	return func(b []byte) {
		for i := range b[:infertest.ShippedInputBytes] {
			b[i] = byte((i*7 + f*13) % 251)
		}
	}
}

// checkClose fails unless got is within tol (relative) of want, element
// by element.
func checkClose(tb testing.TB, what string, got, want []float64, tol float64) {
	tb.Helper()
	if len(got) != len(want) {
		tb.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			tb.Fatalf("%s: ONNX Runtime %v, Go reference %v", what, got, want)
		}
	}
}

func fmtSlots(in, out int) string { return fmt.Sprintf("input slot %d, output slot %d", in, out) }

// bindFirstSlots allocates pinned memory for s's input and first output
// and binds them as input slot 0 and output slot 0.
func bindFirstSlots(tb testing.TB, s *infer.Session) (in, out *mem) {
	tb.Helper()
	in = alloc(tb, s.Input().Layout())
	out = alloc(tb, s.Outputs()[0].Layout())
	if err := s.BindInput(0, infer.Input{Pin: &in.p, Layout: s.Input().Layout()}); err != nil {
		tb.Fatal(err)
	}
	if err := s.BindOutput(0, &out.p); err != nil {
		tb.Fatal(err)
	}
	return in, out
}
