package infertest

import "math"

// The network of the shipped model, examples/pinned-inference/model/
// model.onnx (see model/make_model.py, which writes it from the same
// formulas): uint8 NHWC [1, ShippedH, ShippedW, ShippedC] → ×1/64 → 3×3
// convolution with ShippedFilters filters → ReLU → spatial mean → Gemm →
// ShippedScores float32 scores. Input "image", output "scores".
const (
	ShippedH, ShippedW, ShippedC = 64, 64, 3
	ShippedFilters               = 4
	ShippedK                     = 3
	ShippedScores                = 3
	// ShippedInputBytes is the size of one input tensor (packed rows).
	ShippedInputBytes = ShippedH * ShippedW * ShippedC
)

// ShippedModel is the shipped model's path relative to the repository's
// root (RepoFile finds it from a test's directory).
const ShippedModel = "examples/pinned-inference/model/model.onnx"

// Weights, from the closed formulas make_model.py uses.
func convW(o, c, ky, kx int) int { return (7*o+5*c+3*ky+kx)%5 - 2 }
func convB(o int) float64        { return (float64(o) - 1.5) / 4 }
func gemmG(o, j int) float64     { return float64((3*o+2*j)%7-3) / 8 }
func gemmC(j int) float64        { return float64(j)/2 - 0.5 }

// ShippedWithin reports whether ONNX Runtime's float32 score got agrees
// with the float64 reference want.
func ShippedWithin(got, want float64) bool { return math.Abs(got-want) <= 1e-4*(1+math.Abs(want)) }

// ShippedReference computes the shipped network's output on img
// (ShippedInputBytes bytes, NHWC) in Go. The convolution is done in
// integers (exact, as ONNX Runtime's is in float32 for these weights); the
// mean and the Gemm in float64, so ONNX Runtime's float32 result must be
// within a small tolerance of it (ShippedWithin).
func ShippedReference(img []byte) [ShippedScores]float64 {
	const (
		H, W, C, K = ShippedH, ShippedW, ShippedC, ShippedK
		oh, ow     = H - K + 1, W - K + 1
	)
	var mean [ShippedFilters]float64
	for o := 0; o < ShippedFilters; o++ {
		var w [K][K][C]int
		for ky := range K {
			for kx := range K {
				for c := range C {
					w[ky][kx][c] = convW(o, c, ky, kx)
				}
			}
		}
		bias := convB(o)
		var sum float64
		for y := 0; y < oh; y++ {
			for x := 0; x < ow; x++ {
				acc := 0 // Σ w·pixel, exact; the input scale 1/64 is applied once
				for ky := range K {
					row := img[((y+ky)*W+x)*C:]
					for kx := range K {
						px := row[kx*C : kx*C+C]
						acc += w[ky][kx][0]*int(px[0]) + w[ky][kx][1]*int(px[1]) + w[ky][kx][2]*int(px[2])
					}
				}
				if v := float64(acc)/64 + bias; v > 0 {
					sum += v
				}
			}
		}
		mean[o] = sum / (oh * ow)
	}
	var out [ShippedScores]float64
	for j := range ShippedScores {
		out[j] = gemmC(j)
		for o := range ShippedFilters {
			out[j] += mean[o] * gemmG(o, j)
		}
	}
	return out
}
