package track

import "errors"

// ErrConfig: a Config value out of its range (a threshold that is not a
// number or outside [0, 1], a negative limit, a low threshold above the
// high one). Every error New returns wraps it.
var ErrConfig = errors.New("invalid tracker configuration")
