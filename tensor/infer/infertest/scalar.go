package infertest

import "fmt"

// ScalarMean describes a float32 model whose first output is a scalar
// (rank 0, shape []), as a model that scores a whole frame declares it:
//
//	image float32 [1 H W C]
//	  -> ReduceMean(all axes, keepdims 0) -> "mean"   []     (a scalar)
//	  -> ReduceMean(H, W, keepdims 0)     -> "scores" [1 C]  (when Scores)
//
// mean is the mean of every element of the input, scores (a second,
// ordinary output) the per-channel means.
type ScalarMean struct {
	H, W, C int
	Scores  bool
}

// InputShape is the model's input shape.
func (m ScalarMean) InputShape() []int64 { return []int64{1, int64(m.H), int64(m.W), int64(m.C)} }

// OutputNames are the model's outputs, in order.
func (m ScalarMean) OutputNames() []string {
	if m.Scores {
		return []string{"mean", "scores"}
	}
	return []string{"mean"}
}

// Reference computes the outputs in float64 from at, which returns the
// input's element at (y, x, channel): mean (one value), then (when
// Scores) scores, C values.
func (m ScalarMean) Reference(at func(y, x, c int) float64) [][]float64 {
	sum := make([]float64, m.C)
	for y := range m.H {
		for x := range m.W {
			for c := range m.C {
				sum[c] += at(y, x, c)
			}
		}
	}
	var all float64
	for c := range sum {
		all += sum[c]
		sum[c] /= float64(m.H * m.W)
	}
	mean := []float64{all / float64(m.H*m.W*m.C)}
	if m.Scores {
		return [][]float64{mean, sum}
	}
	return [][]float64{mean}
}

// ONNX encodes the model as an ONNX ModelProto (opset 13, IR version 8).
// Field numbers are from onnx/onnx.proto.
func (m ScalarMean) ONNX() []byte {
	const (
		tensorFloat   = 1 // TensorProto.DataType FLOAT
		attributeInt  = 2 // AttributeProto.AttributeType INT
		attributeInts = 7 // AttributeProto.AttributeType INTS
	)
	// A shape with no dims is rank 0; a missing shape would be an unknown
	// rank, so the (empty) shape field is always written.
	valueInfo := func(name string, dims ...int64) []byte {
		shape := []byte{}
		for _, d := range dims {
			shape = pbBytes(shape, 1, pbVarint(nil, 1, uint64(d))) // TensorShapeProto.dim{dim_value}
		}
		tensorType := pbBytes(pbVarint(nil, 1, tensorFloat), 2, shape) // elem_type, shape
		return pbBytes(pbString(nil, 1, name), 2, pbBytes(nil, 1, tensorType))
	}
	keepdims := pbVarint(pbString(nil, 1, "keepdims"), 3, 0)
	keepdims = pbVarint(keepdims, 20, attributeInt)
	reduce := func(out string, axes ...uint64) []byte {
		var n []byte
		n = pbString(n, 1, "image")
		n = pbString(n, 2, out)
		n = pbString(n, 3, "reduce_"+out)
		n = pbString(n, 4, "ReduceMean")
		if len(axes) > 0 { // none: every axis (opset 13)
			a := pbString(nil, 1, "axes")
			for _, x := range axes {
				a = pbVarint(a, 8, x)
			}
			n = pbBytes(n, 5, pbVarint(a, 20, attributeInts))
		}
		return pbBytes(n, 5, keepdims)
	}

	var graph []byte
	graph = pbBytes(graph, 1, reduce("mean"))
	if m.Scores {
		graph = pbBytes(graph, 1, reduce("scores", 1, 2))
	}
	graph = pbString(graph, 2, "tensorpin_scalar_mean")
	graph = pbBytes(graph, 11, valueInfo("image", m.InputShape()...))
	graph = pbBytes(graph, 12, valueInfo("mean"))
	if m.Scores {
		graph = pbBytes(graph, 12, valueInfo("scores", 1, int64(m.C)))
	}

	var model []byte
	model = pbVarint(model, 1, 8) // ir_version
	model = pbString(model, 2, "gst-tensorpin infertest")
	model = pbBytes(model, 7, graph)
	model = pbBytes(model, 8, pbVarint(pbString(nil, 1, ""), 2, 13)) // opset_import{domain "", version 13}
	return model
}

func (m ScalarMean) String() string {
	s := fmt.Sprintf("f32-%dx%dx%d-scalar", m.H, m.W, m.C)
	if m.Scores {
		s += "-2out"
	}
	return s
}
