#!/usr/bin/python3
"""Writes model.onnx, the small network examples/pinned-inference runs.

    /usr/bin/python3 examples/pinned-inference/model/make_model.py [out.onnx]

Needs Debian's python3-onnx (apt-get install python3-onnx); numpy comes
with it. The output is deterministic: running the script again gives the
same bytes (the Go test compares them when python3-onnx is installed).

The network takes one uint8 image, NHWC [1, 64, 64, 3] (RGB, packed rows:
what tensorsrc or a camera produce), and gives three float32 scores:

    image -> Cast(float) -> Mul(1/64) -> Transpose(NCHW)
          -> Conv(4 filters 3x3, stride 1, no padding) + bias -> Relu
          -> ReduceMean(H, W) -> Gemm(4 -> 3) -> scores [1, 3]

Every weight comes from a closed formula that Go repeats (ShippedReference
in tensor/infer/infertest/shipped.go, used by reference.go), so Go
computes the same result on the same bytes without reading this file:

    conv W[o][c][ky][kx] = ((7o + 5c + 3ky + kx) mod 5) - 2
    conv B[o]            = (o - 1.5) / 4
    gemm G[o][j]         = (((3o + 2j) mod 7) - 3) / 8
    gemm C[j]            = j / 2 - 1 / 2

The scale is a power of two and the weights small integers, so the
convolution is exact in float32 whatever the summation order; only the
mean and the Gemm round.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H, W, C = 64, 64, 3
FILTERS, K, SCORES = 4, 3, 3
OPSET = 13


def weights():
    conv_w = np.zeros((FILTERS, C, K, K), dtype=np.float32)
    for o in range(FILTERS):
        for c in range(C):
            for ky in range(K):
                for kx in range(K):
                    conv_w[o, c, ky, kx] = ((7 * o + 5 * c + 3 * ky + kx) % 5) - 2
    conv_b = np.array([(o - 1.5) / 4 for o in range(FILTERS)], dtype=np.float32)
    gemm_g = np.zeros((FILTERS, SCORES), dtype=np.float32)
    for o in range(FILTERS):
        for j in range(SCORES):
            gemm_g[o, j] = (((3 * o + 2 * j) % 7) - 3) / 8
    gemm_c = np.array([j / 2 - 0.5 for j in range(SCORES)], dtype=np.float32)
    return conv_w, conv_b, gemm_g, gemm_c


def build():
    conv_w, conv_b, gemm_g, gemm_c = weights()
    inits = [
        numpy_helper.from_array(np.array(1 / 64, dtype=np.float32), "scale"),
        numpy_helper.from_array(conv_w, "conv_w"),
        numpy_helper.from_array(conv_b, "conv_b"),
        numpy_helper.from_array(gemm_g, "gemm_g"),
        numpy_helper.from_array(gemm_c, "gemm_c"),
    ]
    nodes = [
        helper.make_node("Cast", ["image"], ["image_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["image_f", "scale"], ["scaled"]),
        helper.make_node("Transpose", ["scaled"], ["nchw"], perm=[0, 3, 1, 2]),
        helper.make_node("Conv", ["nchw", "conv_w", "conv_b"], ["conv"],
                         kernel_shape=[K, K], strides=[1, 1], pads=[0, 0, 0, 0]),
        helper.make_node("Relu", ["conv"], ["relu"]),
        helper.make_node("ReduceMean", ["relu"], ["mean"], axes=[2, 3], keepdims=0),
        helper.make_node("Gemm", ["mean", "gemm_g", "gemm_c"], ["scores"]),
    ]
    graph = helper.make_graph(
        nodes, "tensorpin_tiny",
        [helper.make_tensor_value_info("image", TensorProto.UINT8, [1, H, W, C])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, SCORES])],
        inits)
    model = helper.make_model(graph, producer_name="gst-tensorpin make_model.py",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # what onnx 1.12 writes for opset 13; ORT >= 1.14 reads it
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "model.onnx")
    data = build().SerializeToString()
    with open(out, "wb") as f:
        f.write(data)
    print(f"{out}: {len(data)} bytes")


if __name__ == "__main__":
    main()
