package tensorsrc

import (
	"os"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/proptable"
)

// The package documentation carries each signal's description exactly as
// its declaration generates it (proptable.DocBlock): the contract is
// written in one place, and the doc cannot drift from it.
func TestSignalDocsAreGeneratedFromTheDeclarations(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if block := proptable.DocBlock(signals...); !strings.Contains(string(doc), block) {
		t.Errorf("doc.go does not carry the signals as declared; paste this block into its Signals section:\n%s", block)
	}
}
