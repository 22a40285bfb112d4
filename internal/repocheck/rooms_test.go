package repocheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The module's root, two directories up from this package.
const root = "../.."

// roomsTable returns docs/design.md's "## Rooms" section.
func roomsTable(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n## Rooms")
	if i < 0 {
		t.Fatal("docs/design.md has no \"## Rooms\" section")
	}
	s = s[i+1:]
	if j := strings.Index(s[3:], "\n## "); j >= 0 {
		s = s[:j+3]
	}
	return s
}

// Every package `go list` finds is named, in backquotes, in a row of the
// Rooms table (a row may name several, comma-separated); and every
// package path the table names exists.
func TestDesignRoomsListEveryPackage(t *testing.T) {
	const module = "github.com/gst-tensorpin/gst-tensorpin"
	table := roomsTable(t)
	named := map[string]bool{}
	for _, row := range strings.Split(table, "\n") {
		if !strings.HasPrefix(row, "| `") {
			continue
		}
		first := strings.SplitN(row[1:], "|", 2)[0]
		for _, m := range regexp.MustCompile("`([a-z0-9_/.-]+)`").FindAllStringSubmatch(first, -1) {
			named[m[1]] = true
		}
	}
	pkgs := map[string]bool{}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v", root, err)
	}
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		pkgs[rel] = true
		if !named[rel] {
			t.Errorf("docs/design.md's Rooms table does not name package %s", rel)
		}
	}
	for n := range named {
		if !pkgs[n] {
			t.Errorf("docs/design.md's Rooms table names %s, which is not a package of the module", n)
		}
	}
}
