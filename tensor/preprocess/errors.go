package preprocess

import "errors"

// Errors of the package. Every error it returns wraps one of them (with
// %w), so errors.Is tells the cases apart; the text names the field or
// the slice and the values involved.
var (
	// ErrConfig: a Config field out of its range (a size, a stride, an
	// offset, an element type or layout the pass does not write, a
	// normalisation that is missing, not finite or not allowed, resize
	// none between sizes that differ).
	ErrConfig = errors.New("invalid preprocess configuration")
	// ErrFormat: a source format the pass does not read.
	ErrFormat = errors.New("unsupported source format")
	// ErrShort: Run's frame or tensor is shorter than the plan needs
	// (Plan.SrcSize, Plan.DstSize).
	ErrShort = errors.New("buffer shorter than the plan needs")
	// ErrAlign: Run's tensor does not start at a multiple of its element
	// size (4 bytes for float32).
	ErrAlign = errors.New("tensor not aligned to its element size")
	// ErrClosed: Run on a closed Plan.
	ErrClosed = errors.New("plan closed")
	// ErrModelInfo: a .modelinfo file that cannot be read, or whose
	// input tensor cannot be mapped onto a Config.
	ErrModelInfo = errors.New("invalid modelinfo")
)
