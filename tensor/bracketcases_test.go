package tensor_test

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/brackettest"
)

// The bracket rule's cases (tensor/brackettest), every holder on
// package tensor's side; frameengine's tests play them with C holders, alone and
// beside Go ones, on the same word.
func TestBracketCases(t *testing.T) { brackettest.Run(t, nil) }
