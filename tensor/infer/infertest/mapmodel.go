package infertest

import (
	"encoding/binary"
	"fmt"
	"math"
)

// MapModel describes a model shaped like a text detector or a segmenter:
// its outputs are maps whose size follows the input's, and it declares
// every size free, as exported public models do:
//
//	image float32 [? 3 ? ?] (NCHW)
//	  -> Mul(Scale) -> ReduceMean(C, keepdims) -> "map"    [? 1 ? ?]
//	                                          \-> MaxPool(2×2, stride 2)
//	                                                  -> "pooled" [? 1 ? ?]  (when Pooled)
//
// map is the per-pixel mean of the scaled channels; pooled (a second
// output at half the size, rounded down, as a detector's coarser grid)
// the maximum of each 2×2 block of map.
type MapModel struct {
	Scale  float32 // a power of two keeps scaling exact in float32
	Pooled bool
}

// OutputNames are the model's outputs, in order.
func (m MapModel) OutputNames() []string {
	if m.Pooled {
		return []string{"map", "pooled"}
	}
	return []string{"map"}
}

// OutputShapes are the outputs' shapes for an h×w input (batch 1).
func (m MapModel) OutputShapes(h, w int) [][]int64 {
	s := [][]int64{{1, 1, int64(h), int64(w)}}
	if m.Pooled {
		s = append(s, []int64{1, 1, int64(h / 2), int64(w / 2)})
	}
	return s
}

// Reference computes the outputs in float64 for an h×w input from at,
// which returns the input's element at (y, x, channel): map, then (when
// Pooled) pooled, row-major.
func (m MapModel) Reference(h, w int, at func(y, x, c int) float64) [][]float64 {
	mp := make([]float64, h*w)
	for y := range h {
		for x := range w {
			var sum float64
			for c := range 3 {
				sum += at(y, x, c) * float64(m.Scale)
			}
			mp[y*w+x] = sum / 3
		}
	}
	if !m.Pooled {
		return [][]float64{mp}
	}
	ph, pw := h/2, w/2
	pooled := make([]float64, ph*pw)
	for y := range ph {
		for x := range pw {
			v := math.Inf(-1)
			for dy := range 2 {
				for dx := range 2 {
					v = max(v, mp[(2*y+dy)*w+2*x+dx])
				}
			}
			pooled[y*pw+x] = v
		}
	}
	return [][]float64{mp, pooled}
}

// ONNX encodes the model (opset 13, IR version 8).
func (m MapModel) ONNX() []byte {
	const (
		tensorFloat   = 1 // TensorProto.DataType FLOAT
		attributeInt  = 2 // AttributeProto.AttributeType INT
		attributeInts = 7 // AttributeProto.AttributeType INTS
	)
	// dims: a number is a dim_value, a string a dim_param.
	valueInfo := func(name string, dims ...any) []byte {
		var shape []byte
		for _, d := range dims {
			var dim []byte
			switch d := d.(type) {
			case string:
				dim = pbString(nil, 2, d)
			case int:
				dim = pbVarint(nil, 1, uint64(d))
			}
			shape = pbBytes(shape, 1, dim)
		}
		tensorType := pbBytes(pbVarint(nil, 1, tensorFloat), 2, shape)
		return pbBytes(pbString(nil, 1, name), 2, pbBytes(nil, 1, tensorType))
	}
	ints := func(name string, vs ...uint64) []byte {
		a := pbString(nil, 1, name)
		for _, v := range vs {
			a = pbVarint(a, 8, v)
		}
		return pbVarint(a, 20, attributeInts)
	}
	node := func(op, name string, in, out []string, attrs ...[]byte) []byte {
		var n []byte
		for _, i := range in {
			n = pbString(n, 1, i)
		}
		for _, o := range out {
			n = pbString(n, 2, o)
		}
		n = pbString(n, 3, name)
		n = pbString(n, 4, op)
		for _, a := range attrs {
			n = pbBytes(n, 5, a)
		}
		return n
	}
	scale := make([]byte, 4)
	binary.LittleEndian.PutUint32(scale, math.Float32bits(m.Scale))
	var initializer []byte
	initializer = pbVarint(initializer, 2, tensorFloat)
	initializer = pbString(initializer, 8, "scale")
	initializer = pbBytes(initializer, 9, scale)

	keepdims := pbVarint(pbVarint(pbString(nil, 1, "keepdims"), 3, 1), 20, attributeInt)
	var graph []byte
	graph = pbBytes(graph, 1, node("Mul", "scale_image", []string{"image", "scale"}, []string{"scaled"}))
	graph = pbBytes(graph, 1, node("ReduceMean", "channel_mean", []string{"scaled"}, []string{"map"}, ints("axes", 1), keepdims))
	if m.Pooled {
		graph = pbBytes(graph, 1, node("MaxPool", "pool", []string{"map"}, []string{"pooled"},
			ints("kernel_shape", 2, 2), ints("strides", 2, 2)))
	}
	graph = pbString(graph, 2, "tensorpin_map")
	graph = pbBytes(graph, 5, initializer)
	graph = pbBytes(graph, 11, valueInfo("image", "batch", 3, "height", "width"))
	graph = pbBytes(graph, 12, valueInfo("map", "batch", 1, "height", "width"))
	if m.Pooled {
		graph = pbBytes(graph, 12, valueInfo("pooled", "batch", 1, "pooled_height", "pooled_width"))
	}
	var model []byte
	model = pbVarint(model, 1, 8)
	model = pbString(model, 2, "gst-tensorpin infertest")
	model = pbBytes(model, 7, graph)
	model = pbBytes(model, 8, pbVarint(pbString(nil, 1, ""), 2, 13))
	return model
}

func (m MapModel) String() string {
	s := "map-nchw-free"
	if m.Pooled {
		s += "-pooled"
	}
	return fmt.Sprintf("%s-x%g", s, m.Scale)
}
