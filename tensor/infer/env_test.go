package infer_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// The loaded library asked for by another name is the same runtime: the
// path through "..", a symlink, a relative path, a hard link, its soname
// (which the loader resolves to the loaded object) and $ONNXRUNTIME_LIB
// naming a symlink all take a reference. Another file holding the same
// bytes, or another loaded library's soname, is another runtime: refused,
// naming both.
func TestInferSameLibraryAnyName(t *testing.T) {
	if infer.Loaded() != 0 {
		t.Fatalf("ONNX Runtime loaded %d times before the test", infer.Loaded())
	}
	lib, err := filepath.Abs(infertest.Lib(t))
	if err != nil {
		t.Fatal(err)
	}
	e, err := infer.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	dir, file := filepath.Split(lib)
	// Built by hand: filepath.Join would clean the ".." away.
	dotdot := dir + "../" + filepath.Base(dir) + "/" + file
	tmp := t.TempDir()
	link := filepath.Join(tmp, "libort-link.so")
	if err := os.Symlink(lib, link); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, lib)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rel, "/") {
		rel = "./" + rel // a path, not a name for the loader's search
	}
	names := []struct{ what, name string }{
		{"dir/../dir", dotdot},
		{"a symlink", link},
		{"a relative path", rel},
		{"the soname", file},
	}
	// A hard link needs the same file system; where it cannot be made
	// the other names still run.
	if hard := filepath.Join(tmp, "libort-hard.so"); os.Link(lib, hard) == nil {
		names = append(names, struct{ what, name string }{"a hard link", hard})
	}
	for _, n := range names {
		h, err := infer.Load(n.name)
		if err != nil {
			t.Errorf("%s (%s): %v", n.what, n.name, err)
			continue
		}
		if infer.Loaded() != 2 || h.Library() != lib {
			t.Errorf("%s: %d references, library %q; want 2, %q", n.what, infer.Loaded(), h.Library(), lib)
		}
		h.Close()
	}
	t.Setenv(infer.LibraryEnv, link)
	if h, err := infer.Load(""); err != nil {
		t.Errorf("$%s naming a symlink: %v", infer.LibraryEnv, err)
	} else {
		h.Close()
	}
	t.Setenv(infer.LibraryEnv, "")

	// The same bytes at another inode are another library to the loader.
	copied := filepath.Join(tmp, file)
	copyFile(t, lib, copied)
	_, err = infer.Load(copied)
	wantErr(t, "a copy", err, infer.ErrRuntimeUnavailable, "already loaded", copied, lib)
	// A bare name the loader resolves to another loaded library.
	_, err = infer.Load("libc.so.6")
	wantErr(t, "another library's soname", err, infer.ErrRuntimeUnavailable, "already loaded", "libc.so.6", lib)
	if infer.Loaded() != 1 {
		t.Errorf("%d references after the refusals, want 1", infer.Loaded())
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
