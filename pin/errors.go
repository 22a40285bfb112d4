package pin

import (
	"errors"
	"os"
)

// Sentinel errors of this package; returned errors wrap them with context,
// so match them with errors.Is.
var (
	// ErrReleased: the pin or keepalive was already released.
	ErrReleased = errors.New("pin: already released")
	// ErrClosed: the mapping was closed. It is os.ErrClosed.
	ErrClosed = os.ErrClosed
	// ErrOutOfBounds: a window does not lie inside its owner.
	ErrOutOfBounds = errors.New("pin: window out of bounds")
	// ErrInvalid: an argument cannot describe memory (negative length, nil address with a length).
	ErrInvalid = errors.New("pin: invalid argument")
)
