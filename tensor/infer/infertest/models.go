// Package infertest holds what the tests of package infer, of the
// pinned-inference example and of the tensorinfer element share: ONNX
// models built in Go (a hand-written protobuf encoder: nothing to
// regenerate, no Python or protobuf package), the Go references their
// outputs are checked against, the shipped example model and its
// reference, and how a test obtains the ONNX Runtime library.
//
// It imports neither package testing nor GStreamer: Lib takes the few
// methods of testing.TB it uses.
package infertest

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Means describes a float32 image model that reads every element of its
// input and is cheap to run:
//
//	image float32 [1 H W C] (NHWC) or [1 C H W] (NCHW)
//	  -> Mul(Scale) -> ReduceMean(H, W) -> "scores" [1 C]
//	               \-> ReduceMax(H, W)  -> "peaks"  [1 C]   (when Peaks)
//
// scores are the per-channel means of the scaled image, peaks (a second
// output) the per-channel maxima. DynamicBatch declares the batch
// dimension free (dim_param "batch"; -1 in ONNX Runtime's answer), on the
// input and on the outputs.
type Means struct {
	NCHW         bool
	H, W, C      int
	Scale        float32 // a power of two keeps scaling exact in float32
	Peaks        bool
	DynamicBatch bool
	// DynamicHW declares height and width free too (dim_params "height"
	// and "width"), as public classifiers do: [? 3 ? ?]. H and W are
	// then the size the reference and the tests feed.
	DynamicHW bool
}

// Float640 is the benchmarks' float32 model: a common detector's input
// size, NHWC, scaled by 1/256 (the example's float model).
var Float640 = Means{H: 640, W: 640, C: 3, Scale: 1.0 / 256}

// InputShape is the model's input shape (batch 1).
func (m Means) InputShape() []int64 {
	if m.NCHW {
		return []int64{1, int64(m.C), int64(m.H), int64(m.W)}
	}
	return []int64{1, int64(m.H), int64(m.W), int64(m.C)}
}

// OutputNames are the model's outputs, in order.
func (m Means) OutputNames() []string {
	if m.Peaks {
		return []string{"scores", "peaks"}
	}
	return []string{"scores"}
}

// InputBytes is the size of one packed float32 input.
func (m Means) InputBytes() int { return m.H * m.W * m.C * 4 }

// Reference computes the model's outputs in float64 from at, which
// returns the input's element at (y, x, channel) whatever the memory's
// layout: scores then (when Peaks) peaks, C values each.
func (m Means) Reference(at func(y, x, c int) float64) [][]float64 {
	sum := make([]float64, m.C)
	peak := make([]float64, m.C)
	for c := range peak {
		peak[c] = math.Inf(-1)
	}
	for y := range m.H {
		for x := range m.W {
			for c := range m.C {
				v := at(y, x, c) * float64(m.Scale)
				sum[c] += v
				peak[c] = max(peak[c], v)
			}
		}
	}
	for c := range sum {
		sum[c] /= float64(m.H * m.W)
	}
	if m.Peaks {
		return [][]float64{sum, peak}
	}
	return [][]float64{sum}
}

