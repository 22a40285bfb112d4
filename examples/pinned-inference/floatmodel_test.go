package main

import (
	"encoding/binary"
	"math"

	ort "github.com/yalue/onnxruntime_go"
)

// The benchmarks' second model: a float32 NHWC image the size of a common
// detector input, and the cheapest network that still reads every byte of
// it, so the per-frame costs of handing a frame to ONNX Runtime can be put
// next to a run over a large input:
//
//	image float32 [1 640 640 3] -> Mul(1/256) -> ReduceMean(H, W) -> scores [1 3]
//
// (per-channel means of the scaled image). It is built here, in Go, when
// the tests run: nothing to regenerate, and no Python or protobuf package
// needed. floatReference computes the same in Go.
const (
	floatH, floatW, floatC = 640, 640, 3
	floatScale             = 1.0 / 256 // a power of two: scaling is exact in float32
)

var floatModel = model{
	onnx: floatModelONNX(), input: "image", output: "scores",
	dtype: ort.TensorElementDataTypeFloat, elemName: "float32", elemSize: 4,
	shape: ort.NewShape(1, floatH, floatW, floatC),
}

// floatReference is floatModel's output on frame (packed float32 NHWC,
// native byte order), computed in float64.
func floatReference(frame []byte) [Scores]float64 {
	var sum [floatC]float64
	for i := 0; i+4 <= len(frame); i += 4 {
		v := math.Float32frombits(binary.NativeEndian.Uint32(frame[i:]))
		sum[(i/4)%floatC] += float64(v)
	}
	var out [Scores]float64
	for c := range floatC {
		out[c] = sum[c] * floatScale / (floatH * floatW)
	}
	return out
}

// floatModelONNX encodes floatModel's graph as an ONNX ModelProto
// (opset 13, IR version 8, like model/model.onnx). Field numbers are
// from onnx/onnx.proto.
func floatModelONNX() []byte {
	const (
		tensorFloat   = 1 // TensorProto.DataType FLOAT
		attributeInt  = 2 // AttributeProto.AttributeType INT
		attributeInts = 7 // AttributeProto.AttributeType INTS
	)
	valueInfo := func(name string, dims ...int64) []byte {
		var shape []byte
		for _, d := range dims {
			shape = pbBytes(shape, 1, pbVarint(nil, 1, uint64(d))) // TensorShapeProto.dim{dim_value}
		}
		tensorType := pbBytes(pbVarint(nil, 1, tensorFloat), 2, shape) // elem_type, shape
		return pbBytes(pbString(nil, 1, name), 2, pbBytes(nil, 1, tensorType))
	}
	scale := make([]byte, 4)
	binary.LittleEndian.PutUint32(scale, math.Float32bits(floatScale)) // raw_data is little-endian
	var initializer []byte                                             // a scalar: no dims
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
	axes = pbVarint(axes, 8, 1) // ints: H
	axes = pbVarint(axes, 8, 2) // ints: W
	axes = pbVarint(axes, 20, attributeInts)
	keepdims := pbVarint(pbString(nil, 1, "keepdims"), 3, 0)
	keepdims = pbVarint(keepdims, 20, attributeInt)
	var mean []byte
	mean = pbString(mean, 1, "scaled")
	mean = pbString(mean, 2, "scores")
	mean = pbString(mean, 3, "channel_means")
	mean = pbString(mean, 4, "ReduceMean")
	mean = pbBytes(mean, 5, axes)
	mean = pbBytes(mean, 5, keepdims)

	var graph []byte
	graph = pbBytes(graph, 1, mul)
	graph = pbBytes(graph, 1, mean)
	graph = pbString(graph, 2, "tensorpin_float_means")
	graph = pbBytes(graph, 5, initializer)
	graph = pbBytes(graph, 11, valueInfo("image", 1, floatH, floatW, floatC))
	graph = pbBytes(graph, 12, valueInfo("scores", 1, Scores))

	var m []byte
	m = pbVarint(m, 1, 8) // ir_version
	m = pbString(m, 2, "gst-tensorpin floatmodel_test.go")
	m = pbBytes(m, 7, graph)
	m = pbBytes(m, 8, pbVarint(pbString(nil, 1, ""), 2, 13)) // opset_import{domain "", version 13}
	return m
}

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
