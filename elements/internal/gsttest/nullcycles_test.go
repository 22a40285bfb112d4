package gsttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// The elements' NULL cycles under the leaks tracer, the way a C or Python
// application runs them: the plugin built as the real .so
// (libgsttensorpin.so, as meson builds it), loaded through
// GST_PLUGIN_PATH by a C program (testdata/nullcycles.c) that plays a
// pipeline through 1 and then 5 NULL→PLAYING→NULL cycles and lists the
// GStreamer objects alive at the end that were not before the first.
//
// Main's check at the end of each element package's tests cannot see a
// reference the elements hand to a go-gst wrapper and never give back: it
// runs Go's collector until nothing changes, and the wrapper's finalizer
// then drops the reference for them. In a C or Python process the plugin's
// Go runtime collects only when its heap grows — rarely, as the frames
// allocate nothing in Go — so those objects stay alive, one more each
// cycle (tensorinfer's sink template caps were: 3 after one cycle, 11
// after five). Here the plugin's runtime runs with GOGC=off, so no
// finalizer runs: every reference must be given back by the code that
// took it.
//
// nullCycleCases is the table: one row per element, its pipeline a real
// one around it (ort: it runs tensorinfer, whose ONNX Runtime
// infertest.Lib provides; {model} is the shipped classifier). A new
// element adds its row.
var nullCycleCases = []struct {
	element, launch string
	ort             bool
}{
	{"tensorsrc", "tensorsrc num-buffers=8 pattern=counter ! video/x-raw,format=RGBx,width=64,height=48 ! fakesink", false},
	{"tensorpinsink", "videotestsrc num-buffers=8 ! video/x-raw,format=RGB,width=64,height=48 ! tensorpinsink sync=false", false},
	{"tensorsrc-tensorpinsink", "tensorsrc num-buffers=8 ! other/tensors,format=static,num_tensors=1,dimensions=3:64:48:1,types=uint8 ! " +
		"queue ! tensorpinsink sync=false", false},
	{"tensorinfer", "videotestsrc num-buffers=8 ! videoscale ! video/x-raw,format=RGB,width=64,height=64 ! " +
		"tensorinfer model={model} ! tensorpinsink sync=false", true},
	{"tensorinfer-preprocess", "videotestsrc num-buffers=8 ! video/x-raw,format=NV12,width=96,height=48 ! " +
		"tensorinfer model={model} resize=letterbox mean=0.485,0.456,0.406 std=0.229,0.224,0.225 ! tensorpinsink sync=false", true},
	{"tensordecode", "videotestsrc num-buffers=8 ! videoscale ! video/x-raw,format=RGB,width=64,height=64 ! " +
		"tensorinfer model={model} ! tensordecode mode=classify softmax=true top-k=2 score-threshold=0 post-messages=true ! fakesink", true},
	{"tensoroverlay", "videotestsrc num-buffers=8 ! video/x-raw,format=I420,width=320,height=240 ! " +
		"tensorinfer model={model} output=video resize=letterbox ! " +
		"tensordecode mode=classify softmax=true top-k=2 score-threshold=0 ! tensoroverlay ! fakesink", true},
	{"tensortrack", "videotestsrc num-buffers=8 ! video/x-raw,format=I420,width=320,height=240 ! " +
		"tensorinfer model={model} output=video interval=2 resize=letterbox ! " +
		"tensordecode mode=classify softmax=true top-k=2 score-threshold=0 ! tensortrack post-messages=true ! fakesink", true},
	// A second model on each region (the whole-frame classification's),
	// its results decoded onto the regions and drawn.
	{"tensorinfer-regions", "videotestsrc num-buffers=8 ! video/x-raw,format=RGB,width=160,height=120 ! " +
		"tensorinfer model={model} output=video resize=letterbox ! " +
		"tensordecode mode=classify softmax=true top-k=2 score-threshold=0 ! " +
		"tensorinfer model={model} inference-region=roi-list resize=stretch ! " +
		"tensordecode mode=classify softmax=true score-threshold=0 ! tensoroverlay ! fakesink", true},
	{"tensorpublish", "videotestsrc num-buffers=8 ! video/x-raw,format=I420,width=320,height=240 ! " +
		"tensorinfer model={model} output=video resize=letterbox ! " +
		"tensordecode mode=classify softmax=true top-k=2 score-threshold=0 ! tensorpublish location=/dev/null ! fakesink", true},
}

