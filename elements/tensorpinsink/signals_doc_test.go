package tensorpinsink

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
)

// The package documentation carries each signal's description exactly as
// its declaration generates it (proptable.DocBlock): the contract is
// written in one place, and the doc cannot drift from it.
func TestSignalDocsAreGeneratedFromTheDeclarations(t *testing.T) {
	if err := proptable.CheckDocBlock("doc.go", signals...); err != nil {
		t.Error(err)
	}
}
