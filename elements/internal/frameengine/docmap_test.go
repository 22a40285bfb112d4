package frameengine

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
)

// Both maps of the package — doc.go's "# Map" and its table in
// docs/design-notes.md — list every file, and only files that exist.
func TestDocMapListsEveryFile(t *testing.T) {
	cgotest.CheckDocMap(t, "// # Lifetime", "| engine file | what it does |")
}
