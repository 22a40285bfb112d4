package tensorsrc

import (
	"os"
	"strings"
	"testing"
)

// The package documentation carries each signal's description exactly as
// its declaration generates it (SignalSpec.Describe): the contract is
// written in one place, and the doc cannot drift from it.
func TestSignalDocsAreGeneratedFromTheDeclarations(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var commented strings.Builder
	for _, sig := range signals {
		for _, line := range strings.Split(strings.TrimRight(sig.Spec().Describe(), "\n"), "\n") {
			commented.WriteString(strings.TrimRight("//\t"+line, " ") + "\n")
		}
	}
	if !strings.Contains(string(doc), commented.String()) {
		t.Errorf("doc.go does not carry the signals as declared; paste this block into its Signals section:\n%s", commented.String())
	}
}
