package infer

import (
	"errors"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// countedValue is a scalar output's value that counts its Destroy (no
// ONNX Runtime value behind it: probeOutputs fails before any run).
type countedValue struct {
	ort.Value
	destroyed *int
}

func (v countedValue) Destroy() error { *v.destroyed++; return nil }

// When a later scalar output's value cannot be made, the ones already
// made are destroyed: probeOutputs fails with none left behind.
func TestProbeOutputsReleasesScalarsMadeBeforeAFailure(t *testing.T) {
	e, err := Load(infertest.Lib(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	made, destroyed := 0, 0
	errScalar := errors.New("no scalar of this type")
	prev := probeScalar
	probeScalar = func(d tensor.DType) (ort.Value, func() []byte, error) {
		if d == tensor.F16 {
			return nil, nil, errScalar
		}
		made++
		return countedValue{destroyed: &destroyed}, nil, nil
	}
	defer func() { probeScalar = prev }()
	s := &Session{
		name:  "probe",
		input: TensorInfo{Name: "in", DType: tensor.U8, Shape: []int64{1, 4}},
		outputs: []TensorInfo{
			{Name: "count", DType: tensor.U8, Shape: []int64{}},
			{Name: "mean", DType: tensor.U16, Shape: []int64{}},
			{Name: "half", DType: tensor.F16, Shape: []int64{}},
			{Name: "map", DType: tensor.U8, ModelShape: []int64{1, -1}},
		},
	}
	if err := s.probeOutputs(); !errors.Is(err, errScalar) {
		t.Fatalf("probe with a scalar that cannot be made: %v, want its error", err)
	}
	if made != 2 || destroyed != made {
		t.Fatalf("%d scalar values made, %d destroyed: the ones before the failure leaked", made, destroyed)
	}
}
