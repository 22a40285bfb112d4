// Command pinned-inference runs ONNX Runtime on pinned GStreamer frames
// with no copy: each pool slot's input tensor is created once, directly
// over the slot's pinned address, and every later frame of that slot is
// inferred by selecting the slot's binding and running it.
//
//	lib=$(scripts/fetch-onnxruntime)            # or any libonnxruntime.so >= 1.24
//	go run ./examples/pinned-inference -ort "$lib" -frames 300
//	ONNXRUNTIME_LIB=$lib go run ./examples/pinned-inference
//	go run ./examples/pinned-inference -ort "$lib" -pipeline \
//	    'v4l2src io-mode=dmabuf ! videoconvert ! videoscale ! video/x-raw,format=RGB,width=64,height=64 ! tensorpinsink name=sink'
//
// The default source is tensorsrc ! other/tensors (uint8 [1 64 64 3]) !
// queue ! tensorpinsink: a ring of memfd (or dma-heap) tensors — pool-size
// 4, grown to 5 by the sink's ALLOCATION answer (max-leases 4 + 1) — which
// the sink pins in place: 5 mmaps for the stream, 0 copies. The model
// (model/model.onnx, 1 KB, written by model/make_model.py) is uint8 image
// → scale → 3×3 conv → ReLU → mean → Gemm → 3 scores; every output is
// checked against the same network computed in Go on the frame's bytes
// (reference.go, from package tensor/infer/infertest). The program prints frames, matches, copies, mmaps,
// syncs and time per frame, and exits 1 if any frame was not inferred at
// its slot's bound address or disagreed with the reference.
//
// The runtime is package tensor/infer, the engine the tensorinfer element
// uses too: infer.Load shares ONNX Runtime's environment (and keeps its
// telemetry from writing under ~/.cache and /tmp), and an infer.Session
// binds each input slot and output slot once.
//
// Lifetimes: the PinSink's OnSlot hook (on the streaming thread) binds the
// slot's pin as the session's input slot (Session.BindInput clones the
// pin and creates the ORT input tensor over it: ONNX Runtime keeps the
// pointer, it does not copy). The clone keeps the mapping alive for as
// long as ORT may read it — past the frame, the sink and the pipeline —
// and is released when the session is closed, after the last run. The
// scores go to one output slot, a pinned memfd tensor bound once; each
// frame runs (input slot, output slot 0) and reads the scores before the
// next. Frames are inferred and checked between delivery and Release,
// inside the sink's CPU-access bracket, and released at once so the
// producer's ring keeps moving. The pinned memory is an mmap, not Go
// memory, so handing it to C and letting C keep it obeys cgo's pointer
// rules.
//
// The program registers the elements statically (package pipelines): do
// not also put libgsttensorpin.so on GST_PLUGIN_PATH.
package main
