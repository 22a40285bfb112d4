package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gst-tensorpin/gst-tensorpin/pin/pintest"
	"github.com/gst-tensorpin/gst-tensorpin/pipelines"
	"github.com/gst-tensorpin/gst-tensorpin/tensor/infer/infertest"
)

// TestMain fails the run if the tests leave an fd or an fd-backed mapping
// behind (pins cloned for ONNX Runtime included).
func TestMain(m *testing.M) {
	if err := pipelines.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pintest.Main(m)
}

// ortLib returns the ONNX Runtime library: $ONNXRUNTIME_LIB, or the one
// scripts/fetch-onnxruntime fetches (package infertest: once per run,
// cached on disk). A failed fetch fails the test — CI must run it —
// unless TENSORPIN_SKIP_ORT=1.
func ortLib(t *testing.T) string {
	t.Helper()
	return infertest.Lib(t)
}

// 300 frames from tensorsrc's ring of 5: ONNX Runtime runs every frame on
// an input tensor bound once per slot over the slot's pinned address, and
// every output equals the Go reference computed on the frame's bytes —
// which it could not if the binding had copied the bytes when it was
// made. The sink pins the 5 buffers once and copies nothing.
func TestPinnedInference(t *testing.T) {
	lib := ortLib(t)
	const frames = 300
	rep, err := run(context.Background(), config{ortLib: lib, frames: frames})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.print(&out, lib)
	t.Log("\n" + out.String())
	if rep.Frames != frames || rep.Matched != frames || rep.AtPin != frames {
		t.Fatalf("%d frames: %d matched the reference, %d at the bound address; problems: %v",
			rep.Frames, rep.Matched, rep.AtPin, rep.Problems)
	}
	// tensorsrc's ring grows from pool-size=4 to the sink's min-buffers:
	// max-leases (4) + 1. The ring hands out the slot freed last, so how
	// many of the 5 a run uses depends on how many frames were in flight
	// at once: 1 to 5, each bound once and mapped once.
	if n := len(rep.Bindings); n < 1 || n > 5 {
		t.Errorf("bindings %v, want one per slot used of the ring of 5", rep.Bindings)
	}
	if s := rep.Sink; s.Copies != 0 || s.Mmaps != uint64(len(rep.Bindings)) || s.Frames != frames || s.BracketsClosedAtStop != 0 {
		t.Errorf("sink stats %+v: want 0 copies, one mmap per binding (%d), %d frames, no bracket left open", s, len(rep.Bindings), frames)
	}
	// Outputs differ from frame to frame (the counter pattern moves), so
	// matching them all is not a constant coincidence.
	if rep.MaxDiff > 1e-3 {
		t.Errorf("max |diff| %g", rep.MaxDiff)
	}
}

// The same through video/x-raw RGB caps (GstVideoMeta strides, packed at
// width 64) and a user-given description.
func TestPinnedInferenceVideoCaps(t *testing.T) {
	lib := ortLib(t)
	desc := "tensorsrc pool-size=3 ! video/x-raw,format=RGB,width=64,height=64 ! queue ! tensorpinsink name=sink sync=false"
	rep, err := run(context.Background(), config{ortLib: lib, frames: 40, pipeline: desc})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Frames != 40 || rep.Matched != 40 || rep.AtPin != 40 || len(rep.Bindings) < 1 || len(rep.Bindings) > 5 || rep.Sink.Copies != 0 {
		t.Fatalf("report %+v", rep)
	}
}

// A system-memory producer with a scaler before the model, as real
// pipelines have: videoscale writes into the pool tensorpinsink proposes,
// so ONNX Runtime reads each frame where the scaler wrote it — 0 copies,
// each pool buffer bound once.
func TestPinnedInferenceThroughThePool(t *testing.T) {
	lib := ortLib(t)
	desc := "videotestsrc num-buffers=40 pattern=ball ! video/x-raw,width=160,height=120 ! videoscale ! " +
		"video/x-raw,format=RGB,width=64,height=64 ! tensorpinsink name=sink sync=false"
	rep, err := run(context.Background(), config{ortLib: lib, frames: 40, pipeline: desc})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Frames != 40 || rep.Matched != 40 || rep.AtPin != 40 || rep.Sink.Copies != 0 || rep.Sink.PoolsProposed == 0 ||
		len(rep.Bindings) == 0 || len(rep.Bindings) != int(rep.Sink.Mmaps) {
		t.Fatalf("report %+v", rep)
	}
}

// A frame the model cannot take is an error that says why, not a crash.
func TestWrongFrameSize(t *testing.T) {
	lib := ortLib(t)
	desc := "tensorsrc num-buffers=5 ! video/x-raw,format=RGB,width=32,height=32 ! tensorpinsink name=sink sync=false"
	_, err := run(context.Background(), config{ortLib: lib, frames: 5, pipeline: desc})
	if err == nil || !strings.Contains(err.Error(), "the model takes 12288") {
		t.Fatalf("run = %v, want the size mismatch", err)
	}
}

// The reference, checked by hand on a black image: every convolution is
// its bias, ReLU keeps the positive ones (0.125, 0.375), and the Gemm
// adds them up.
func TestReferenceOnBlack(t *testing.T) {
	got := reference(make([]byte, InputBytes))
	mean := [Filters]float64{0, 0, 0.125, 0.375}
	for j := range Scores {
		want := float64(j)/2 - 0.5
		for o := range Filters {
			want += mean[o] * float64((3*o+2*j)%7-3) / 8
		}
		if got[j] != want {
			t.Errorf("score %d: %v, want %v", j, got[j], want)
		}
	}
}

// model.onnx is what make_model.py writes (checked when Debian's
// python3-onnx is installed).
func TestModelIsGenerated(t *testing.T) {
	if exec.Command("/usr/bin/python3", "-c", "import onnx").Run() != nil {
		t.Skip("python3-onnx is not installed (apt-get install python3-onnx): model.onnx not regenerated")
	}
	out := filepath.Join(t.TempDir(), "model.onnx")
	if b, err := exec.Command("/usr/bin/python3", "model/make_model.py", out).CombinedOutput(); err != nil {
		t.Fatalf("make_model.py: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, modelONNX) {
		t.Error("model/model.onnx differs from what model/make_model.py writes: run it and commit the result")
	}
}
