package tensor

import "fmt"

// DType is a tensor's element type.
type DType uint8

// Element types. The zero DType is invalid so that a forgotten field is an
// error, not silently uint8.
const (
	U8 DType = iota + 1
	I8
	U16
	I16
	U32
	I32
	U64
	I64
	F16
	F32
	F64
)

var dtypeInfo = [...]struct {
	name string
	size int
}{
	U8: {"uint8", 1}, I8: {"int8", 1}, U16: {"uint16", 2}, I16: {"int16", 2},
	U32: {"uint32", 4}, I32: {"int32", 4}, U64: {"uint64", 8}, I64: {"int64", 8},
	F16: {"float16", 2}, F32: {"float32", 4}, F64: {"float64", 8},
}

// Valid reports whether d is one of the defined element types.
func (d DType) Valid() bool { return d >= U8 && d <= F64 }

// Size returns the element size in bytes (0 for an invalid DType).
func (d DType) Size() int {
	if !d.Valid() {
		return 0
	}
	return dtypeInfo[d].size
}

// String returns the NNStreamer-style name ("uint8", "float32", …).
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", uint8(d))
	}
	return dtypeInfo[d].name
}

// ParseDType parses a name as returned by String.
func ParseDType(s string) (DType, error) {
	for d := U8; d <= F64; d++ {
		if dtypeInfo[d].name == s {
			return d, nil
		}
	}
	return 0, fmt.Errorf("dtype %q: %w", s, ErrInvalidLayout)
}
