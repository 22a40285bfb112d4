package infer

// scalar.go: outputs of rank 0 (a scalar, shape []). onnxruntime_go
// cannot make an ONNX Runtime tensor of rank 0 over memory it is given
// (NewCustomDataTensor refuses an empty shape; its Scalar holds Go
// memory, not a pin), nor wrap one ONNX Runtime allocated (NewTensor
// refuses the empty shape too), and ONNX Runtime will not write a scalar
// into a bound tensor of shape [1] (the shapes must be equal). So a bound
// scalar output is made and bound through onnxruntime_go's C wrapper —
// the functions NewCustomDataTensor and IoBinding.BindOutput call, global
// symbols of the binary as in ortabi.go — with no dimensions, over the
// output slot's pin; and RunPerFrame gives scalar outputs an
// onnxruntime_go Scalar per call.

/*
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

// onnxruntime_go's wrapper (onnxruntime_wrapper.h), pointer types opaque.
extern void *CreateOrtTensorWithShape(void *data, size_t data_size, int64_t *shape, int64_t shape_size,
	void *mem_info, int dtype, void **out);
extern void *BindOutput(void *b, char *name, void *value);
extern void ReleaseOrtValue(void *value);
extern const char *GetErrorMessage(void *status);
extern void ReleaseOrtStatus(void *status);
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
)

// scalarValue is an ONNX Runtime tensor of rank 0 over memory the caller
// keeps mapped (a binding's pin clone).
type scalarValue struct{ v unsafe.Pointer }

func statusError(status unsafe.Pointer) error {
	if status == nil {
		return nil
	}
	msg := strings.TrimSpace(C.GoString(C.GetErrorMessage(status)))
	C.ReleaseOrtStatus(status)
	return errors.New(msg)
}

// newScalarValue makes the tensor over data (one element of d).
func newScalarValue(data []byte, d tensor.DType) (*scalarValue, error) {
	if len(data) < d.Size() || d.Size() == 0 {
		return nil, fmt.Errorf("a scalar %v over %d bytes", d, len(data))
	}
	mi, err := ort.GetMemoryInfo()
	if err != nil {
		return nil, err
	}
	var v unsafe.Pointer
	status := C.CreateOrtTensorWithShape(unsafe.Pointer(unsafe.SliceData(data)), C.size_t(d.Size()), nil, 0,
		unsafe.Pointer(mi), C.int(ortDType(d)), &v)
	if err := statusError(status); err != nil {
		return nil, fmt.Errorf("ORT API error creating a scalar tensor: %w", err)
	}
	return &scalarValue{v: v}, nil
}

// bindOutput binds the tensor as output name of io.
func (s *scalarValue) bindOutput(io *ort.IoBinding, name string) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	return statusError(C.BindOutput(ioBindingC(io), cname, s.v))
}

func (s *scalarValue) destroy() {
	if s.v != nil {
		C.ReleaseOrtValue(s.v)
		s.v = nil
	}
}

// perFrameScalar returns a new value a scalar output of d is run into by
// RunPerFrame, and how to read its element's bytes after the run.
func perFrameScalar(d tensor.DType) (ort.Value, func() []byte, error) {
	switch d {
	case tensor.U8:
		return scalarOf[uint8]()
	case tensor.I8:
		return scalarOf[int8]()
	case tensor.U16:
		return scalarOf[uint16]()
	case tensor.I16:
		return scalarOf[int16]()
	case tensor.U32:
		return scalarOf[uint32]()
	case tensor.I32:
		return scalarOf[int32]()
	case tensor.U64:
		return scalarOf[uint64]()
	case tensor.I64:
		return scalarOf[int64]()
	case tensor.F32:
		return scalarOf[float32]()
	case tensor.F64:
		return scalarOf[float64]()
	}
	// float16 has no Go type onnxruntime_go's Scalar takes.
	return nil, nil, fmt.Errorf("a scalar %v output cannot be run per frame", d)
}

func scalarOf[T ort.TensorData]() (ort.Value, func() []byte, error) {
	v, err := ort.NewEmptyScalar[T]()
	if err != nil {
		return nil, nil, err
	}
	return v, func() []byte { return asBytes([]T{v.GetData()}) }, nil
}
