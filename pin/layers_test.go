package pin_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gst-tensorpin/gst-tensorpin/"

// The layers hold: pin is the bottom of the module, so pin and the fault
// seam under it (pin/faultinject, which tensor imports too) import nothing
// of the module but pin's own packages — in particular nothing of tensor.
func TestPinImportsNothingAbove(t *testing.T) {
	for _, dir := range []string{".", "faultinject"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(path, module) {
					continue
				}
				rel := strings.TrimPrefix(path, module)
				if dir == "faultinject" || (rel != "pin" && !strings.HasPrefix(rel, "pin/")) {
					t.Errorf("%s imports %s: pin and pin/faultinject must not import the layers above them", f, path)
				}
			}
		}
	}
}
