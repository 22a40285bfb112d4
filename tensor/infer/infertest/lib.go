package infertest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// TB is the part of testing.TB that Lib and RepoFile use.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatalf(format string, args ...any)
}

// SkipEnv, set to 1, makes Lib skip a test instead of failing it when the
// library cannot be fetched.
const SkipEnv = "TENSORPIN_SKIP_ORT"

var fetched struct {
	once sync.Once
	lib  string
	err  string
}

// Lib returns the ONNX Runtime library a test runs: $ONNXRUNTIME_LIB, or
// the one scripts/fetch-onnxruntime fetches (once per test binary; cached
// on disk). A failed fetch fails the test — CI must run it — unless
// TENSORPIN_SKIP_ORT=1.
func Lib(tb TB) string {
	tb.Helper()
	if lib := os.Getenv("ONNXRUNTIME_LIB"); lib != "" {
		return lib
	}
	if os.Getenv(SkipEnv) == "1" {
		tb.Skip(SkipEnv + "=1: not running ONNX Runtime")
	}
	fetched.once.Do(func() {
		script, err := repoFile("scripts/fetch-onnxruntime")
		if err != nil {
			fetched.err = err.Error()
			return
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(script)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			fetched.err = fmt.Sprintf("%s failed (%v):\n%s", script, err, strings.TrimSpace(stderr.String()))
			return
		}
		fetched.lib = strings.TrimSpace(stdout.String())
	})
	if fetched.err != "" {
		tb.Fatalf("cannot get ONNX Runtime: %s\nSet ONNXRUNTIME_LIB to a libonnxruntime.so >= 1.24, make npm and "+
			"the npm registry reachable, or set %s=1 to skip the ONNX Runtime tests.", fetched.err, SkipEnv)
	}
	return fetched.lib
}

// RepoFile returns the absolute path of rel, a path relative to the
// repository's root, found by walking up from the working directory (a
// test's package directory) to the directory holding go.mod.
func RepoFile(tb TB, rel string) string {
	tb.Helper()
	p, err := repoFile(rel)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	return p
}

func repoFile(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, rel)
			if _, err := os.Stat(p); err != nil {
				return "", err
			}
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("infertest: no go.mod above the working directory: not inside the repository")
		}
		dir = up
	}
}
