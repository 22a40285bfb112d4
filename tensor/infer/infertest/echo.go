package infertest

import "fmt"

// Echo describes a model that gives its input back, so a test can read
// exactly what an element fed it — a region's crop, row by row:
//
//	image float32 [N 3 H W] (NCHW) -> Identity -> "echo" [N 3 H W]
//
// Batch, H and W are fixed where set, free (dim_params "batch",
// "height", "width") where 0 — a text recogniser declares [? 3 48 ?].
type Echo struct {
	Batch, H, W int
}

// OutputName is the model's only output.
func (m Echo) OutputName() string { return "echo" }

// ONNX encodes the model (opset 13, IR version 8).
func (m Echo) ONNX() []byte {
	const tensorFloat = 1 // TensorProto.DataType FLOAT
	dim := func(v int, param string) []byte {
		if v > 0 {
			return pbVarint(nil, 1, uint64(v)) // dim_value
		}
		return pbString(nil, 2, param) // dim_param
	}
	valueInfo := func(name string) []byte {
		var shape []byte
		for _, d := range [][]byte{dim(m.Batch, "batch"), dim(3, ""), dim(m.H, "height"), dim(m.W, "width")} {
			shape = pbBytes(shape, 1, d)
		}
		tensorType := pbBytes(pbVarint(nil, 1, tensorFloat), 2, shape)
		return pbBytes(pbString(nil, 1, name), 2, pbBytes(nil, 1, tensorType))
	}
	var n []byte
	n = pbString(n, 1, "image")
	n = pbString(n, 2, m.OutputName())
	n = pbString(n, 3, "echo")
	n = pbString(n, 4, "Identity")
	var graph []byte
	graph = pbBytes(graph, 1, n)
	graph = pbString(graph, 2, "tensorpin_echo")
	graph = pbBytes(graph, 11, valueInfo("image"))
	graph = pbBytes(graph, 12, valueInfo(m.OutputName()))
	var model []byte
	model = pbVarint(model, 1, 8)
	model = pbString(model, 2, "gst-tensorpin infertest")
	model = pbBytes(model, 7, graph)
	model = pbBytes(model, 8, pbVarint(pbString(nil, 1, ""), 2, 13))
	return model
}

func (m Echo) String() string {
	d := func(v int) string {
		if v > 0 {
			return fmt.Sprint(v)
		}
		return "?"
	}
	return fmt.Sprintf("echo-%sx3x%sx%s", d(m.Batch), d(m.H), d(m.W))
}
