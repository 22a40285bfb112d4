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

// fetch runs a fetch script of the repository once per test binary and
// keeps what it printed (a path) or why it failed.
type fetch struct {
	once sync.Once
	out  string
	err  string
}

func (f *fetch) run(rel string) (string, string) {
	f.once.Do(func() {
		script, err := repoFile(rel)
		if err != nil {
			f.err = err.Error()
			return
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(script)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			f.err = fmt.Sprintf("%s failed (%v):\n%s", script, err, strings.TrimSpace(stderr.String()))
			return
		}
		f.out = strings.TrimSpace(stdout.String())
	})
	return f.out, f.err
}

var fetchedLib, fetchedOCR fetch

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
	lib, err := fetchedLib.run("scripts/fetch-onnxruntime")
	if err != "" {
		tb.Fatalf("cannot get ONNX Runtime: %s\nSet ONNXRUNTIME_LIB to a libonnxruntime.so >= 1.24, make npm and "+
			"the npm registry reachable, or set %s=1 to skip the ONNX Runtime tests.", err, SkipEnv)
	}
	return lib
}

// OCRModels returns the directory holding PaddleOCR's public ONNX models
// (det.onnx, rec.onnx, cls.onnx) and dictionary (ppocr_keys_v1.txt):
// $TENSORPIN_OCR_MODELS, or what scripts/fetch-ocr-models fetches (once
// per test binary; cached on disk, sha256-pinned). A failed fetch fails
// the test, unless TENSORPIN_SKIP_ORT=1 (these tests run ONNX Runtime).
func OCRModels(tb TB) string {
	tb.Helper()
	if dir := os.Getenv("TENSORPIN_OCR_MODELS"); dir != "" {
		return dir
	}
	if os.Getenv(SkipEnv) == "1" {
		tb.Skip(SkipEnv + "=1: not running ONNX Runtime")
	}
	dir, err := fetchedOCR.run("scripts/fetch-ocr-models")
	if err != "" {
		tb.Fatalf("cannot get the OCR models: %s\nSet TENSORPIN_OCR_MODELS to a directory holding them, make npm and "+
			"the npm registry reachable, or set %s=1 to skip the ONNX Runtime tests.", err, SkipEnv)
	}
	return dir
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
