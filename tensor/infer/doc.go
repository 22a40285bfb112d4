// Package infer runs ONNX Runtime on pinned memory, bound once: the
// engine the tensorinfer element and Go programs share. Each input slot
// (a pool buffer's pinned address) and each output slot (pinned memory the
// caller allocated, e.g. with tensor.Alloc) is handed to ONNX Runtime once;
// per frame the caller only names the two slots and runs. It imports
// packages pin and tensor and github.com/yalue/onnxruntime_go, never
// GStreamer.
//
//	env, err := infer.Load("")                      // $ONNXRUNTIME_LIB, else libonnxruntime.so.1 / .so
//	s, err := env.NewSession("model.onnx", infer.Options{})
//	s.BindOutput(0, &outPin)                       // one pin per output, once per output slot
//	s.BindInput(slot, infer.Input{Pin: &framePin, Layout: frameLayout}) // once per input slot
//	err = s.Run(slot, 0)                           // per frame: 0 allocations, no copy
//
// [Load] loads the library ([LibraryEnv], [DefaultLibraries]) and creates
// ONNX Runtime's environment, one per process, reference-counted: every
// [Environment] handle and every [Session] holds a reference, and the last
// Close destroys the environment and unloads the library. Loading turns
// off ONNX Runtime's telemetry client for the environment's creation (see
// [Load]), which otherwise writes a store under ~/.cache and files in
// /tmp for every process.
//
// A [Session] feeds one input of a model ([Options.Input]) and binds any
// of its outputs ([Options.Outputs]); [Environment.Inspect] and
// [Session.Model] give every input and output's name, element type and
// shape (-1 for a free dimension, which [Options.Shapes] must fix).
// Errors wrap [ErrRuntimeUnavailable], [ErrModel], [ErrInput],
// [ErrDynamicDims], [ErrNotBound] or [ErrClosed].
//
// Bound once. [Session.BindInput] creates the ONNX Runtime tensor over the
// slot's pinned address (no copy: ONNX Runtime keeps the pointer);
// [Session.BindOutput] creates one over each output's pinned memory; and
// for every (input slot, output slot) pair the session keeps one IoBinding
// with both bound, made when the second of the two is bound. [Session.Run]
// loads the current bindings with one atomic load, indexes the pair and
// calls RunWithBinding: no ONNX Runtime value made, no name looked up, no
// output copied, no Go allocation. (Measured against ONNX Runtime's Run
// with values made once, which builds its arrays per call, and against
// rebinding the output per frame: docs/performance-log.md.)
//
// Per frame, for measuring only. [Session.RunPerFrame] runs the same
// session the way an engine that binds nothing does (GStreamer's
// onnxinference: a new input value over the frame, a run without
// IoBinding, every output copied into new memory), so that what binding
// once saves is measured on the same model, options and frames.
//
// Conversion, counted. Memory the model cannot read as it is — uint8 into
// a float32 model (optionally scaled, [Input.Scale]), [H W C] into a
// [C H W] model, rows padded to a stride, a pin not aligned to the element
// size — is bound through a tensor the session owns: each Run of such a
// slot first converts the slot's bytes into it, and [Stats] counts the
// conversions and the bytes written. [InputBinding] says which slots are
// converted and why. Anything else is [ErrInput] at bind time.
//
// Lifetime rules:
//
//   - A binding owns clones of the pins it was given (pin.HostPin.Clone):
//     the caller may release its own pins and close its tensors at once;
//     the mappings stay until the session is closed, because ONNX Runtime
//     holds their addresses.
//   - The memory is the caller's to write and read, the binding's to keep
//     mapped. A pin keeps the address valid, not the content: the caller
//     holds CPU access to the input and output memory (package tensor's
//     brackets) around Run, and must not rewrite an input or read an
//     output while a Run of that slot is in progress.
//   - Rebinding a slot (the producer's pool re-imported it) replaces its
//     binding for later runs; the old binding, its IoBindings and its pin
//     clones are destroyed as soon as no Run uses them (a Run in progress
//     on another goroutine finishes first). UnbindInput does the same for
//     a slot whose memory goes (a pin cache evicted it): a binding lives
//     no longer than the memory it reads is wanted.
//   - The conversion tensor is an anonymous mapping the session owns
//     (memory Go does not manage, so ONNX Runtime may keep its address),
//     one per session, unmapped at Close.
//   - Close waits for a Run in progress, then destroys the IoBindings, the
//     ONNX Runtime tensors, the pin clones, the conversion tensor, the
//     session and its reference on the environment, in that order. A
//     second Close is a no-op; Run and binds after Close are [ErrClosed].
//
// Concurrency: Run is for one goroutine at a time per session (calls are
// serialised by a mutex, uncontended in that use). BindInput and
// BindOutput may be called from other goroutines while Run runs: they
// build a new copy of the binding tables and publish it atomically
// (copy-on-write), so Run never takes their lock. Stats and InputBinding
// are safe from any goroutine.
package infer