// ONNX encodes the model as an ONNX ModelProto (opset 13, IR version 8,
// like the example's model.onnx). Field numbers are from onnx/onnx.proto.
func (m Means) ONNX() []byte {
	const (
		tensorFloat   = 1 // TensorProto.DataType FLOAT
		attributeInt  = 2 // AttributeProto.AttributeType INT
		attributeInts = 7 // AttributeProto.AttributeType INTS
	)
	// dims: > 0 a dim_value, < 0 a dim_param (freeDims names them).
	valueInfo := func(name string, dims ...int64) []byte {
		var shape []byte
		for _, d := range dims {
			var dim []byte
			if d < 0 {
				dim = pbString(nil, 2, freeDims[-d-1]) // Dimension.dim_param
			} else {
				dim = pbVarint(nil, 1, uint64(d)) // Dimension.dim_value
			}
			shape = pbBytes(shape, 1, dim) // TensorShapeProto.dim
		}
		tensorType := pbBytes(pbVarint(nil, 1, tensorFloat), 2, shape) // elem_type, shape
		return pbBytes(pbString(nil, 1, name), 2, pbBytes(nil, 1, tensorType))
	}
	scale := make([]byte, 4)
	binary.LittleEndian.PutUint32(scale, math.Float32bits(m.Scale)) // raw_data is little-endian
	var initializer []byte                                          // a scalar: no dims
	initializer = pbVarint(initializer, 2, tensorFloat)
	initializer = pbString(initializer, 8, "scale")
	initializer = pbBytes(initializer, 9, scale)

	var mul []byte
	mul = pbString(mul, 1, "image")
	mul = pbString(mul, 1, "scale")
	mul = pbString(mul, 2, "scaled")
	mul = pbString(mul, 3, "scale_image")
	mul = pbString(mul, 4, "Mul")

	axes := pbString(nil, 1, "axes")
	if m.NCHW {
		axes = pbVarint(axes, 8, 2) // ints: H
		axes = pbVarint(axes, 8, 3) // ints: W
	} else {
		axes = pbVarint(axes, 8, 1)
		axes = pbVarint(axes, 8, 2)
	}
	axes = pbVarint(axes, 20, attributeInts)
	keepdims := pbVarint(pbString(nil, 1, "keepdims"), 3, 0)
	keepdims = pbVarint(keepdims, 20, attributeInt)
	reduce := func(op, out string) []byte {
		var n []byte
		n = pbString(n, 1, "scaled")
		n = pbString(n, 2, out)
		n = pbString(n, 3, "channel_"+out)
		n = pbString(n, 4, op)
		n = pbBytes(n, 5, axes)
		return pbBytes(n, 5, keepdims)
	}

	batch := int64(1)
	if m.DynamicBatch {
		batch = -1
	}
	h, w := int64(m.H), int64(m.W)
	if m.DynamicHW {
		h, w = freeHeight, freeWidth
	}
	in := []int64{batch, h, w, int64(m.C)}
	if m.NCHW {
		in = []int64{batch, int64(m.C), h, w}
	}
	var graph []byte
	graph = pbBytes(graph, 1, mul)
	graph = pbBytes(graph, 1, reduce("ReduceMean", "scores"))
	if m.Peaks {
		graph = pbBytes(graph, 1, reduce("ReduceMax", "peaks"))
	}
	graph = pbString(graph, 2, "tensorpin_means")
	graph = pbBytes(graph, 5, initializer)
	graph = pbBytes(graph, 11, valueInfo("image", in...))
	for _, name := range m.OutputNames() {
		graph = pbBytes(graph, 12, valueInfo(name, batch, int64(m.C)))
	}

	var model []byte
	model = pbVarint(model, 1, 8) // ir_version
	model = pbString(model, 2, "gst-tensorpin infertest")
	model = pbBytes(model, 7, graph)
	model = pbBytes(model, 8, pbVarint(pbString(nil, 1, ""), 2, 13)) // opset_import{domain "", version 13}
	return model
}

func (m Means) String() string {
	order := "NHWC"
	if m.NCHW {
		order = "NCHW"
	}
	s := fmt.Sprintf("f32-%dx%dx%d-%s", m.H, m.W, m.C, order)
	if m.DynamicHW {
		s += "-freehw"
	}
	if m.Peaks {
		s += "-2out"
	}
	return s
}

// Free dimensions in valueInfo's dims: -1 - their index in freeDims.
const (
	freeBatch  = -1
	freeHeight = -2
	freeWidth  = -3
)

var freeDims = []string{"batch", "height", "width"}

// Protocol buffer wire format: just the two field kinds an ONNX graph
// needs here (varint, and length-delimited).

func pbKey(b []byte, field, wire int) []byte { return binary.AppendUvarint(b, uint64(field<<3|wire)) }

func pbVarint(b []byte, field int, v uint64) []byte {
	return binary.AppendUvarint(pbKey(b, field, 0), v)
}

func pbBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(pbKey(b, field, 2), uint64(len(v)))
	return append(b, v...)
}

func pbString(b []byte, field int, s string) []byte { return pbBytes(b, field, []byte(s)) }
