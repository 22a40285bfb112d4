package infer

import "errors"

// Sentinel errors. Every error this package returns wraps one of them
// (match with errors.Is); the text around it names the library, file,
// input or slot concerned, what was expected and what was found.
var (
	// ErrRuntimeUnavailable: ONNX Runtime's library could not be loaded
	// (missing, not ONNX Runtime, too old), or another library is already
	// loaded in this process. The text names every path tried and the
	// loader's message for each.
	ErrRuntimeUnavailable = errors.New("ONNX Runtime unavailable")
	// ErrModel: the model file is missing, unreadable, truncated or not a
	// model ONNX Runtime accepts. The text names the file.
	ErrModel = errors.New("invalid model")
	// ErrInput: memory given to an input or output does not fit what the
	// model declares (rank, shape, element type, size, alignment), and no
	// conversion this package knows bridges the difference. The text names
	// the model's input or output, what it declares and what was given.
	ErrInput = errors.New("input does not fit the model")
	// ErrDynamicDims: an input or output has dimensions the model leaves
	// free (-1) and the caller did not fix (Options.Shapes).
	ErrDynamicDims = errors.New("dynamic dimensions not fixed")
	// ErrNotBound: Run named an input or output slot with no binding.
	ErrNotBound = errors.New("slot not bound")
	// ErrClosed: the session or environment was closed.
	ErrClosed = errors.New("closed")
)
