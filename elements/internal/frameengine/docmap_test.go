package frameengine

import (
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/cgotest"
)

// The package's map in doc.go ("# Map") lists every file, and only
// files that exist.
func TestDocMapListsEveryFile(t *testing.T) {
	cgotest.CheckDocMap(t, "// # Lifetime")
}
