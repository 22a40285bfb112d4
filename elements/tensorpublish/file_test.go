package tensorpublish_test

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/go-gst/go-gst/gst"
	"github.com/go-gst/go-gst/gst/app"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gsttest"
	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish"
)

// runFile pushes n frames through tensorpublish with props and returns
// the run (stopped) and its counters at EOS.
func runFile(t *testing.T, props string, n int) (*run, tensorpublish.Stats) {
	t.Helper()
	r := start(t, props, false)
	defer r.stop()
	for i := range n {
		r.push(i)
	}
	return r, r.finish()
}

// A line a frame with objects, each valid against the schema and equal
// to the frame's metas as GStreamer reads them — boxes, labels, classes,
// confidences, track ids and states, classifications with Chinese text,
// a region of another element with a parent — in order, with the frame's
// PTS, size and the source; all of it in the file when EOS reaches the
// bus.
func TestTensorPublishFileLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	r, s := runFile(t, "location="+path+" source=cam1", 40)
	lines := splitLines(t, readFile(t, path))
	want := r.withObjects()
	checkLines(t, "file", lines, want, "cam1")
	if s.Frames != 40 || s.Messages != uint64(len(want)) || s.Published != uint64(len(want)) || s.Dropped != 0 || s.Queued != 0 {
		t.Errorf("stats at EOS: %+v (want 40 frames, %d messages, all published)", s, len(want))
	}
	if s.Objects != 60 {
		t.Errorf("stats objects %d, want 60 (0+1+2+3 a 4 frames)", s.Objects)
	}
	if !strings.Contains(string(readFile(t, path)), "沪A·12345") {
		t.Error("the OCR text is not written as UTF-8 text")
	}
}

// add-empty-frames writes every frame, the empty ones with "objects":[].
func TestTensorPublishEmptyFrames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	r, s := runFile(t, "location="+path+" add-empty-frames=true", 12)
	lines := splitLines(t, readFile(t, path))
	checkLines(t, "add-empty-frames", lines, r.sent, "")
	if !strings.Contains(string(lines[0]), `"objects":[]`) {
		t.Errorf("frame 0 (no objects): %s", lines[0])
	}
	if s.Messages != 12 || s.Published != 12 {
		t.Errorf("stats: %+v", s)
	}
}

// file-mode=truncate replaces what the file had; append adds to it.
func TestTensorPublishFileModes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	if err := os.WriteFile(path, []byte("{\"old\":true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r1, _ := runFile(t, "location="+path, 8) // truncate, the default
	checkLines(t, "truncate", splitLines(t, readFile(t, path)), r1.withObjects(), "")
	r2, _ := runFile(t, "location="+path+" file-mode=append source=second", 8)
	lines := splitLines(t, readFile(t, path))
	n1 := len(r1.withObjects())
	if len(lines) != n1+len(r2.withObjects()) {
		t.Fatalf("append: %d lines, want %d + %d", len(lines), n1, len(r2.withObjects()))
	}
	checkLines(t, "append, first run", lines[:n1], r1.withObjects(), "")
	checkLines(t, "append, second run", lines[n1:], r2.withObjects(), "second")
	r3, _ := runFile(t, "location="+path+" file-mode=truncate", 4)
	checkLines(t, "truncate again", splitLines(t, readFile(t, path)), r3.withObjects(), "")
}

// location=- writes the lines to the standard output (fd 1, here a pipe
// the test reads), and leaves it open.
func TestTensorPublishStdout(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := syscall.Dup(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Dup2(int(pw.Fd()), 1); err != nil {
		t.Fatal(err)
	}
	out := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(pr); out <- b }()
	r, _ := runFile(t, "location=- source=stdout", 10)
	syscall.Dup2(saved, 1)
	syscall.Close(saved)
	pw.Close()
	b := <-out
	pr.Close()
	checkLines(t, "stdout", splitLines(t, b), r.withObjects(), "stdout")
	if _, err := os.Stdout.Stat(); err != nil {
		t.Errorf("stdout closed by the element: %v", err)
	}
}

// The video passes through untouched: the buffer leaving tensorpublish
// is the one that entered it, even when someone else holds a reference
// on it (not writable: no copy is made to read it), its bytes unchanged.
func TestTensorPublishPassthrough(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	p, err := gst.NewPipelineFromString("appsrc name=src format=time ! tensorpublish name=pub location=" + path + " ! appsink name=sink sync=false")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	srcEl, _ := p.GetElementByName("src")
	sinkEl, _ := p.GetElementByName("sink")
	pubEl, _ := p.GetElementByName("pub")
	src, sink := app.SrcFromElement(srcEl), app.SinkFromElement(sinkEl)
	c := gst.NewCapsFromString(videoCaps)
	src.SetCaps(c)
	gstglue.ReleaseCaps(c)
	// The sink pad's probe keeps a reference on each buffer entering
	// (so it is not writable there) and notes it; the src pad's notes
	// what leaves.
	var in, out []uintptr
	var held []*gst.Buffer
	sinkPad, srcPad := pubEl.GetStaticPad("sink"), pubEl.GetStaticPad("src")
	sinkPad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		b := info.GetBuffer()
		in = append(in, uintptr(unsafe.Pointer(b.Instance())))
		held = append(held, b.Ref())
		return gst.PadProbeOK
	})
	srcPad.AddProbe(gst.PadProbeTypeBuffer, func(_ *gst.Pad, info *gst.PadProbeInfo) gst.PadProbeReturn {
		out = append(out, uintptr(unsafe.Pointer(info.GetBuffer().Instance())))
		return gst.PadProbeOK
	})
	gstglue.ReleasePad(sinkPad)
	gstglue.ReleasePad(srcPad)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 64*48)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for i := range 3 {
		buf := gst.NewBufferWithSize(int64(len(data)))
		buf.FillBytes(0, data)
		buf.SetPresentationTimestamp(gst.ClockTime(i))
		addScene(t, buf, 1+i)
		gsttest.PushOwned(src, buf)
		s := sink.TryPullSample(gst.ClockTime(20 * time.Second))
		if s == nil {
			t.Fatal("no buffer out")
		}
		b := s.GetBuffer()
		got := make([]byte, b.GetSize())
		gstglue.ExtractBuffer(gstglue.BorrowBuffer(b), got)
		if string(got) != string(data) {
			t.Errorf("frame %d: bytes changed", i)
		}
		gstglue.UnrefBuffer(b)
		runtime.SetFinalizer(s, nil)
		s.Unref()
	}
	if len(in) != 3 || len(out) != 3 {
		t.Fatalf("%d buffers in, %d out", len(in), len(out))
	}
	for i := range in {
		if in[i] != out[i] {
			t.Errorf("frame %d: another buffer came out (a copy)", i)
		}
	}
	p.SetState(gst.StateNull)
	for _, b := range held {
		gstglue.ReleaseBuffer(b)
	}
}

