package tensordecode_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-gst/go-gst/gst"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// wantError fails unless r ended with an error of code whose text holds
// every string of want.
func wantError(t *testing.T, what string, r run, code gstglue.ErrorCode, want ...string) {
	t.Helper()
	if r.err == nil {
		t.Errorf("%s: no error; regions %v", what, r.frames)
		return
	}
	if r.err.Domain != code.Domain() || r.err.Code != code.Code() {
		t.Errorf("%s: error %s/%d %q, want %s/%d", what, r.err.Domain, r.err.Code, r.err.Message, code.Domain(), code.Code())
	}
	for _, w := range want {
		if !strings.Contains(r.err.Message, w) {
			t.Errorf("%s: error %q does not say %q", what, r.err.Message, w)
		}
	}
}

// Tensors whose layout the mode does not read are refused at caps: a
// negotiation error quoting the tensors' dims (outermost first), the
// mode's layout and the caps' dimensions, and no buffer goes through.
func TestTensorDecodeBadLayout(t *testing.T) {
	for _, c := range []struct {
		mode, caps string
		want       []string
	}{
		{"boxes-yolo", "other/tensors,format=static,num_tensors=1,dimensions=(string)84:1,types=(string)float32,names=(string)output0",
			[]string{`"output0" float32 [1 84]`, "[1 4+C N]", "dimensions=84:1"}},
		{"map-boxes", "other/tensors,format=static,num_tensors=1,dimensions=(string)8:8:2:1,types=(string)float32",
			[]string{`float32 [1 2 8 8]`, "[1 1 H W]", "dimensions=8:8:2:1"}},
		{"classify", "other/tensors,format=static,num_tensors=2,dimensions=(string)\"10:1,10:1\",types=(string)\"float32,float32\"",
			[]string{"got 2", "[1 10]", "dimensions=10:1,10:1"}},
		{"boxes-ssd", "other/tensors,format=static,num_tensors=1,dimensions=(string)8400:84:1,types=(string)float32",
			[]string{"boxes-ssd takes boxes [1 N 4]", "[1 84 8400]"}},
	} {
		r := runTensors(t, c.caps, "tensordecode name=dec mode="+c.mode, [][]byte{make([]byte, 4)})
		wantError(t, c.mode, r, gstglue.CoreNegotiation, c.want...)
		if len(r.frames) != 0 {
			t.Errorf("%s: %d buffers went through", c.mode, len(r.frames))
		}
	}
}

// boxes-ssd's normalized boxes need the input's size: without
// input-width and input-height the caps are refused, saying so.
func TestTensorDecodeSSDNeedsInputSize(t *testing.T) {
	caps := "other/tensors,format=static,num_tensors=3,dimensions=(string)\"4:2:1,2:1,2:1\",types=(string)\"float32,float32,float32\""
	r := runTensors(t, caps, "tensordecode name=dec mode=boxes-ssd", [][]byte{make([]byte, 32), make([]byte, 8), make([]byte, 8)})
	wantError(t, "no input size", r, gstglue.StreamFormat, "set input-width and input-height", "[1 2 4]")
}

// A buffer that is not the caps' tensors — a memory short of its shape,
// fewer memories than tensors — is a stream error naming it.
func TestTensorDecodeBadBuffers(t *testing.T) {
	caps := "other/tensors,format=static,num_tensors=1,dimensions=(string)8:7:1,types=(string)float32,names=(string)output0"
	r := runTensors(t, caps, "tensordecode name=dec input-width=64 input-height=64", [][]byte{make([]byte, 100)})
	wantError(t, "short", r, gstglue.StreamFormat, `"output0" float32 [1 7 8] holds 100 bytes, want 224`, "dimensions=8:7:1")
	caps2 := "other/tensors,format=static,num_tensors=2,dimensions=(string)\"4:1,4:1\",types=(string)\"float32,float32\""
	r = runTensors(t, caps2, "tensordecode name=dec mode=boxes-ssd input-width=64 input-height=64", [][]byte{make([]byte, 16)})
	if r.err == nil || !strings.Contains(r.err.Message, "boxes-ssd takes") {
		t.Errorf("two [1 4] tensors into boxes-ssd: %v", r.err)
	}
	caps3 := "other/tensors,format=static,num_tensors=2,dimensions=(string)\"4:1,4:1\",types=(string)\"float32,float32\""
	r = runTensors(t, caps3, "tensordecode name=dec mode=classify", [][]byte{make([]byte, 16)})
	if r.err == nil {
		t.Error("two tensors into classify: no error")
	}
	caps4 := "other/tensors,format=static,num_tensors=1,dimensions=(string)4:1,types=(string)float32"
	r = runTensors(t, caps4, "tensordecode name=dec mode=classify", [][]byte{make([]byte, 16), make([]byte, 16)})
	wantError(t, "two memories", r, gstglue.StreamFormat, "a buffer of 2 memories, but the caps say 1 tensors")
}

