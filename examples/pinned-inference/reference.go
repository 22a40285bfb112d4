package main

import "github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"

// The network of model/model.onnx (see model/make_model.py, which writes
// it from the same formulas): uint8 NHWC [1, H, W, C] → ×1/64 → 3×3
// convolution with Filters filters → ReLU → spatial mean → Gemm →
// Scores float32 scores. Its Go reference lives in package infertest
// (tensor/infer/infertest/shipped.go), where package infer's tests use it
// too.
const (
	H, W, C = infertest.ShippedH, infertest.ShippedW, infertest.ShippedC
	Filters = infertest.ShippedFilters
	Scores  = infertest.ShippedScores
	// InputBytes is the size of one input tensor (packed rows).
	InputBytes = infertest.ShippedInputBytes
)

func within(got, want float64) bool { return infertest.ShippedWithin(got, want) }

// reference computes the network's output on img (InputBytes bytes,
// NHWC) in Go: integer convolution (exact), float64 mean and Gemm, so
// ONNX Runtime's float32 result must be within a small tolerance of it.
func reference(img []byte) [Scores]float64 { return infertest.ShippedReference(img) }
