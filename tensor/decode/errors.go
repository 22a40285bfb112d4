package decode

import "errors"

// Errors of the package. Every error it returns wraps one of them (with
// %w), so errors.Is tells the cases apart; the text says which tensor,
// quoting its name, type and dims (outermost first).
var (
	// ErrLayout: the tensors do not have the layout the mode decodes (a
	// rank, a dimension or a number of tensors it cannot take).
	ErrLayout = errors.New("tensor layout does not match the mode")
	// ErrData: a tensor's bytes are fewer than its shape and type need,
	// its element type is one the decoders do not read, its quantization
	// scale is not a number, or its values contradict the layout (an
	// SSD count of more detections than the tensors hold).
	ErrData = errors.New("tensor data does not match its shape and type")
	// ErrConfig: a Config value out of its range (a threshold that is
	// not a number, a negative limit, a connectivity other than 4 or 8).
	ErrConfig = errors.New("invalid decoder configuration")
	// ErrTransform: a Transform that maps nothing (a size or a scale
	// that is not positive and finite).
	ErrTransform = errors.New("invalid transform")
	// ErrLabels: a labels file that cannot be read.
	ErrLabels = errors.New("cannot read labels")
	// ErrLabelsEncoding: a labels file (or a dictionary) that is not
	// UTF-8 text — a line that is not UTF-8, or holds a NUL byte (UTF-16);
	// its errors wrap ErrLabels too.
	ErrLabelsEncoding = errors.New("labels are not UTF-8 text")
)