// startError sets desc's pipeline to PAUSED, wants the state change to
// fail, and returns the error on the bus.
func startError(t *testing.T, desc string) *gstglue.GError {
	t.Helper()
	p, err := gst.NewPipelineFromString(desc)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	if err := p.SetState(gst.StatePaused); err == nil {
		// An asynchronous change reports failure through get_state.
		if ret, _ := p.GetState(gst.StatePaused, gst.ClockTime(10*time.Second)); ret != gst.StateChangeFailure {
			t.Errorf("state change to PAUSED: %v, want a failure", ret)
		}
	}
	msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(10*time.Second), gst.MessageError)
	if msg == nil {
		t.Fatal("no error on the bus")
	}
	ge, _ := gstglue.ParseErrorMessage(msg)
	return ge
}

// A labels file that does not exist: the state change fails with an
// error naming the path.
func TestTensorDecodeLabelsMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-labels.txt")
	ge := startError(t, "fakesrc num-buffers=1 ! tensordecode labels="+missing+" ! fakesink")
	if ge.Domain != gstglue.DomainResource || ge.Code != gstglue.ResourceNotFound.Code() || !strings.Contains(ge.Message, missing) {
		t.Errorf("error %s/%d %q, want resource not-found naming %s", ge.Domain, ge.Code, ge.Message, missing)
	}
}

// A labels file that is not UTF-8 (Latin-1 here) is refused at the
// state change, the error naming the file and the line — in every mode;
// before, it was taken and each object of that class lost its label
// with two GLib warnings.
func TestTensorDecodeLabelsNotUTF8(t *testing.T) {
	path := filepath.Join(t.TempDir(), "latin1.txt")
	if err := os.WriteFile(path, []byte("chat\nb\xe9b\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"classify", "ctc"} {
		ge := startError(t, "fakesrc num-buffers=1 ! tensordecode mode="+mode+" labels="+path+" ! fakesink")
		if !strings.Contains(ge.Message, path) || !strings.Contains(ge.Message, "line 2 is not UTF-8") {
			t.Errorf("%s: error %q, want one naming %s and line 2", mode, ge.Message, path)
		}
	}
}

// An SSD count of more detections than the tensors hold is a stream
// error naming every tensor (it was taken as all of them): the tensors
// are not what boxes-ssd reads.
func TestTensorDecodeSSDCountTooLarge(t *testing.T) {
	caps := "other/tensors,format=static,num_tensors=4,dimensions=(string)\"4:2:1,2:1,2:1,1\",types=(string)\"float32,float32,float32,float32\"," +
		"names=(string)\"boxes,classes,scores,count\""
	r := runTensors(t, caps, "tensordecode name=dec mode=boxes-ssd input-width=64 input-height=64",
		[][]byte{floats(0.1, 0.1, 0.5, 0.5, 0.2, 0.2, 0.4, 0.4), floats(1, 2), floats(0.9, 0.8), floats(100)})
	wantError(t, "count 100 of 2", r, gstglue.StreamFormat, `"count" float32 [1] counts 100 detections`, "hold 2 detections",
		`"boxes" float32 [1 2 4]`)
	if len(r.frames) != 0 {
		t.Errorf("%d buffers went through", len(r.frames))
	}
}

// A labels file in UTF-16 without its byte-order mark (valid UTF-8 byte
// by byte) is refused at the state change too, the error saying why:
// accepted, every label would reach C cut at its first NUL ("c" for
// "cat").
func TestTensorDecodeLabelsUTF16(t *testing.T) {
	path := filepath.Join(t.TempDir(), "utf16.txt")
	if err := os.WriteFile(path, []byte("c\x00a\x00t\x00\n\x00d\x00o\x00g\x00\n\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"classify", "ctc"} {
		ge := startError(t, "fakesrc num-buffers=1 ! tensordecode mode="+mode+" labels="+path+" ! fakesink")
		for _, w := range []string{path, "line 1 holds a NUL byte", "UTF-16"} {
			if !strings.Contains(ge.Message, w) {
				t.Errorf("%s: error %q does not say %q", mode, ge.Message, w)
			}
		}
	}
}
