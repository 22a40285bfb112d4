package infer_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/tensor"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// wantErr fails unless err wraps target and its text contains every part.
func wantErr(t *testing.T, what string, err, target error, parts ...string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: %v, want %v", what, err, target)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %q does not say %q", what, err, p)
		}
	}
	t.Logf("%s: %v", what, err)
}

// A library that is not there, or not ONNX Runtime, is
// ErrRuntimeUnavailable naming the path and the loader's message; so is
// $ONNXRUNTIME_LIB pointing nowhere. Nothing stays loaded.
func TestInferMissingLibrary(t *testing.T) {
	if infer.Loaded() != 0 {
		t.Fatalf("ONNX Runtime loaded %d times before the test", infer.Loaded())
	}
	missing := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	_, err := infer.Load(missing)
	wantErr(t, "missing library", err, infer.ErrRuntimeUnavailable, missing, "No such file")

	notORT := filepath.Join(t.TempDir(), "libnotort.so")
	if err := os.WriteFile(notORT, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = infer.Load(notORT)
	wantErr(t, "not a shared library", err, infer.ErrRuntimeUnavailable, notORT)

	// A real shared library that is not ONNX Runtime.
	_, err = infer.Load("libm.so.6")
	wantErr(t, "libm", err, infer.ErrRuntimeUnavailable, "libm.so.6", "OrtGetApiBase")

	t.Setenv(infer.LibraryEnv, missing)
	_, err = infer.Load("")
	wantErr(t, "$ONNXRUNTIME_LIB pointing nowhere", err, infer.ErrRuntimeUnavailable, missing)
	if infer.Loaded() != 0 {
		t.Errorf("loaded %d after failures", infer.Loaded())
	}
}

// The environment is shared and reference-counted: two handles and a
// session share one; the session keeps it after both handles are closed
// and runs; the last Close destroys it. Another library while one is
// loaded is refused.
func TestInferEnvironmentShared(t *testing.T) {
	lib := infertest.Lib(t)
	a, err := infer.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	b, err := infer.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	if a.Library() != lib || infer.Loaded() != 2 {
		t.Fatalf("library %q, %d references", a.Library(), infer.Loaded())
	}
	_, err = infer.Load(filepath.Join(t.TempDir(), "other.so"))
	wantErr(t, "a second library", err, infer.ErrRuntimeUnavailable, "already loaded", lib)

	s, err := b.NewSession(infertest.RepoFile(t, infertest.ShippedModel), infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	a.Close() // a no-op
	b.Close()
	if infer.Loaded() != 1 {
		t.Fatalf("%d references with the session alone, want 1", infer.Loaded())
	}
	if _, err := a.NewSession(infertest.RepoFile(t, infertest.ShippedModel), infer.Options{}); !errors.Is(err, infer.ErrClosed) {
		t.Errorf("NewSession on a closed handle: %v", err)
	}
	bindFirstSlots(t, s)
	if err := s.Run(0, 0); err != nil {
		t.Fatalf("run with the handles closed: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if infer.Loaded() != 0 {
		t.Errorf("%d references after the last Close", infer.Loaded())
	}
	// And it loads again.
	c, err := infer.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// A model file that is missing, empty, truncated or garbage is ErrModel
// naming the file; so are bytes that are not a model.
func TestInferBadModel(t *testing.T) {
	e := load(t)
	dir := t.TempDir()
	good, err := os.ReadFile(infertest.RepoFile(t, infertest.ShippedModel))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	garbage := []byte(strings.Repeat("this is not an ONNX model\x00\xff", 40))
	for _, tc := range []struct{ name, path string }{
		{"missing", filepath.Join(dir, "missing.onnx")},
		{"empty", write("empty.onnx", nil)},
		{"truncated", write("truncated.onnx", good[:len(good)/2])},
		{"garbage", write("garbage.onnx", garbage)},
		{"a directory", dir},
	} {
		_, err := e.NewSession(tc.path, infer.Options{})
		wantErr(t, tc.name, err, infer.ErrModel, tc.path)
		_, err = e.Inspect(tc.path)
		wantErr(t, tc.name+" (Inspect)", err, infer.ErrModel, tc.path)
	}
	_, err = e.NewSessionBytes("garbage bytes", garbage, infer.Options{})
	wantErr(t, "garbage bytes", err, infer.ErrModel, "garbage bytes")
	_, err = e.NewSessionBytes("truncated bytes", good[:len(good)-7], infer.Options{})
	wantErr(t, "truncated bytes", err, infer.ErrModel, "truncated bytes")
	if infer.Loaded() != 1 {
		t.Errorf("%d references: a failed session kept one", infer.Loaded())
	}
}

// Memory the model cannot take is ErrInput naming the input, what the
// model takes and what was given: wrong rank, shape, element type, size;
// outputs too small or too few. Options naming what is not there are
// ErrInput too.
func TestInferInputMismatch(t *testing.T) {
	e := load(t)
	path := infertest.RepoFile(t, infertest.ShippedModel)
	s, err := e.NewSession(path, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, s)
	big := alloc(t, tensor.Layout{DType: tensor.U8, Shape: []int{1 << 16}})
	const takes = "uint8 [1 64 64 3]"
	for _, tc := range []struct {
		name   string
		layout tensor.Layout
		says   []string
	}{
		{"rank", tensor.Layout{DType: tensor.U8, Shape: []int{64, 192}}, []string{`"image"`, takes, "[64 192]", "rank 2"}},
		{"shape", tensor.Layout{DType: tensor.U8, Shape: []int{1, 32, 32, 3}}, []string{`"image"`, takes, "[1 32 32 3]"}},
		{"type", tensor.Layout{DType: tensor.I16, Shape: []int{1, 64, 64, 3}}, []string{`"image"`, takes, "int16"}},
		{"float into uint8", tensor.Layout{DType: tensor.F32, Shape: []int{64, 64, 3}}, []string{`"image"`, takes, "float32"}},
		{"offset", tensor.Layout{DType: tensor.U8, Shape: []int{64, 64, 3}, Offset: 64}, []string{`"image"`, "offset"}},
	} {
		err := s.BindInput(0, infer.Input{Pin: &big.p, Layout: tc.layout})
		wantErr(t, tc.name, err, infer.ErrInput, tc.says...)
	}
	small := alloc(t, tensor.Layout{DType: tensor.U8, Shape: []int{100}})
	err = s.BindInput(0, infer.Input{Pin: &small.p, Layout: s.Input().Layout()})
	wantErr(t, "too short", err, infer.ErrInput, `"image"`, "12288", "holds 100")
	err = s.BindInput(0, infer.Input{Layout: s.Input().Layout()})
	wantErr(t, "no pin", err, infer.ErrInput, `"image"`)
	err = s.BindInput(-1, infer.Input{Pin: &big.p, Layout: s.Input().Layout()})
	wantErr(t, "negative slot", err, infer.ErrInput, "slot -1")

	err = s.BindOutput(0)
	wantErr(t, "no output pin", err, infer.ErrInput, "0 pins for 1 outputs", `"scores"`)
	tiny := alloc(t, tensor.Layout{DType: tensor.U8, Shape: []int{8}})
	err = s.BindOutput(0, &tiny.p)
	wantErr(t, "output too small", err, infer.ErrInput, `"scores"`, "takes 12 bytes", "holds 8")
	misaligned, err := big.p.Narrow(1, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer misaligned.Release()
	err = s.BindOutput(0, &misaligned)
	wantErr(t, "output misaligned", err, infer.ErrInput, `"scores"`, "aligned")

	err = s.Run(0, 0)
	wantErr(t, "run unbound", err, infer.ErrNotBound, "input slot 0")
	if st := s.Stats(); st.InputBinds != 0 || st.OutputBinds != 0 {
		t.Errorf("failed binds counted: %+v", st)
	}

	_, err = e.NewSession(path, infer.Options{Input: "pixels"})
	wantErr(t, "input name", err, infer.ErrInput, `"pixels"`, `"image"`)
	_, err = e.NewSession(path, infer.Options{Outputs: []string{"boxes"}})
	wantErr(t, "output name", err, infer.ErrInput, `"boxes"`, `"scores"`)
	_, err = e.NewSession(path, infer.Options{Shapes: map[string][]int64{"image": {1, 32, 32, 3}}})
	wantErr(t, "a shape against the model's", err, infer.ErrInput, `"image"`, "[1 64 64 3]", "[1 32 32 3]")
}

// A model with a free batch dimension: Inspect shows -1; a session with
// the input's dimension not fixed is ErrDynamicDims naming the input and
// its declared shape (? for free); the output's follows from ONNX
// Runtime; fixed by Options.Shapes, it runs and matches the reference.
func TestInferDynamicDims(t *testing.T) {
	e := load(t)
	m := infertest.Means{H: 16, W: 16, C: 3, Scale: 1, DynamicBatch: true}
	onnx := m.ONNX()
	info, err := e.InspectBytes("dynamic", onnx)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(info.Inputs[0].ModelShape, info.Outputs[0].ModelShape); got != "[-1 16 16 3] [-1 3]" {
		t.Errorf("inspected shapes %s", got)
	}
	if !info.Inputs[0].Dynamic() {
		t.Error("input not reported dynamic")
	}
	_, err = e.NewSessionBytes("dynamic", onnx, infer.Options{})
	wantErr(t, "nothing fixed", err, infer.ErrDynamicDims, `"image"`, "[? 16 16 3]")
	// The output left free takes its shape from ONNX Runtime, for the
	// input fixed.
	probed, err := e.NewSessionBytes("dynamic", onnx, infer.Options{Shapes: map[string][]int64{"image": {1, 16, 16, 3}}})
	if err != nil {
		t.Fatalf("output left free: %v", err)
	}
	if got := fmt.Sprint(probed.Outputs()[0].Shape); got != "[1 3]" {
		t.Errorf("output left free: shape %s, want [1 3]", got)
	}
	probed.Close()
	_, err = e.NewSessionBytes("dynamic", onnx, infer.Options{Shapes: map[string][]int64{"image": {0, 16, 16, 3}}})
	wantErr(t, "fixed to 0", err, infer.ErrDynamicDims, `"image"`)
	s, err := e.NewSessionBytes("dynamic", onnx, infer.Options{Shapes: map[string][]int64{"image": {1, 16, 16, 3}, "scores": {1, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	closeLater(t, s)
	in := alloc(t, s.Input().Layout())
	out := alloc(t, s.Outputs()[0].Layout())
	in.write(t, func(b []byte) {
		for i, v := range f32s(b) {
			_ = v
			f32s(b)[i] = float32(i % 17)
		}
	})
	if err := s.BindInput(0, infer.Input{Pin: &in.p, Layout: s.Input().Layout()}); err != nil {
		t.Fatal(err)
	}
	if err := s.BindOutput(0, &out.p); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(0, 0); err != nil {
		t.Fatal(err)
	}
	v := f32s(in.p.Bytes())
	want := m.Reference(func(y, x, c int) float64 { return float64(v[(y*16+x)*3+c]) })[0]
	checkClose(t, "fixed batch", out.floats(t, 3), want, 1e-6)
}

// Loading the runtime, running a session and closing it leaves nothing
// behind: no telemetry store under $HOME/.cache or $XDG_CACHE_HOME, no
// mat-debug-PID.log or .ses in $TMPDIR or /tmp. A child process does it
// with HOME, XDG_CACHE_HOME and TMPDIR pointing at empty directories,
// which must still be empty after it exits. The control child sets
// ORT_DISABLE_TELEMETRY=0 (a user's choice Load respects): with this
// runtime it does write them, which shows the check can see them.
func TestInferLoadLeavesNothingBehind(t *testing.T) {
	lib := infertest.Lib(t)
	model := infertest.RepoFile(t, infertest.ShippedModel)
	run := func(telemetry string) (left []string, pid int) {
		t.Helper()
		home, cache, tmp := t.TempDir(), t.TempDir(), t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, infer.TelemetryEnv+"=") { // the user's setting would decide instead of Load
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, childEnv+"=1", "ONNXRUNTIME_LIB="+lib, childModelEnv+"="+model,
			"HOME="+home, "XDG_CACHE_HOME="+cache, "TMPDIR="+tmp)
		if telemetry != "" {
			cmd.Env = append(cmd.Env, infer.TelemetryEnv+"="+telemetry)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		pid = cmd.Process.Pid
		for _, dir := range []string{home, cache, tmp} {
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && p != dir {
					left = append(left, p)
				}
				return nil
			})
		}
		for _, p := range []string{fmt.Sprintf("/tmp/mat-debug-%d.log", pid)} {
			if _, err := os.Stat(p); err == nil {
				left = append(left, p)
				os.Remove(p) // ours: the child's pid
			}
		}
		return left, pid
	}
	if left, _ := run(""); len(left) > 0 {
		t.Errorf("loading ONNX Runtime left %s", strings.Join(left, ", "))
	}
	if left, _ := run("0"); len(left) == 0 {
		t.Log("control: with telemetry on this runtime writes nothing either")
	} else {
		t.Logf("control (ORT_DISABLE_TELEMETRY=0) left, as expected: %s", strings.Join(left, ", "))
	}
}

const (
	childEnv      = "INFERTEST_LEFTOVERS_CHILD"
	childModelEnv = "INFERTEST_MODEL"
)

// leftoversChild loads the runtime, runs the shipped model once and closes
// everything.
func leftoversChild() int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	e, err := infer.Load("")
	if err != nil {
		return fail(err)
	}
	s, err := e.NewSession(os.Getenv(childModelEnv), infer.Options{})
	if err != nil {
		return fail(err)
	}
	in, err := tensor.Alloc(s.Input().Layout(), tensor.AllocOptions{})
	if err != nil {
		return fail(err)
	}
	out, err := tensor.Alloc(s.Outputs()[0].Layout(), tensor.AllocOptions{})
	if err != nil {
		return fail(err)
	}
	ip, _ := in.PinHost()
	op, _ := out.PinHost()
	if err := s.BindInput(0, infer.Input{Pin: &ip, Layout: s.Input().Layout()}); err != nil {
		return fail(err)
	}
	if err := s.BindOutput(0, &op); err != nil {
		return fail(err)
	}
	if err := s.Run(0, 0); err != nil {
		return fail(err)
	}
	s.Close()
	e.Close()
	ip.Release()
	op.Release()
	in.Close()
	out.Close()
	return 0
}
