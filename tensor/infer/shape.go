package infer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	ort "github.com/yalue/onnxruntime_go"
)

// Declared formats a model's declared shape with ? for each free
// dimension, as users read shapes in model viewers: [? 3 ? ?].
func Declared(shape []int64) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// FitInput fixes the free dimensions of the model's input m from the
// shape of the frames it will be fed (given, outermost first: [H W C]
// for packed video, a tensor's shape otherwise), by the mapping the
// conversion uses (planLayout): the frame's dimensions, leading 1s aside,
// fill the model's innermost ones either in order or, for an [H W C]
// frame, as [C H W] (HWC→CHW); the model's leading dimensions left over
// (a batch) must be 1 or free, and become 1. When both orders fit, the
// one that puts the frame's channels where the model fixes a dimension
// wins (an NCHW model declares [? 3 ? ?]), else the order as it is (no
// conversion). It returns the fixed shape and the Transpose to bind the
// frames with, or ErrInput quoting the declared shape (? for free) and
// the frame's.
func FitInput(m TensorInfo, given []int) ([]int64, Transpose, error) {
	g := squeeze(given)
	asIs, okAsIs := fitInto(m.ModelShape, g)
	var chw []int64
	okCHW := false
	if len(g) == 3 {
		chw, okCHW = fitInto(m.ModelShape, []int{g[2], g[0], g[1]})
	}
	r := len(m.ModelShape)
	switch {
	case okAsIs && okCHW:
		// The channel axis of each reading: innermost as it is,
		// third from the end as CHW.
		if m.ModelShape[r-3] >= 0 && m.ModelShape[r-1] < 0 {
			return chw, TransposeHWCToCHW, nil
		}
		return asIs, TransposeNone, nil
	case okAsIs:
		return asIs, TransposeNone, nil
	case okCHW:
		return chw, TransposeHWCToCHW, nil
	}
	how := "in order"
	if len(g) == 3 {
		how = "in order or as [H W C] into [C H W]"
	}
	return nil, 0, fmt.Errorf("%w: input %q declares %s %s; frames of shape %v (rank %d) do not fit it %s",
		ErrInput, m.Name, m.ElementType, Declared(m.ModelShape), given, len(given), how)
}

// fitInto fills model's innermost dimensions with inner and its leading
// ones with 1, keeping every dimension the model fixes.
func fitInto(model []int64, inner []int) ([]int64, bool) {
	lead := len(model) - len(inner)
	if lead < 0 {
		return nil, false
	}
	out := make([]int64, len(model))
	for i, d := range model {
		want := int64(1)
		if i >= lead {
			want = int64(inner[i-lead])
		}
		if d >= 0 && d != want {
			return nil, false
		}
		out[i] = want
	}
	return out, true
}

// probeScalar makes a scalar output's value for probeOutputs:
// perFrameScalar, a variable so that this package's tests can count the
// values destroyed; production code never reassigns it.
var probeScalar = perFrameScalar

// probeOutputs fixes the Shape of each output whose free dimensions the
// caller left open (Shape nil): one run of the session on a zero input
// of the input's fixed shape, with outputs ONNX Runtime allocates, whose
// shapes are then read. Outputs whose size follows the input (a
// segmenter's map, a detector's grid) get theirs this way; an output
// whose size follows the input's values instead (a variable number of
// boxes) cannot be bound once, and a later run on other values fails
// naming the shape it was bound with.
func (s *Session) probeOutputs() error {
	if !slices.ContainsFunc(s.outputs, func(t TensorInfo) bool { return t.Shape == nil }) {
		return nil
	}
	zero := make([]byte, max(s.input.Bytes(), 1))
	in, err := ort.NewCustomDataTensor(ort.Shape(s.input.Shape), zero[:s.input.Bytes()], ortDType(s.input.DType))
	if err != nil {
		return fmt.Errorf("%s: shaping the outputs: an input tensor of %v: %w", s.name, s.input.Shape, err)
	}
	defer in.Destroy()
	outs := make([]ort.Value, len(s.outputs)) // nil: ONNX Runtime allocates it
	// Every value made is destroyed on every return, a failed scalar's
	// included: the deferred release comes before the first is made.
	defer func() {
		for _, v := range outs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for i, t := range s.outputs {
		// onnxruntime_go cannot wrap a scalar ONNX Runtime allocates:
		// a scalar output (never free) gets a value of its own.
		if t.Shape != nil && len(t.Shape) == 0 {
			if outs[i], _, err = probeScalar(t.DType); err != nil {
				return fmt.Errorf("%s: shaping the outputs: output %q: %w", s.name, t.Name, err)
			}
		}
	}
	if err := s.sess.Run([]ort.Value{in}, outs); err != nil {
		return fmt.Errorf("%w: %s: the outputs' free dimensions follow from input %q %v only by a run, which failed: %v",
			ErrDynamicDims, s.name, s.input.Name, s.input.Shape, err)
	}
	for i := range s.outputs {
		t := &s.outputs[i]
		if t.Shape != nil {
			continue
		}
		got := []int64(outs[i].GetShape())
		ok := len(got) == len(t.ModelShape)
		for k := 0; ok && k < len(got); k++ {
			ok = got[k] > 0 && (t.ModelShape[k] < 0 || t.ModelShape[k] == got[k])
		}
		if !ok {
			return fmt.Errorf("%w: %s: output %q declares %s; with input %q %v ONNX Runtime gives it %v, which cannot be bound once",
				ErrDynamicDims, s.name, t.Name, Declared(t.ModelShape), s.input.Name, s.input.Shape, got)
		}
		t.Shape = got
	}
	return nil
}
