package cgotest

// docmap.go: the check that a package's map of its files — its doc.go's
// "# Map" — lists every file of the package and only files that exist.

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// mapFile matches a file named in a map: x.go, x.c, x.h, or x.[ch] (both).
var mapFile = regexp.MustCompile(`\b([a-z0-9_]+)\.(\[ch\]|(?:go|c|h)\b)`)

// mappedFiles returns the files text names, x.[ch] expanded to x.c and x.h.
func mappedFiles(text string) map[string]bool {
	named := map[string]bool{}
	for _, m := range mapFile.FindAllStringSubmatch(text, -1) {
		if m[2] == "[ch]" {
			named[m[1]+".c"], named[m[1]+".h"] = true, true
		} else {
			named[m[1]+"."+m[2]] = true
		}
	}
	return named
}

// section returns the part of text from the line starting with start up to
// the first line after it starting with end.
func section(t *testing.T, text, start, end string) string {
	t.Helper()
	i := strings.Index(text, start)
	if i < 0 {
		t.Fatalf("no %q", start)
	}
	rest := text[i+len(start):]
	if j := strings.Index(rest, end); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// packageFiles lists the package's .go, .c and .h files, tests and doc.go
// aside.
func packageFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.go", "*.c", "*.h"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.go") && f != "doc.go" {
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	if len(files) < 10 {
		t.Fatalf("found only %v: not run from the package's directory?", files)
	}
	return files
}

func checkMap(t *testing.T, where string, named map[string]bool) {
	t.Helper()
	files := packageFiles(t)
	for _, f := range files {
		if !named[f] {
			t.Errorf("%s: the map does not list %s", where, f)
		}
	}
	for f := range named {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: the map lists %s, which is not in the package", where, f)
		}
	}
}

// CheckDocMap fails t unless the map in the doc.go of the package in the
// current directory — from the line "// # Map" up to the line starting
// with docEnd — lists every .go, .c and .h file of it (tests and doc.go
// aside), and only files that exist.
func CheckDocMap(t *testing.T, docEnd string) {
	t.Helper()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	checkMap(t, "doc.go", mappedFiles(section(t, string(doc), "// # Map", docEnd)))
}