// DMA-BUF caps (as a camera or a decoder gives them) negotiate, and the
// frames are read alike.
func TestTensorPublishDMABufCaps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	p, err := gst.NewPipelineFromString("appsrc name=src format=time ! tensorpublish name=pub location=" + path + " ! fakesink")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
	srcEl, _ := p.GetElementByName("src")
	src := app.SrcFromElement(srcEl)
	c := gst.NewCapsFromString("video/x-raw(memory:DMABuf),format=NV12,width=64,height=48,framerate=30/1")
	src.SetCaps(c)
	gstglue.ReleaseCaps(c)
	if err := p.SetState(gst.StatePlaying); err != nil {
		t.Fatal(err)
	}
	var sent []sentFrame
	for i := 1; i < 4; i++ {
		buf := gst.NewBufferWithSize(64 * 48 * 3 / 2)
		buf.SetPresentationTimestamp(gst.ClockTime(time.Duration(i) * frameTime))
		addScene(t, buf, i)
		sent = append(sent, sentFrame{pts: time.Duration(i) * frameTime, regions: readRegions(buf)})
		gsttest.PushOwned(src, buf)
	}
	src.EndStream()
	if msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(20*time.Second), gst.MessageEOS|gst.MessageError); msg == nil || msg.Type() != gst.MessageEOS {
		t.Fatalf("no EOS: %v", msg)
	}
	checkLines(t, "DMA-BUF caps", splitLines(t, readFile(t, path)), sent, "")
}

// Bad settings are errors at start naming what is wrong, and the
// pipeline does not start.
func TestTensorPublishSettingErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ props, want string }{
		{"", "no destination"},
		{"location=" + filepath.Join(dir, "no", "such", "dir", "r.jsonl"), "cannot open"},
		{"mqtt-address=localhost:1883", "is not an address like"},
		{"mqtt-address=ws://127.0.0.1:1883", "scheme \"ws\""},
		{"mqtt-address=tcp://127.0.0.1:1883 tls-ca-file=" + filepath.Join(dir, "ca.pem"), "not a TLS address"},
		{"mqtt-address=tls://127.0.0.1:8883 tls-ca-file=" + filepath.Join(dir, "missing.pem"), "tls-ca-file"},
		{"mqtt-address=tcp://127.0.0.1:1883 topic=a/+/b", "wildcard"},
	} {
		t.Run(c.props, func(t *testing.T) {
			desc := "appsrc name=src format=time ! tensorpublish " + c.props + " ! fakesink"
			p, err := gst.NewPipelineFromString(desc)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { p.SetState(gst.StateNull); runtime.KeepAlive(p) }()
			if err := p.SetState(gst.StatePlaying); err == nil {
				// Live sources change state asynchronously; appsrc is not.
				t.Fatalf("%s: started", desc)
			}
			msg := p.GetPipelineBus().TimedPopFiltered(gst.ClockTime(5*time.Second), gst.MessageError)
			if msg == nil {
				t.Fatal("no error message")
			}
			ge, _ := gstglue.ParseErrorMessage(msg)
			if !strings.Contains(ge.Message, c.want) {
				t.Errorf("error %q, want it to say %q", ge.Message, c.want)
			}
		})
	}
}

// sanity: the test's frames are what the comments say.
func TestScene(t *testing.T) {
	for i, want := range []int{0, 1, 2, 3, 0} {
		buf := gst.NewBufferWithSize(1)
		addScene(t, buf, i)
		if n := len(readRegions(buf)); n != want {
			t.Errorf("frame %d: %d regions, want %d", i, n, want)
		}
		gstglue.ReleaseBuffer(buf)
	}
}