func TestNullCyclesLeakNothing(t *testing.T) {
	env := nullCyclesEnv(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	for _, c := range nullCycleCases {
		t.Run(c.element, func(t *testing.T) {
			cenv := env.vars
			if c.ort {
				cenv = append(append([]string(nil), cenv...), "ONNXRUNTIME_LIB="+infertest.Lib(t))
			}
			launch := strings.ReplaceAll(c.launch, "{model}", model)
			for _, cycles := range []int{1, 5} {
				leaked := env.run(t, cenv, cycles, launch, false)
				if len(leaked) > 0 {
					t.Errorf("%d NULL→PLAYING→NULL cycle(s) of\n  %s\nleft %d GStreamer object(s) alive that were not before:\n  %s",
						cycles, launch, len(leaked), strings.Join(leaked, "\n  "))
				}
			}
		})
	}
}

// The check itself: a reference the application keeps after the cycles
// (the driver's -leak-caps) is reported, once, with its type.
func TestNullCyclesSeeALeak(t *testing.T) {
	env := nullCyclesEnv(t)
	leaked := env.run(t, env.vars, 2, "tensorsrc num-buffers=2 ! fakesink", true)
	if len(leaked) != 1 || !strings.Contains(leaked[0], "GstCaps (ref-count 1): test/leaked-on-purpose") {
		t.Fatalf("leaked %q; want the one caps the driver keeps", leaked)
	}
}

// cyclesEnv is what the runs share: the driver, and the environment that
// loads the plugin built for them.
type cyclesEnv struct {
	driver string
	vars   []string
}

var (
	cyclesOnce  sync.Once
	cyclesBuilt cyclesEnv
	cyclesErr   error
)

// nullCyclesEnv builds, once per test binary, libgsttensorpin.so (go build
// -buildmode=c-shared ./plugin, as meson does) and the C driver into a
// directory of their own; the environment loads that .so (and no other
// copy) with the leaks tracer on, a registry of its own, and the plugin's
// Go runtime never collecting.
func nullCyclesEnv(t *testing.T) cyclesEnv {
	t.Helper()
	cyclesOnce.Do(func() { cyclesBuilt, cyclesErr = buildNullCycles() })
	if cyclesErr != nil {
		t.Fatal(cyclesErr)
	}
	return cyclesBuilt
}

func buildNullCycles() (cyclesEnv, error) {
	root, err := os.Getwd()
	if err != nil {
		return cyclesEnv{}, err
	}
	for ; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(root) == root {
			return cyclesEnv{}, fmt.Errorf("no go.mod above %s", root)
		}
	}
	// Not t.TempDir: the directory outlives the first test that asks.
	dir, err := os.MkdirTemp("", "gsttest-nullcycles-")
	if err != nil {
		return cyclesEnv{}, err
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return cyclesEnv{}, fmt.Errorf("the go tool builds the plugin: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, goTool, "build", "-buildmode=c-shared", "-o", filepath.Join(dir, "libgsttensorpin.so"), "./plugin")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return cyclesEnv{}, fmt.Errorf("building the plugin: %v\n%s", err, out)
	}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "gstreamer-1.0").Output()
	if err != nil {
		return cyclesEnv{}, fmt.Errorf("pkg-config gstreamer-1.0: %w", err)
	}
	driver := filepath.Join(dir, "nullcycles")
	args := append([]string{"-Wall", "-Werror", "-o", driver, "-I.", "testdata/nullcycles.c", "leaks.c"}, strings.Fields(string(flags))...)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		return cyclesEnv{}, fmt.Errorf("building testdata/nullcycles.c: %v\n%s", err, out)
	}
	vars := []string{"GST_TRACERS=leaks", "GOGC=off", "GST_PLUGIN_PATH=" + dir, "GST_REGISTRY=" + filepath.Join(dir, "registry.bin")}
	return cyclesEnv{driver: driver, vars: vars}, nil
}

var cyclesLine = regexp.MustCompile(`(?m)^cycles: (\d+), leaked: (\d+)$`)

// run plays launch through cycles NULL cycles in the driver with the
// extra environment vars and returns the objects it reports leaked; a run
// that fails (an error message, no EOS) fails t. leakCaps has the driver
// keep a caps of its own after the cycles.
func (e cyclesEnv) run(t *testing.T, vars []string, cycles int, launch string, leakCaps bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := []string{fmt.Sprint(cycles), launch}
	if leakCaps {
		args = append([]string{"-leak-caps"}, args...)
	}
	cmd := exec.CommandContext(ctx, e.driver, args...)
	cmd.Env = append(os.Environ(), vars...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%d cycle(s) of %s: %v\n%s%s", cycles, launch, err, stdout.String(), stderr.String())
	}
	m := cyclesLine.FindStringSubmatch(stdout.String())
	if m == nil || m[1] != fmt.Sprint(cycles) {
		t.Fatalf("%d cycle(s) of %s: the driver did not report them:\n%s%s", cycles, launch, stdout.String(), stderr.String())
	}
	var leaked []string
	for _, line := range strings.Split(stdout.String(), "\n") {
		if obj, ok := strings.CutPrefix(line, "leaked: "); ok {
			leaked = append(leaked, obj)
		}
	}
	if fmt.Sprint(len(leaked)) != m[2] {
		t.Fatalf("the driver counts %s leaked objects but lists %d:\n%s", m[2], len(leaked), stdout.String())
	}
	t.Logf("%s: %s", launch, m[0])
	return leaked
}
