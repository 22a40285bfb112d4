package infertest

import (
	"encoding/binary"
	"fmt"
	"math"
)

// ChannelMap describes a probability-map model whose map is one channel
// of its input, so a frame with a bright rectangle in that channel gives
// a map with that rectangle — what the decoders' end-to-end tests find
// again (tensor/decode's map-boxes, the tensordecode element):
//
//	image float32 [1 3 H W] (NCHW)
//	  -> Gather(axis 1, [Channel]) -> Mul(Scale) -> "prob" [1 1 H W]
//
// Every dimension is fixed, so an RGB frame of H×W feeds it as it is (the
// engine converts uint8 HWC into float32 CHW).
type ChannelMap struct {
	H, W    int
	Channel int     // 0, 1 or 2
	Scale   float32 // 1/256 maps a uint8 channel into [0, 1)
}

// OutputName is the model's only output.
func (m ChannelMap) OutputName() string { return "prob" }

// OutputShape is the output's shape.
func (m ChannelMap) OutputShape() []int64 { return []int64{1, 1, int64(m.H), int64(m.W)} }

// Reference computes the output in float64 from at, which returns the
// input's element at (y, x, channel): H×W values, row-major.
func (m ChannelMap) Reference(at func(y, x, c int) float64) []float64 {
	out := make([]float64, m.H*m.W)
	for y := range m.H {
		for x := range m.W {
			out[y*m.W+x] = at(y, x, m.Channel) * float64(m.Scale)
		}
	}
	return out
}

// ONNX encodes the model (opset 13, IR version 8).
func (m ChannelMap) ONNX() []byte {
	const (
		tensorFloat  = 1 // TensorProto.DataType FLOAT
		tensorInt64  = 7 // TensorProto.DataType INT64
		attributeInt = 2 // AttributeProto.AttributeType INT
	)
	valueInfo := func(name string, dims ...int) []byte {
		var shape []byte
		for _, d := range dims {
			shape = pbBytes(shape, 1, pbVarint(nil, 1, uint64(d))) // dim { dim_value }
		}
		tensorType := pbBytes(pbVarint(nil, 1, tensorFloat), 2, shape)
		return pbBytes(pbString(nil, 1, name), 2, pbBytes(nil, 1, tensorType))
	}
	// initializer is a TensorProto: dims (field 1), data_type (2), name
	// (8), raw_data (9, little-endian).
	initializer := func(name string, dataType uint64, dims []int, raw []byte) []byte {
		var t []byte
		for _, d := range dims {
			t = pbVarint(t, 1, uint64(d))
		}
		t = pbVarint(t, 2, dataType)
		t = pbString(t, 8, name)
		return pbBytes(t, 9, raw)
	}
	index := binary.LittleEndian.AppendUint64(nil, uint64(m.Channel))
	scale := binary.LittleEndian.AppendUint32(nil, math.Float32bits(m.Scale))
	node := func(op, name string, in []string, out string, attrs ...[]byte) []byte {
		var n []byte
		for _, i := range in {
			n = pbString(n, 1, i)
		}
		n = pbString(n, 2, out)
		n = pbString(n, 3, name)
		n = pbString(n, 4, op)
		for _, a := range attrs {
			n = pbBytes(n, 5, a)
		}
		return n
	}
	axis := pbVarint(pbVarint(pbString(nil, 1, "axis"), 3, 1), 20, attributeInt)

	var graph []byte
	graph = pbBytes(graph, 1, node("Gather", "pick_channel", []string{"image", "channel"}, "picked", axis))
	graph = pbBytes(graph, 1, node("Mul", "scale_map", []string{"picked", "scale"}, m.OutputName()))
	graph = pbString(graph, 2, "tensorpin_channel_map")
	graph = pbBytes(graph, 5, initializer("channel", tensorInt64, []int{1}, index))
	graph = pbBytes(graph, 5, initializer("scale", tensorFloat, nil, scale))
	graph = pbBytes(graph, 11, valueInfo("image", 1, 3, m.H, m.W))
	graph = pbBytes(graph, 12, valueInfo(m.OutputName(), 1, 1, m.H, m.W))
	var model []byte
	model = pbVarint(model, 1, 8)
	model = pbString(model, 2, "gst-tensorpin infertest")
	model = pbBytes(model, 7, graph)
	model = pbBytes(model, 8, pbVarint(pbString(nil, 1, ""), 2, 13))
	return model
}

func (m ChannelMap) String() string {
	return fmt.Sprintf("channel-map-%dx%d-c%d-x%g", m.W, m.H, m.Channel, m.Scale)
}
